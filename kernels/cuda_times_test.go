//go:build cuda

package kernels

import (
	"context"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestGPUTimes: with TRACE_GPU_TIMES=1 a device counts its batches and
// times every launch by entry, on one lane and two, on the wavefront
// and the megakernel, with batches unsplit and split into parts (the 300
// pixels' 2 samples in 2 parts on any device: trace_reduce after the
// megakernels, the items counted); the bits are those of a device that
// does not time and does not split; the times outlive Close, whose device
// leaves no event behind. It runs on a GPU too.
func TestGPUTimes(t *testing.T) {
	p, pixels := laneScene(t)
	n := len(pixels) / 2
	ctx := context.Background()
	const batches = 2
	for _, name := range cudaKernels {
		if !slices.Contains(TimedEntries, name) {
			t.Errorf("TimedEntries %v lacks the megakernel %s", TimedEntries, name)
		}
	}
	for _, kernel := range []Kernel{KernelWavefront, KernelMegakernel} {
		for _, c := range []struct{ lanes, parts int }{{1, 1}, {2, 1}, {1, 0}, {2, 0}} {
			lanes := c.lanes
			name := kernel.String() + map[int]string{1: " one lane", 2: " two lanes"}[lanes] + map[int]string{0: " split", 1: ""}[c.parts]
			t.Run(name, func(t *testing.T) {
				t.Setenv(LanesEnv, map[int]string{1: "1", 2: "2"}[lanes])
				t.Setenv(TimesEnv, "")
				plain := openDevice(t)
				var base stubLive
				stub := strings.Contains(plain.Name(), "cudastub")
				if stub {
					base = live(t, plain)
				}
				plain.choice, plain.parts = kernel, 1
				if err := plain.Upload(ctx, p); err != nil {
					plain.Close()
					t.Fatal(err)
				}
				want, wantCounts, err := trace(ctx, plain, pixels)
				if _, timed := plain.Times(); timed {
					t.Errorf("%s unset: the device times its launches", TimesEnv)
				}
				plain.Close()
				if err != nil {
					t.Fatal(err)
				}

				t.Setenv(TimesEnv, "1")
				d := openDevice(t)
				d.choice, d.parts = kernel, c.parts
				if err := d.Upload(ctx, p); err != nil {
					d.Close()
					t.Fatal(err)
				}
				for range batches {
					got, counts, err := trace(ctx, d, pixels)
					if err != nil {
						d.Close()
						t.Fatal(err)
					}
					if !sameBits(got, want) || !equalCounts(counts, wantCounts) {
						t.Errorf("the timed batch's bits differ from the untimed one's")
					}
				}
				before, ok := d.Times()
				d.Close()
				after, _ := d.Times()
				if !ok {
					t.Fatalf("%s=1: Times reports no timing", TimesEnv)
				}
				if after.String() != before.String() {
					t.Errorf("the times changed at Close:\n%s\n%s", before, after)
				}
				if stub {
					e := openStub(t)
					now := live(t, e)
					e.Close()
					if now != base {
						t.Errorf("after Close: live %+v, before the device opened %+v", now, base)
					}
				}
				items := n
				if c.parts == 0 {
					items = 2 * n // the scene's 2 samples in 2 parts
				}
				checkTimes(t, before, d.Name(), kernel, lanes, batches, n, items)
			})
		}
	}
	t.Setenv(TimesEnv, "yes")
	devs, err := OpenDevices(1)
	for _, d := range devs {
		d.Close()
	}
	if err == nil || !strings.Contains(err.Error(), TimesEnv) {
		t.Errorf("%s=yes: error %v, want one naming %s", TimesEnv, err, TimesEnv)
	}
}

// checkTimes checks the times of batches of n pixels each, rendered as
// items items each (more when split into parts), on a device named name:
// the batches counted, the launches of each entry the host loop makes,
// and times that add up.
func checkTimes(t *testing.T, got Times, name string, kernel Kernel, lanes, batches, n, items int) {
	t.Helper()
	t.Log(got)
	if got.Device != name || got.Lanes != lanes || got.Batches != batches || got.Pixels != int64(batches*n) || got.Items != int64(batches*items) {
		t.Errorf("times of %q, %d lanes, %d batches, %d pixels, %d items; want %q, %d, %d, %d, %d",
			got.Device, got.Lanes, got.Batches, got.Pixels, got.Items, name, lanes, batches, batches*n, batches*items)
	}
	if split := strings.Contains(got.String(), "split into parts"); split != (items > n) {
		t.Errorf("String() = %q: says split %v, want %v", got, split, items > n)
	}
	launches := map[string]int{}
	for _, e := range got.Entries {
		launches[e.Entry] = e.Launches
		if e.Launches <= 0 || e.GPU <= 0 {
			t.Errorf("%s: %d launches in %v", e.Entry, e.Launches, e.GPU)
		}
	}
	starts := lanes * batches // a batch's parts: each starts and finishes once
	if kernel == KernelMegakernel {
		want := map[string]int{"trace_pixels_path": starts}
		if items > n {
			want["trace_reduce"] = starts // after each lane's megakernel
		}
		if !maps.Equal(launches, want) {
			t.Errorf("launches %v, want %v", launches, want)
		}
	} else {
		init, shade, closest, any, finish := launches["wf_init"], launches["wf_shade"], launches["wf_intersect"], launches["wf_occluded"], launches["wf_finish"]
		// Every round but a part's last asks a query, answered by one or
		// two launches; the Cornell box asks both kinds.
		asked := shade - starts
		if init != starts || finish != starts || len(launches) != 5 ||
			closest < 1 || any < 1 || asked < max(closest, any) || asked > closest+any {
			t.Errorf("launches %v: want wf_init and wf_finish %d times, and a wf_intersect or wf_occluded (both asked) for each wf_shade but a part's last",
				launches, starts)
		}
	}
	if got.Wall <= 0 || lanes == 1 && got.GPU() > got.Wall {
		t.Errorf("kernels %v in batches of %v on %d lanes", got.GPU(), got.Wall, lanes)
	}
	if s := got.String(); !strings.Contains(s, name) || !strings.Contains(s, "kernels ") {
		t.Errorf("String() = %q", s)
	}
}

// TestGPUTimesFailure: an event that cannot be recorded fails the batch,
// saying it was the timing's; the next batch renders and is counted, the
// failed one and its launches that ran are not, and Close frees every
// event.
func TestGPUTimesFailure(t *testing.T) {
	p, pixels := laneScene(t)
	ctx := context.Background()
	t.Setenv(TimesEnv, "1")
	d := openStub(t)
	base := live(t, d)
	d.Close()
	d = openStub(t)
	d.choice, d.parts = KernelWavefront, 1 // whatever TRACE_GPU_KERNEL and TRACE_GPU_PARTS say
	if err := d.Upload(ctx, p); err != nil {
		d.Close()
		t.Fatal(err)
	}
	t.Setenv("TRACE_CUDASTUB_FAIL", "cuEventRecord#6")
	_, _, err := trace(ctx, d, pixels)
	os.Setenv("TRACE_CUDASTUB_FAIL", "")
	if err == nil || !strings.Contains(err.Error(), TimesEnv+": recording a CUDA event") {
		t.Errorf("error %v, want one from recording an event", err)
	}
	if _, _, err := trace(ctx, d, pixels); err != nil {
		t.Errorf("the batch after the failure: %v", err)
	}
	got, _ := d.Times()
	d.Close()
	checkTimes(t, got, d.Name(), KernelWavefront, DefaultLanes, 1, len(pixels)/2, len(pixels)/2)
	e := openStub(t)
	defer e.Close()
	if now := live(t, e); now != base {
		t.Errorf("after Close: live %+v, before the device opened %+v", now, base)
	}
}
