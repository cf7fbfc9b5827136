package emulator

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/internal/radiometry"
	"github.com/tracerender/trace/tracer"
)

// TestDirectLightClosedFormKernel: the kernel's next-event estimation is
// right on its own terms, not only equal to Go's: a diffuse floor under a
// quad, a sphere and a triangle light (max_depth 1), at the origin, 10⁴
// units away and scaled by 10⁻³ and 10³, rendered by the kernel, has the
// mean radiance of the closed form within 2 % and matches the Go tracer
// bit for bit.
func TestDirectLightClosedFormKernel(t *testing.T) {
	const albedo, le, h = 0.5, 4.0, 4.0
	quad := []radiometry.Vec{{-1, h, -1.5}, {1, h, -1.5}, {1, h, 1.5}, {-1, h, 1.5}}
	// Just over the floor, the camera under it: sampled by solid angle.
	closeQuad := []radiometry.Vec{{-1, 0.5, -1.5}, {1, 0.5, -1.5}, {1, 0.5, 1.5}, {-1, 0.5, 1.5}}
	tri := []radiometry.Vec{{-2, h, -1}, {2, h, -1}, {0, h, 2}}
	sphereC, sphereR := radiometry.Vec{0, 3, 0}, 1.0
	up := radiometry.Vec{0, 1, 0}
	for _, light := range []string{"quad", "quad close", "sphere", "triangle"} {
		for _, pl := range []struct {
			name   string
			offset radiometry.Vec
			k      float64
		}{{"origin", radiometry.Vec{}, 1}, {"10⁴ away", radiometry.Vec{1e4, 0, -1e4}, 1}, {"scaled 10⁻³", radiometry.Vec{}, 1e-3}, {"scaled 10³", radiometry.Vec{}, 1e3}} {
			name := light + "/" + pl.name
			t.Run(name, func(t *testing.T) {
				tf := func(p radiometry.Vec) mgl32.Vec3 {
					return mgl32.Vec3{float32(pl.offset[0] + pl.k*p[0]), float32(pl.offset[1] + pl.k*p[1]), float32(pl.offset[2] + pl.k*p[2])}
				}
				d := &tracer.SceneDesc{
					Settings: tracer.Settings{Width: 24, Height: 24, Samples: 64, MaxDepth: 1, Seed: 5},
					// Looking straight down from under the lights.
					Camera: tracer.CameraDesc{Position: tf(radiometry.Vec{0, 1.5, 0}), LookAt: tf(radiometry.Vec{0, 0, 0}), Up: mgl32.Vec3{0, 0, 1}, FOV: 90},
					Materials: []tracer.Material{
						{Kind: tracer.MaterialDiffuse, Color: mgl32.Vec3{albedo, albedo, albedo}, Texture: tracer.NoTexture},
						{Kind: tracer.MaterialEmissive, Color: mgl32.Vec3{1, 1, 1}, Intensity: le, Texture: tracer.NoTexture},
					},
					Planes: []tracer.PlaneDesc{{Point: tf(radiometry.Vec{}), Normal: mgl32.Vec3{0, 1, 0}}},
				}
				var exact func(p radiometry.Vec) float64
				switch light {
				case "quad":
					c := tf(quad[0])
					d.Quads = []tracer.QuadDesc{{Corner: c, Edge1: tf(quad[1]).Sub(c), Edge2: tf(quad[3]).Sub(c), Material: 1}}
					exact = func(p radiometry.Vec) float64 { return radiometry.PolygonFormFactor(p, up, quad) }
				case "quad close":
					c := tf(closeQuad[0])
					d.Quads = []tracer.QuadDesc{{Corner: c, Edge1: tf(closeQuad[1]).Sub(c), Edge2: tf(closeQuad[3]).Sub(c), Material: 1}}
					d.Camera.Position = tf(radiometry.Vec{0, 0.4, 0})
					exact = func(p radiometry.Vec) float64 { return radiometry.PolygonFormFactor(p, up, closeQuad) }
				case "sphere":
					d.Spheres = []tracer.SphereDesc{{Center: tf(sphereC), Radius: float32(pl.k * sphereR), Material: 1}}
					exact = func(p radiometry.Vec) float64 { return radiometry.SphereFormFactor(p, up, sphereC, sphereR) }
				case "triangle":
					d.Triangles = []tracer.TriangleDesc{{Vertices: [3]mgl32.Vec3{tf(tri[0]), tf(tri[1]), tf(tri[2])}, Material: 1}}
					exact = func(p radiometry.Vec) float64 { return radiometry.PolygonFormFactor(p, up, tri) }
				}
				s, err := tracer.Compile(d)
				if err != nil {
					t.Fatal(err)
				}
				checkParity(t, name, s)
				fb, _, _ := emulate(t, s)
				// The closed form at the floor point under each pixel's
				// centre (in unscaled units), averaged like the pixels.
				var got, want float64
				for y := 0; y < 24; y++ {
					for x := 0; x < 24; x++ {
						r := s.Camera.Ray(float32(x)+0.5, float32(y)+0.5, 0, 0)
						o := radiometry.Vec{(float64(r.Origin[0]) - pl.offset[0]) / pl.k, (float64(r.Origin[1]) - pl.offset[1]) / pl.k, (float64(r.Origin[2]) - pl.offset[2]) / pl.k}
						tt := -o[1] / float64(r.Dir[1])
						p := radiometry.Vec{o[0] + tt*float64(r.Dir[0]), 0, o[2] + tt*float64(r.Dir[2])}
						want += albedo * le * exact(p)
						got += float64(fb.At(x, y)[0])
					}
				}
				if math.Abs(got/want-1) > 0.02 {
					t.Errorf("kernel's mean floor radiance %.5g, closed form %.5g (%+.2f %%, want within 2 %%)", got/576, want/576, 100*(got/want-1))
				}
				t.Logf("kernel %.5g, closed form %.5g (%+.3f %%)", got/576, want/576, 100*(got/want-1))
			})
		}
	}
}
