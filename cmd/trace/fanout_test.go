package main

import (
	"slices"
	"testing"
)

// A fan-out calls its sinks in the order they were added, each once per
// report; with none it is no callback at all, so that the scheduler keeps
// no tile's pixels for nobody (Options.Tile nil).
func TestFanOut(t *testing.T) {
	if (fanOut[int]{}).callback() != nil {
		t.Error("an empty fan-out gives a callback, want nil")
	}
	var got []string
	s := fanOut[int]{
		func(v int) { got = append(got, "view", string(rune('0'+v))) },
		func(v int) { got = append(got, "checkpoint", string(rune('0'+v))) },
	}
	f := s.callback()
	f(1)
	f(2)
	if want := []string{"view", "1", "checkpoint", "1", "view", "2", "checkpoint", "2"}; !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
}
