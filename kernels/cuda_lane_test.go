//go:build cuda

package kernels

import (
	"context"
	"errors"
	"image"
	"math"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/tracer"
	"gorgonia.org/cu"
)

// The lanes' error paths: failures on the stub driver's demand
// (kernels/cudastub: TRACE_CUDASTUB_FAIL), checked with its counts of
// what is live (a GPU's driver fails only when it must, so on a GPU
// those tests skip), and cancellations and TRACE_GPU_LANES, on any
// device.

// The stub driver's private attributes: what is not yet freed.
const (
	stubLiveDeviceAllocs cu.DeviceAttribute = 0x7fff0000 + iota
	stubLiveHostAllocs
	stubLiveStreams
	stubLiveEvents
	stubLiveModules
)

// stubLive are the stub driver's counts of live device allocations,
// page-locked allocations, streams, events and modules.
type stubLive struct{ device, host, streams, events, modules int }

// openDevice opens the first device, skipping where there is none
// (TRACE_GPU_REQUIRED makes that a failure).
func openDevice(t *testing.T) *cudaDevice {
	t.Helper()
	devs, err := OpenDevices(1)
	if err != nil {
		if errors.Is(err, ErrTooFewDevices) && os.Getenv("TRACE_GPU_REQUIRED") == "" {
			t.Skipf("no device: %v", err)
		}
		t.Fatal(err)
	}
	return devs[0].(*cudaDevice)
}

// openStub opens the stub driver's emulated device, skipping where the
// device is a GPU or there is none.
func openStub(t *testing.T) *cudaDevice {
	t.Helper()
	d := openDevice(t)
	if !strings.Contains(d.Name(), "cudastub") {
		d.Close()
		t.Skipf("%s: failures on demand need the stub driver", d.Name())
	}
	return d
}

// live asks the stub driver, on d's goroutine, what is live.
func live(t *testing.T, d *cudaDevice) stubLive {
	t.Helper()
	var l stubLive
	err := d.do(context.Background(), func() error {
		for _, q := range []struct {
			attr cu.DeviceAttribute
			n    *int
		}{{stubLiveDeviceAllocs, &l.device}, {stubLiveHostAllocs, &l.host}, {stubLiveStreams, &l.streams}, {stubLiveEvents, &l.events}, {stubLiveModules, &l.modules}} {
			v, err := d.dev.Attribute(q.attr)
			if err != nil {
				return err
			}
			*q.n = v
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// laneScene is a small Cornell box of 20×15 pixels, 2 samples: a batch
// that LaneSizes splits into 256 and 44 pixels at 128 threads a block.
func laneScene(t *testing.T) (*Packed, []uint32) {
	t.Helper()
	return cornellScene(t, 20, 15)
}

// cornellScene is the Cornell box at w×h, 2 samples a pixel, packed, and
// its pixels in rows.
func cornellScene(t *testing.T, w, h int) (*Packed, []uint32) {
	t.Helper()
	return cornellSamples(t, w, h, 2)
}

// cornellSamples is cornellScene at samples samples a pixel.
func cornellSamples(t *testing.T, w, h, samples int) (*Packed, []uint32) {
	t.Helper()
	desc, err := scenes.Load("../scenes/examples/cornell-box.json")
	if err != nil {
		t.Fatal(err)
	}
	desc.Settings.Width, desc.Settings.Height, desc.Settings.Samples = w, h, samples
	s, err := tracer.Compile(desc)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Pack(s)
	if err != nil {
		t.Fatal(err)
	}
	return p, AppendPixels(nil, image.Rect(0, 0, w, h))
}

// uploadTrace uploads p to d and renders pixels on it, failing t on an
// error.
func uploadTrace(ctx context.Context, t *testing.T, d Device, p *Packed, pixels []uint32) ([]float32, []uint64) {
	t.Helper()
	if err := d.Upload(ctx, p); err != nil {
		t.Fatal(err)
	}
	got, counts, err := trace(ctx, d, pixels)
	if err != nil {
		t.Fatal(err)
	}
	return got, counts
}

// trace renders pixels on d.
func trace(ctx context.Context, d Device, pixels []uint32) ([]float32, []uint64, error) {
	n := len(pixels) / 2
	out, counts := make([]float32, 3*n), make([]uint64, 2*n)
	err := d.TracePixels(ctx, pixels, out, counts[:n], counts[n:])
	return out, counts, err
}

func sameBits(a, b []float32) bool {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}

// TestGPULaneFailures: a failing allocation, copy, launch or
// synchronisation on either lane fails the batch with an error that says
// which lane and what; what the failed call had allocated is freed, the
// device renders the next batch right, and Close frees everything. The
// batches are unsplit (the launches counted are so), but for the cases
// marked split, whose batch of 300 pixels the stub's device splits in
// its 2 samples' parts (trace_reduce after each lane's megakernel).
func TestGPULaneFailures(t *testing.T) {
	p, pixels := laneScene(t)
	ctx := context.Background()
	var want []float32
	var wantCounts []uint64
	for _, c := range []struct {
		fail       string
		megakernel bool
		want       []string // in the error
		lane1Freed bool     // lane 1 holds no buffers after the failure
		split      bool     // the batch split into parts (TRACE_GPU_PARTS auto)
	}{
		{"cuMemHostAlloc#2", false, []string{"lane 1 of 2", "page-locked", "OutOfMemory"}, true, false},
		{"cuMemHostAlloc#1", true, []string{"lane 0 of 2", "page-locked"}, true, false},
		{"cuMemAlloc#8", false, []string{"lane 1 of 2", "device buffers", "OutOfMemory"}, true, false},
		{"cuMemcpyHtoDAsync#2", false, []string{"lane 1 of 2", "copying the pixel list in"}, false, false},
		{"cuLaunchKernel#3", false, []string{"lane 1 of 2", "launching wf_init"}, false, false},
		{"cuLaunchKernel#5", false, []string{"lane 0 of 2", "launching wf_"}, false, false},
		{"cuStreamSynchronize#2", false, []string{"lane 1 of 2"}, false, false},
		{"cuMemcpyDtoHAsync#4", true, []string{"lane 1 of 2", "copying the radiance out"}, false, false},
		{"cuLaunchKernel#2", true, []string{"lane 1 of 2", "launching trace_pixels_path"}, false, false},
		{"cuStreamSynchronize#1", true, []string{"lane 0 of 2", "running trace_pixels_path"}, false, false},
		{"cuLaunchKernel#2", true, []string{"lane 0 of 2", "launching trace_reduce"}, false, true},
		{"cuLaunchKernel#4", true, []string{"lane 1 of 2", "launching trace_reduce"}, false, true},
		{"cuMemAlloc#2", true, []string{"lane 0 of 2", "device buffers", "OutOfMemory"}, true, true},
		{"cuLaunchKernel#3", false, []string{"lane 1 of 2", "launching wf_init"}, false, true},
	} {
		name := c.fail
		if c.megakernel {
			name += " megakernel"
		}
		if c.split {
			name += " split"
		}
		t.Run(name, func(t *testing.T) {
			d := openStub(t)
			base := live(t, d)
			defer func() {
				d.Close()
				// A fresh device shows what is left of this one.
				e := openStub(t)
				defer e.Close()
				if now := live(t, e); now != base {
					t.Errorf("after Close: live %+v, before the device opened %+v", now, base)
				}
			}()
			d.choice = KernelWavefront // whatever TRACE_GPU_KERNEL says
			if c.megakernel {
				d.choice = KernelMegakernel
			}
			d.parts = 1 // whatever TRACE_GPU_PARTS says
			if c.split {
				d.parts = 0
			}
			if err := d.Upload(ctx, p); err != nil {
				t.Fatal(err)
			}
			if want == nil {
				var err error
				if want, wantCounts, err = trace(ctx, d, pixels); err != nil {
					t.Fatal(err)
				}
				d.do(ctx, func() error { // fresh buffers for the failure
					for i := range d.lanes {
						d.lanes[i].free()
					}
					return nil
				})
			}
			t.Setenv("TRACE_CUDASTUB_FAIL", c.fail)
			_, _, err := trace(ctx, d, pixels)
			os.Setenv("TRACE_CUDASTUB_FAIL", "")
			if err == nil {
				t.Fatalf("%s: no error", c.fail)
			}
			for _, s := range c.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%s: error %q, want one with %q", c.fail, err, s)
				}
			}
			t.Log(err)
			if c.lane1Freed {
				var cap1 int
				var host1 unsafe.Pointer
				d.do(ctx, func() error { cap1, host1 = d.lanes[1].cap, d.lanes[1].host; return nil })
				if cap1 != 0 || host1 != nil {
					t.Errorf("%s: lane 1 holds buffers for %d pixels after the failure", c.fail, cap1)
				}
			}
			got, counts, err := trace(ctx, d, pixels)
			if err != nil {
				t.Fatalf("the batch after the failure: %v", err)
			}
			if !sameBits(got, want) || !equalCounts(counts, wantCounts) {
				t.Errorf("the batch after the failure differs from one without")
			}
		})
	}
}

func equalCounts(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGPULaneStreamFailure: a device whose second stream cannot be made
// fails to open, saying so, with its first stream destroyed.
func TestGPULaneStreamFailure(t *testing.T) {
	d := openStub(t)
	base := live(t, d)
	d.Close()
	t.Setenv("TRACE_CUDASTUB_FAIL", "cuStreamCreate#2")
	devs, err := OpenDevices(1)
	os.Setenv("TRACE_CUDASTUB_FAIL", "")
	if err == nil {
		devs[0].Close()
		t.Fatal("a device opened without its second stream")
	}
	if !strings.Contains(err.Error(), "creating stream 2 of 2") || !strings.Contains(err.Error(), "OutOfMemory") {
		t.Errorf("error %q, want one naming stream 2 of 2", err)
	}
	d = openStub(t)
	defer d.Close()
	if now := live(t, d); now != base {
		t.Errorf("after the failed open: live %+v, want %+v", now, base)
	}
}

// TestGPUOneLane: a device on one lane (TRACE_GPU_LANES=1) renders the
// bits of two, and an unknown TRACE_GPU_LANES fails OpenDevices naming
// the variable. It runs on a GPU too, on the megakernels (a device that
// chooses would split the batch into parts of a lane each).
func TestGPUOneLane(t *testing.T) {
	t.Setenv(KernelEnv, KernelMegakernel.String())
	p, pixels := laneScene(t)
	ctx := context.Background()
	var want []float32
	for _, lanes := range []string{"2", "1"} {
		wantUsed := map[string]int{"2": 2, "1": 1}[lanes]
		t.Setenv(LanesEnv, lanes)
		d := openDevice(t)
		if err := d.Upload(ctx, p); err != nil {
			t.Fatal(err)
		}
		got, _, err := trace(ctx, d, pixels)
		var used int
		d.do(ctx, func() error {
			for i := range d.lanes {
				if d.lanes[i].cap > 0 {
					used++
				}
			}
			return nil
		})
		d.Close()
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = got
		} else if !sameBits(got, want) {
			t.Errorf("%s=%s: the bits differ from two lanes'", LanesEnv, lanes)
		}
		if used != wantUsed {
			t.Errorf("%s=%s: %d lanes hold buffers, want %d", LanesEnv, lanes, used, wantUsed)
		}
	}
	t.Setenv(LanesEnv, "3")
	devs, err := OpenDevices(1)
	for _, d := range devs {
		d.Close()
	}
	if err == nil || !strings.Contains(err.Error(), LanesEnv) {
		t.Errorf("%s=3: error %v, want one naming %s", LanesEnv, err, LanesEnv)
	}
}

// countdownCtx is a context whose Err turns context.Canceled at its
// n-th call: a cancellation at a known point of a batch.
type countdownCtx struct {
	context.Context
	n atomic.Int64
}

func (c *countdownCtx) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func (c *countdownCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

// TestGPULaneCancel: a context cancelled during a batch, at any of its
// first rounds, stops both lanes with context.Canceled, and the device
// then renders the next batch right.
func TestGPULaneCancel(t *testing.T) {
	d := openDevice(t)
	defer d.Close()
	d.choice = KernelWavefront // whatever TRACE_GPU_KERNEL says
	p, pixels := laneScene(t)
	ctx := context.Background()
	if err := d.Upload(ctx, p); err != nil {
		t.Fatal(err)
	}
	want, wantCounts, err := trace(ctx, d, pixels)
	if err != nil {
		t.Fatal(err)
	}
	for n := int64(0); n < 6; n++ {
		c := &countdownCtx{Context: ctx}
		c.n.Store(n)
		if _, _, err := trace(c, d, pixels); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled after %d checks: error %v, want context.Canceled", n, err)
		}
		got, counts, err := trace(ctx, d, pixels)
		if err != nil || !sameBits(got, want) || !equalCounts(counts, wantCounts) {
			t.Errorf("the batch after one cancelled after %d checks: %v, or different bits", n, err)
		}
	}
}
