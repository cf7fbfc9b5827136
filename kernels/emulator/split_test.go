package emulator

import (
	"context"
	"fmt"
	"image"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/tracer"
)

// TestSplitBatches: a batch whose pixels' samples are split into parts
// (Device.Parts, trace.cu) gives every pixel the Go tracer's bits and its
// own ray and non-finite counts, on the wavefront and on the megakernel
// (its threads fewer than the items, then trace_reduce), whatever the
// parts: none, 2, 3 of 5 samples (uneven runs), as many as the samples,
// more (empty parts), and the default (to DefaultItems); with lanes of
// uneven size; in scenes of both integrators, one with non-finite samples
// (black, counted where they fell).
func TestSplitBatches(t *testing.T) {
	type sceneCase struct {
		name string
		s    *tracer.Scene
	}
	var cases []sceneCase
	for _, name := range []string{"cornell-box", "whitted", "pbr"} {
		d, err := scenes.Load("../../scenes/examples/" + name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		d.Settings.Width, d.Settings.Height, d.Settings.Samples = 17, 13, 5
		s, err := tracer.Compile(d)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, sceneCase{name, s})
	}
	for _, integ := range []tracer.Integrator{tracer.IntegratorPath, tracer.IntegratorWhitted} {
		d := randomScene(4, integ)
		d.Settings.Samples = 5
		d.Lights = append(d.Lights, tracer.PointLight{Position: mgl32.Vec3{0, 5, -3}, Color: mgl32.Vec3{1, 1, 1},
			Intensity: float32(math.Inf(1))})
		s, err := tracer.Compile(d)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, sceneCase{fmt.Sprintf("non-finite-%d", integ), s})
	}
	for _, c := range cases {
		s := c.s
		w, h := s.Settings.Width, s.Settings.Height
		want := make([]float32, 3*w*h)
		var all tracer.Stats
		if err := s.RenderBlock(context.Background(), image.Rect(0, 0, w, h), want, &all); err != nil {
			t.Fatal(err)
		}
		wantRays, wantNonFinite := make([]uint64, w*h), make([]uint64, w*h)
		for i := range wantRays {
			var st tracer.Stats
			s.RenderPixel(i%w, i/w, &st)
			wantRays[i], wantNonFinite[i] = st.Rays, st.NonFinite
		}
		if c.name[:3] == "non" && all.NonFinite == 0 {
			t.Fatalf("%s: no non-finite samples: the scene no longer tests them", c.name)
		}
		p, err := kernels.Pack(s)
		if err != nil {
			t.Fatal(err)
		}
		pixels := kernels.AppendPixels(nil, image.Rect(0, 0, w, h))
		for _, k := range []kernels.Kernel{kernels.KernelWavefront, kernels.KernelMegakernel} {
			for _, parts := range []int{-1, 2, 3, 5, 7, 0} {
				t.Run(fmt.Sprintf("%s/%v/parts%d", c.name, k, parts), func(t *testing.T) {
					t.Parallel()
					d := &Device{Kernel: k, Parts: parts, BlockDim: 8, Workers: 2, Threads: 37}
					if parts == 3 {
						d.split = func(n int) []int { return []int{n - 50, 50} }
					}
					if got := d.parts(w*h, s.Settings.Samples); parts != 0 && got != max(parts, 1) || parts == 0 && got != 5 {
						t.Fatalf("parts %d: the batch in %d parts", parts, got)
					}
					out, rays, nonfinite := traceWith(t, d, p, pixels)
					if differ, _ := compare(out, want); differ > 0 {
						t.Errorf("%d of %d values differ from the Go tracer's", differ, len(want))
					}
					for i := range rays {
						if rays[i] != wantRays[i] || nonfinite[i] != wantNonFinite[i] {
							t.Fatalf("pixel %d: %d rays and %d non-finite samples, Go %d and %d",
								i, rays[i], nonfinite[i], wantRays[i], wantNonFinite[i])
						}
					}
				})
			}
		}
	}
}
