package emulator

import (
	"context"
	"image"
	"testing"

	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/tracer"
)

// TestMegakernelStop: with the header's Stop word set, a megakernel
// thread starts no sample (stop_asked, trace.cu), on either integrator:
// no ray is traced. With it clear, the same pixels trace rays (the
// parity tests check their bits). The cuda device sets the word during a
// launch to cancel it (kernels/cuda_stop_test.go).
func TestMegakernelStop(t *testing.T) {
	for _, name := range []string{"cornell-box", "whitted"} {
		desc, err := scenes.Load("../../scenes/examples/" + name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		desc.Settings.Width, desc.Settings.Height, desc.Settings.Samples = 16, 8, 4
		s, err := tracer.Compile(desc)
		if err != nil {
			t.Fatal(err)
		}
		for _, stop := range []uint32{0, 1} {
			p, err := kernels.Pack(s)
			if err != nil {
				t.Fatal(err)
			}
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
			err = d.TracePixels(ctx, pixels, out, rays, nonfinite)
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
