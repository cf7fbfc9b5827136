package kernels

import (
	"strings"
	"testing"
)

// TestSampleParts: a batch is split only when its pixels are fewer than
// the items asked for, its pixels have samples to share out and its
// sample values fit; into enough parts to reach the items, at most a
// pixel's samples.
func TestSampleParts(t *testing.T) {
	for _, c := range []struct {
		pixels, samples, target int
		max                     int64
		want                    int
	}{
		{65536, 16, 8 * 152064, MaxSplitBytes, 16}, // a 256² frame on an H200's wavefront: a part a sample
		{65536, 16, 8 * 50688, MaxSplitBytes, 7},   // on its megakernels: ⌈405,504 / 65,536⌉
		{65536, 1024, 8 * 50688, MaxSplitBytes, 1}, // 805 MB of sample values: unsplit
		{65536, 341, 8 * 50688, MaxSplitBytes, 7},  // 268 MB, just fits
		{1 << 20, 4, 8 * 152064, MaxSplitBytes, 2}, // a large batch, a little short
		{1 << 21, 4, 8 * 152064, MaxSplitBytes, 1}, // past the target
		{300, 2, 1024, MaxSplitBytes, 2},
		{300, 1, 1024, MaxSplitBytes, 1}, // one sample: nothing to share out
		{300, 0, 1024, MaxSplitBytes, 1},
		{0, 16, 1024, MaxSplitBytes, 1},
		{300, 16, 0, MaxSplitBytes, 1}, // the device cannot tell its wave
		{1024, 16, 1024, MaxSplitBytes, 1},
		{1023, 16, 1024, MaxSplitBytes, 2},
		{100, 16, 1024, 100 * 16 * SampleValueBytes, 11},
		{100, 16, 1024, 100*16*SampleValueBytes - 1, 1},
	} {
		if got := SampleParts(c.pixels, c.samples, c.target, c.max); got != c.want {
			t.Errorf("SampleParts(%d, %d, %d, %d) = %d, want %d", c.pixels, c.samples, c.target, c.max, got, c.want)
		}
	}
	for _, c := range []struct{ set, pixels, samples, target, want int }{
		{0, 300, 16, 1024, 4},     // auto
		{1, 300, 16, 1024, 1},     // never
		{3, 1 << 20, 16, 1024, 3}, // set: whatever the batch's size
		{40, 300, 16, 1024, 16},   // at most the samples
		{3, 300, 1, 1024, 1},      // nothing to share out
		{3, 65536, 1024, 1024, 1}, // the values would not fit
		{3, 65536, 341, 1 << 30, 3},
	} {
		if got := BatchParts(c.set, c.pixels, c.samples, c.target); got != c.want {
			t.Errorf("BatchParts(%d, %d, %d, %d) = %d, want %d", c.set, c.pixels, c.samples, c.target, got, c.want)
		}
	}
	if got := SplitOutFloats(10, 16, 1); got != 30 {
		t.Errorf("SplitOutFloats unsplit = %d, want 30", got)
	}
	if got := SplitOutFloats(10, 16, 4); got != 480 {
		t.Errorf("SplitOutFloats split = %d, want 480", got)
	}
}

// TestParsePartsEnv: TRACE_GPU_PARTS' values, and a clear error for any
// other.
func TestParsePartsEnv(t *testing.T) {
	for s, want := range map[string]int{"": 0, "auto": 0, "1": 1, "16": 16, "65536": MaxParts} {
		if got, err := ParsePartsEnv(s); err != nil || got != want {
			t.Errorf("ParsePartsEnv(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"0", "-2", "65537", "x", "2.5", " 2"} {
		if _, err := ParsePartsEnv(s); err == nil || !strings.Contains(err.Error(), PartsEnv) {
			t.Errorf("ParsePartsEnv(%q): error %v, want one naming %s", s, err, PartsEnv)
		}
	}
}
