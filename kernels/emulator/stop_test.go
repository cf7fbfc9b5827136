package emulator

import (
	"context"
	"image"
	"math"
	"strings"
	"testing"

	"github.com/tracerender/trace/kernels"
)

// TestMegakernelStop: with the header's Stop word set, a megakernel
// thread starts no sample (stop_asked, trace.cu), on either integrator:
// no ray is traced. With it clear, the same pixels trace rays (the
// parity tests check their bits). The cuda device sets the word during a
// launch to cancel it (kernels/cuda_stop_test.go).
func TestMegakernelStop(t *testing.T) {
	for _, name := range []string{"cornell-box", "whitted"} {
		for _, stop := range []uint32{0, 1} {
			_, p := packScene(t, "../../scenes/examples/"+name+".json", 16, 8, 4)
			if p.Scene.Stop != 0 {
				t.Fatalf("%s: Pack set Stop to %d", name, p.Scene.Stop)
			}
			p.Scene.Stop = stop
			d := New()
			d.Kernel = kernels.KernelMegakernel
			ctx := context.Background()
			if err := d.Upload(ctx, p); err != nil {
				t.Fatal(err)
			}
			pixels := kernels.AppendPixels(nil, image.Rect(0, 0, 16, 8))
			out, rays, nonfinite := make([]float32, 3*128), make([]uint64, 128), make([]uint64, 128)
			err := d.TracePixels(ctx, pixels, out, rays, nonfinite)
			d.Close()
			if err != nil {
				t.Fatal(err)
			}
			traced := 0
			for _, r := range rays {
				if r > 0 {
					traced++
				}
			}
			switch {
			case stop != 0 && traced != 0:
				t.Errorf("%s, Stop set: %d of 128 pixels traced rays, want none", name, traced)
			case stop == 0 && traced != 128:
				t.Errorf("%s, Stop clear: %d of 128 pixels traced rays, want all", name, traced)
			}
		}
	}
}

// TestMegakernelThreads: a megakernel launch of any number of threads,
// one for the batch or one a pixel, renders every pixel with the same
// bits and counts: a thread takes the batch's next pixel when its own
// ends (trace.cu), and each pixel is one thread's.
func TestMegakernelThreads(t *testing.T) {
	for _, name := range []string{"cornell-box", "whitted"} {
		_, p := packScene(t, "../../scenes/examples/"+name+".json", 24, 10, 3)
		pixels := kernels.AppendPixels(nil, image.Rect(0, 0, 24, 10))
		var want []float32
		var wantRays []uint64
		for _, threads := range []int{-1, 1, 7, 64, 0, 240, 1000} {
			d := New()
			d.Kernel, d.Threads = kernels.KernelMegakernel, threads
			ctx := context.Background()
			if err := d.Upload(ctx, p); err != nil {
				t.Fatal(err)
			}
			out, rays, nonfinite := make([]float32, 3*240), make([]uint64, 240), make([]uint64, 240)
			err := d.TracePixels(ctx, pixels, out, rays, nonfinite)
			d.Close()
			if err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want, wantRays = out, rays
				continue
			}
			for i := range out {
				if math.Float32bits(out[i]) != math.Float32bits(want[i]) || rays[i/3] != wantRays[i/3] {
					t.Errorf("%s, %d threads: pixel %d differs from a thread a pixel's", name, threads, i/3)
					break
				}
			}
		}
		for i, r := range wantRays {
			if r == 0 {
				t.Errorf("%s: pixel %d traced no ray", name, i)
				break
			}
		}
	}
}

// TestKernelAutoRefused: the emulator runs the kernel it is told;
// KernelAuto, a cuda device's choice, fails with an error that says so,
// and writes no pixel.
func TestKernelAutoRefused(t *testing.T) {
	_, p := packScene(t, "../../scenes/examples/cornell-box.json", 4, 2, 1)
	d := New()
	defer d.Close()
	d.Kernel = kernels.KernelAuto
	ctx := context.Background()
	if err := d.Upload(ctx, p); err != nil {
		t.Fatal(err)
	}
	pixels := kernels.AppendPixels(nil, image.Rect(0, 0, 4, 2))
	out, rays, nonfinite := make([]float32, 3*8), make([]uint64, 8), make([]uint64, 8)
	err := d.TracePixels(ctx, pixels, out, rays, nonfinite)
	if err == nil || !strings.Contains(err.Error(), "does not choose") {
		t.Fatalf("KernelAuto: error %v, want one saying the emulator does not choose", err)
	}
	for i, r := range rays {
		if r != 0 || out[3*i] != 0 {
			t.Fatalf("pixel %d written after the refusal", i)
		}
	}
}
