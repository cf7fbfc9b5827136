package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tracerender/trace/scheduler/watch"
)

// An interrupted render's view does not linger, and says nothing of
// lingering (it once said it stayed up until a time it did not).
func TestServeInterruptedNoLinger(t *testing.T) {
	var stderr bytes.Buffer
	con := newConsole(&stderr, false, true)
	v, err := startView("127.0.0.1:0", time.Hour, watch.Options{Width: 4, Height: 4, Tiles: 1}, con)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Ctrl-C
	start := time.Now()
	if err := v.end(ctx, errInterrupted, con); err == nil {
		t.Error("end returned no error")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the view ended %v after an interrupt", d)
	}
	if strings.Contains(stderr.String(), "stays up") {
		t.Errorf("an interrupted render's view says it lingers:\n%s", stderr.String())
	}
}
