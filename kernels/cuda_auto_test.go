//go:build cuda

package kernels

import (
	"context"
	"os"
	"strings"
	"testing"

	"gorgonia.org/cu"
)

// autoWave is the larger of d's kernels' full waves (its probe's).
func autoWave(ctx context.Context, d *cudaDevice) int {
	var wave int
	d.do(ctx, func() error {
		for _, fn := range []cu.Function{d.fns[0], d.fns[1], d.wave[WaveIntersect]} {
			wave = max(wave, cudaWaveThreads(d.dev, fn, d.block))
		}
		return nil
	})
	return wave
}

// autoScene is the Cornell box at 2 samples a pixel (cornellScene), n
// pixels or a few more, and its first n pixels in rows.
func autoScene(t *testing.T, n int) (*Packed, []uint32) {
	t.Helper()
	w := min(n, 640)
	p, pixels := cornellScene(t, w, (n+w-1)/w)
	return p, pixels[:2*n]
}

// TestGPUKernelAuto: a device that chooses (KernelAuto, the default)
// loads both kernels, runs a scene's batches on the megakernels until one
// holds two waves of threads, splits that one between the kernels, times
// both and keeps the faster for the rest of the batch and the later ones;
// every pixel gets the bits the megakernels and the wavefront give alone,
// wherever in the batch it lies; a failed probe chooses nothing; another
// scene chooses again, and the first, uploaded again, keeps its choice. On the stub driver (waves of 128 threads) the
// frame is 300 pixels: a probe of 128 on each kernel, and 44 more.
func TestGPUKernelAuto(t *testing.T) {
	t.Setenv(KernelEnv, "auto")
	d := openDevice(t)
	defer d.Close()
	d.parts = 1 // unsplit: the stub's failure counts the probe's launches so
	if d.mods[KernelWavefront] == (cu.Module{}) || d.mods[KernelMegakernel] == (cu.Module{}) {
		t.Fatalf("open: modules %v, want both kernels'", d.mods)
	}
	if c, ok := d.KernelChoice(); ok {
		t.Errorf("a choice before any scene: %v", c)
	}
	ctx := context.Background()
	wave := autoWave(ctx, d)
	if wave <= 0 {
		t.Fatal("the device reports no wave")
	}
	n := 2*wave + 44
	p, pixels := autoScene(t, n)

	// Each kernel alone.
	var want [2][]float32
	var wantCounts [2][]uint64
	for _, k := range []Kernel{KernelWavefront, KernelMegakernel} {
		d.choice = k
		if err := d.Upload(ctx, p); err != nil {
			t.Fatal(err)
		}
		var err error
		if want[k], wantCounts[k], err = trace(ctx, d, pixels); err != nil {
			t.Fatal(err)
		}
		if c, ok := d.KernelChoice(); !ok || c.Set != k || c.Kernel != k || c.Probed {
			t.Errorf("%s set: choice %+v, %v", k, c, ok)
		}
	}
	if !sameBits(want[KernelWavefront], want[KernelMegakernel]) || !equalCounts(wantCounts[KernelWavefront], wantCounts[KernelMegakernel]) {
		t.Fatal("the wavefront's bits or counts differ from the megakernels'")
	}

	d.choice = KernelAuto
	if err := d.Upload(ctx, p); err != nil {
		t.Fatal(err)
	}
	unchosen := func(when string) {
		t.Helper()
		if c, ok := d.KernelChoice(); !ok || c.Set != KernelAuto || c.Probed || c.Kernel != KernelMegakernel || d.chosen {
			t.Errorf("%s: choice %+v, %v; want the megakernels, not probed", when, c, ok)
		}
	}
	unchosen("uploaded")
	check := func(when string, from int, got []float32, counts []uint64) {
		t.Helper()
		m := len(got) / 3
		if !sameBits(got, want[KernelMegakernel][3*from:3*(from+m)]) {
			t.Errorf("%s: bits differ from each kernel's alone", when)
		}
		c := wantCounts[KernelMegakernel]
		if !equalCounts(counts[:m], c[from:from+m]) || !equalCounts(counts[m:], c[n+from:n+from+m]) {
			t.Errorf("%s: ray or non-finite counts differ from each kernel's alone", when)
		}
	}

	// Too small to choose on: the megakernels.
	small := pixels[2*(n-(2*wave-1)):]
	got, counts, err := trace(ctx, d, small)
	if err != nil {
		t.Fatal(err)
	}
	check("a batch of 2 waves less a pixel", n-(2*wave-1), got, counts)
	unchosen("after a batch of 2 waves less a pixel")

	// A failed probe chooses nothing (the stub fails the wavefront's
	// first launch, after the megakernels' part).
	if strings.Contains(d.Name(), "cudastub") {
		t.Setenv("TRACE_CUDASTUB_FAIL", "cuLaunchKernel#2")
		if _, _, err := trace(ctx, d, pixels); err == nil || !strings.Contains(err.Error(), "wf_init") {
			t.Errorf("the wavefront's probe launch failing: error %v, want one naming wf_init", err)
		}
		os.Setenv("TRACE_CUDASTUB_FAIL", "")
		unchosen("after a failed probe")
	}

	// The probe.
	got, counts, err = trace(ctx, d, pixels)
	if err != nil {
		t.Fatal(err)
	}
	check("the probed batch", 0, got, counts)
	c, ok := d.KernelChoice()
	m := ProbePixels(n, wave)
	switch {
	case !ok || !c.Probed || c.Set != KernelAuto || !d.chosen:
		t.Fatalf("after the probe: choice %+v, %v", c, ok)
	case c.Probe.Pixels != m || m != wave:
		t.Errorf("probed %d pixels a kernel (ProbePixels %d), want a wave, %d", c.Probe.Pixels, m, wave)
	case c.Kernel != c.Probe.Faster() || d.useWave != (c.Kernel == KernelWavefront):
		t.Errorf("chose %s (useWave %v), the probe says %s is faster", c.Kernel, d.useWave, c.Probe.Faster())
	}
	var probeRays uint64
	for _, r := range counts[:2*m] {
		probeRays += r
	}
	for _, k := range []Kernel{KernelWavefront, KernelMegakernel} {
		if c.Probe.Rays[k] == 0 || c.Probe.Time[k] <= 0 {
			t.Errorf("%s: %d rays in %v", k, c.Probe.Rays[k], c.Probe.Time[k])
		}
	}
	if sum := c.Probe.Rays[KernelWavefront] + c.Probe.Rays[KernelMegakernel]; sum != probeRays {
		t.Errorf("the probe counted %d rays, its pixels traced %d", sum, probeRays)
	}
	t.Log(c)

	// Later batches keep the choice, a batch of any size.
	for _, part := range [][]uint32{pixels, small} {
		got, counts, err := trace(ctx, d, part)
		if err != nil {
			t.Fatal(err)
		}
		check("a batch after the probe", n-len(part)/2, got, counts)
		if again, _ := d.KernelChoice(); again != c {
			t.Errorf("the choice changed: %+v, was %+v", again, c)
		}
	}

	// Another scene chooses again; the first, uploaded again, keeps its
	// choice (a worker's jobs take turns on a device).
	other, _ := autoScene(t, n)
	if err := d.Upload(ctx, other); err != nil {
		t.Fatal(err)
	}
	unchosen("another scene")
	if err := d.Upload(ctx, p); err != nil {
		t.Fatal(err)
	}
	if again, _ := d.KernelChoice(); again != c || !d.chosen {
		t.Errorf("the first scene uploaded again: choice %+v, was %+v", again, c)
	}
	got, counts, err = trace(ctx, d, pixels)
	if err != nil {
		t.Fatal(err)
	}
	check("the first scene uploaded again", 0, got, counts)
	if again, _ := d.KernelChoice(); again != c {
		t.Errorf("the first scene uploaded again probed again: %+v, was %+v", again, c)
	}

	// A failed upload leaves no scene, and no choice to report.
	if strings.Contains(d.Name(), "cudastub") {
		t.Setenv("TRACE_CUDASTUB_FAIL", "cuMemAlloc")
		err := d.Upload(ctx, p)
		os.Setenv("TRACE_CUDASTUB_FAIL", "")
		if err == nil {
			t.Fatal("Upload with every allocation failing: no error")
		}
		if c, ok := d.KernelChoice(); ok {
			t.Errorf("after a failed upload: choice %v", c)
		}
	}
}

// TestGPUKernelAutoSplit: a batch too small to probe a pixel a thread (2
// waves less a pixel) whose samples the device splits into parts is
// probed half and half (ProbeSplitPixels), each half split, and gets the
// bits and counts of either kernel alone; the line says the samples were
// split. Unsplit (TRACE_GPU_PARTS=1) the same batch chooses nothing.
func TestGPUKernelAutoSplit(t *testing.T) {
	t.Setenv(KernelEnv, "auto")
	d := openDevice(t)
	defer d.Close()
	ctx := context.Background()
	n := 2*autoWave(ctx, d) - 1
	w := min(n, 640)
	p, pixels := cornellSamples(t, w, (n+w-1)/w, 4)
	pixels = pixels[:2*n]

	d.choice, d.parts = KernelMegakernel, 1
	want, wantCounts := uploadTrace(ctx, t, d, p, pixels)
	for _, parts := range []int{1, 0} {
		d.choice, d.parts = KernelAuto, parts
		got, counts := uploadTrace(ctx, t, d, p, pixels)
		if !sameBits(got, want) || !equalCounts(counts, wantCounts) {
			t.Errorf("parts %d: bits or counts differ from the megakernels' alone, unsplit", parts)
		}
		c, ok := d.KernelChoice()
		t.Log(c)
		switch {
		case parts == 1 && (!ok || c.Probed || d.chosen):
			t.Errorf("unsplit: choice %+v; want none on %d pixels", c, n)
		case parts == 0 && (!ok || !c.Probed || !c.Probe.Split || c.Probe.Pixels != n/2/ProbeRun*ProbeRun || !strings.Contains(c.String(), "split into parts")):
			t.Errorf("split: choice %+v (%s); want one probed on half the batch each, split", c, c)
		}
	}
}
