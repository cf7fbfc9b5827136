package kernels

import (
	"strings"
	"testing"
	"time"
)

// TestParseTimes: TRACE_GPU_TIMES' values, and a clear error for any
// other.
func TestParseTimes(t *testing.T) {
	for s, want := range map[string]bool{"": false, "0": false, "1": true} {
		got, err := ParseTimes(s)
		if err != nil || got != want {
			t.Errorf("ParseTimes(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"yes", "2", " 1", "true"} {
		if _, err := ParseTimes(s); err == nil || !strings.Contains(err.Error(), TimesEnv) {
			t.Errorf("ParseTimes(%q): error %v, want one naming %s", s, err, TimesEnv)
		}
	}
}

// TestTimesString: the line a render prints, with each entry's share of
// the kernels' time and mean launch, and the kernels' share of the
// batches' time.
func TestTimesString(t *testing.T) {
	ms := time.Millisecond
	tm := Times{Device: "gpu0 NVIDIA H200", Lanes: 1, Batches: 3, Pixels: 3 << 20, Items: 3 << 20, Wall: 1000 * ms, Entries: []EntryTime{
		{"wf_shade", 300, 600 * ms},
		{"wf_intersect", 200, 200 * ms},
		{"wf_finish", 1, 0},
	}}
	want := "gpu0 NVIDIA H200, 1 lane: kernel times of 3 batches, 3145728 pixels, 1.000 s: " +
		"wf_shade 0.600 s (75%; 300 launches of 2000 µs), wf_intersect 0.200 s (25%; 200 launches of 1000 µs), wf_finish 0.000 s (0%; 1 launch of 0 µs); " +
		"kernels 0.800 s, 80% of the batches' time"
	if got := tm.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
	split := tm
	split.Items = 12 << 20
	if got := split.String(); !strings.HasPrefix(got, "gpu0 NVIDIA H200, 1 lane: kernel times of 3 batches, 3145728 pixels (12582912 items: samples split into parts), 1.000 s: wf_shade") {
		t.Errorf("split batches: String() = %q", got)
	}
	if tm.GPU() != 800*ms {
		t.Errorf("GPU() = %v, want 800ms", tm.GPU())
	}
	tm.Lanes, tm.Batches = 2, 1
	if got := tm.String(); !strings.Contains(got, "2 lanes: kernel times of 1 batch,") || !strings.HasSuffix(got, "(the lanes' kernels overlap)") {
		t.Errorf("two lanes: String() = %q", got)
	}
	tm.Regs = RegCaps{{"wf_shade", 128}, {"wf_occluded", 32}}
	if got := tm.String(); !strings.HasPrefix(got, "gpu0 NVIDIA H200 (TRACE_GPU_REGS=wf_shade=128,wf_occluded=32), 2 lanes: kernel times of 1 batch,") {
		t.Errorf("register caps: String() = %q", got)
	}
	if got := (Times{Device: "gpu0", Lanes: 2}).String(); !strings.Contains(got, "no launches") {
		t.Errorf("nothing timed: String() = %q", got)
	}
	if TimedEntries[0] != "wf_init" || TimedEntries[len(WaveEntries)] != "trace_pixels_path" || TimedEntries[len(WaveEntries)+2] != "trace_reduce" || len(TimedEntries) != len(WaveEntries)+3 {
		t.Errorf("TimedEntries = %v", TimedEntries)
	}
}
