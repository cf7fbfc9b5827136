package kernels

import (
	"strings"
	"testing"
	"time"
)

// TestProbePixels: two waves a kernel, or half the batch in whole runs;
// none below a wave each.
func TestProbePixels(t *testing.T) {
	for _, c := range []struct{ n, wave, want int }{
		{0, 128, 0},
		{255, 128, 0},
		{256, 128, 128},
		{300, 128, 128},  // half is 150: 4 runs
		{1000, 128, 256}, // two waves
		{1 << 20, 152064, 304128},
		{200000, 152064, 0},
		{400000, 152064, 200000},
		{5000, 0, 0},
		{5000, -1, 0},
	} {
		if got := ProbePixels(c.n, c.wave); got != c.want {
			t.Errorf("ProbePixels(%d, %d) = %d, want %d", c.n, c.wave, got, c.want)
		}
		if got := ProbePixels(c.n, c.wave); got%ProbeRun != 0 || 2*got > c.n {
			t.Errorf("ProbePixels(%d, %d) = %d: not whole runs within the batch", c.n, c.wave, got)
		}
	}
}

// TestProbeSplitPixels: half the batch in whole runs, when that half in
// parts holds two waves; none else.
func TestProbeSplitPixels(t *testing.T) {
	for _, c := range []struct{ n, parts, wave, want int }{
		{65536, 16, 152064, 32768}, // a 256² frame on an H200: 524,288 items a half
		{65536, 4, 152064, 0},      // 131,072 items a half: under two waves
		{255, 3, 128, 96},
		{255, 2, 128, 0},
		{255, 1, 128, 0}, // unsplit
		{63, 16, 1, 0},   // no whole run in half the batch
		{5000, 4, 0, 0},
	} {
		if got := ProbeSplitPixels(c.n, c.parts, c.wave); got != c.want {
			t.Errorf("ProbeSplitPixels(%d, %d, %d) = %d, want %d", c.n, c.parts, c.wave, got, c.want)
		}
	}
}

// TestProbeCopy: the two sides take alternate runs of the batch's first
// 2m pixels, each pixel once, and scatter back to where they came from,
// leaving the rest of the batch alone.
func TestProbeCopy(t *testing.T) {
	const m, n, width = 3 * ProbeRun, 7*ProbeRun + 5, 3
	batch := make([]int, width*n)
	for i := range batch {
		batch[i] = i
	}
	seen := make([]int, width*n)
	for side := range 2 {
		part := make([]int, width*m)
		probeCopy(batch, part, width, m, side, true)
		for j, v := range part {
			pixel := v / width
			if run := pixel / ProbeRun; run%2 != side || pixel >= 2*m {
				t.Fatalf("side %d holds pixel %d (run %d) at %d", side, pixel, run, j)
			}
			if j > 0 && v <= part[j-1] {
				t.Fatalf("side %d: values out of order at %d", side, j)
			}
			seen[v]++
		}
		for j := range part {
			part[j] = -part[j] - 1
		}
		probeCopy(batch, part, width, m, side, false)
	}
	for i, v := range batch {
		switch {
		case i < width*2*m && (v != -i-1 || seen[i] != 1):
			t.Fatalf("value %d: %d after the scatter, taken %d times; want %d, once", i, v, seen[i], -i-1)
		case i >= width*2*m && (v != i || seen[i] != 0):
			t.Fatalf("value %d past the probe: %d, taken %d times", i, v, seen[i])
		}
	}
}

// TestKernelProbe: rays a second, the faster kernel (the megakernels
// on a tie or with nothing timed), and the line that says the choice.
func TestKernelProbe(t *testing.T) {
	p := KernelProbe{Pixels: 304128}
	p.Rays[KernelMegakernel], p.Time[KernelMegakernel] = 303e6, time.Second
	p.Rays[KernelWavefront], p.Time[KernelWavefront] = 306e6, 500*time.Millisecond
	if r := p.Rate(KernelWavefront); r != 612e6 {
		t.Errorf("wavefront rate %g, want 612e6", r)
	}
	if k := p.Faster(); k != KernelWavefront {
		t.Errorf("Faster() = %v, want the wavefront", k)
	}
	c := KernelChoice{Device: "gpu0 NVIDIA H200", Set: KernelAuto, Kernel: p.Faster(), Probed: true, Probe: p}
	if got, want := c.String(), "gpu0 NVIDIA H200: the wavefront, chosen on 304,128 pixels each: 612 M rays/s, the megakernels 303 M"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	c.Probe.Split, c.Probe.Pixels = true, 32768
	if got, want := c.String(), "gpu0 NVIDIA H200: the wavefront, chosen on 32,768 pixels each (their samples split into parts): 612 M rays/s, the megakernels 303 M"; got != want {
		t.Errorf("split: String() = %q, want %q", got, want)
	}
	p.Time[KernelWavefront] = time.Second
	p.Rays[KernelWavefront] = 303e6
	if k := p.Faster(); k != KernelMegakernel {
		t.Errorf("a tie: Faster() = %v, want the megakernels", k)
	}
	if k := (KernelProbe{}).Faster(); k != KernelMegakernel {
		t.Errorf("nothing timed: Faster() = %v, want the megakernels", k)
	}
	c = KernelChoice{Device: "gpu1", Set: KernelAuto, Kernel: KernelMegakernel}
	if s := c.String(); !strings.Contains(s, "the megakernels") || !strings.Contains(s, "no batch") {
		t.Errorf("unprobed: %q", s)
	}
	c = KernelChoice{Device: "gpu1", Set: KernelWavefront, Kernel: KernelWavefront}
	if s, want := c.String(), "gpu1: the wavefront ("+KernelEnv+"=wavefront)"; s != want {
		t.Errorf("set: %q, want %q", s, want)
	}
	for r, want := range map[float64]string{1234e6: "1234 M", 612.4e6: "612 M", 1.764e6: "1.76 M", 0.4433e6: "0.443 M", 0: "0 M"} {
		if got := megaRays(r); got != want {
			t.Errorf("megaRays(%g) = %q, want %q", r, got, want)
		}
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 304128: "304,128", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
