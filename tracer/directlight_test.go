package tracer

import (
	"math"
	"testing"

	"github.com/tracerender/trace/internal/radiometry"
)

// Closed-form tests of next-event estimation and multiple importance
// sampling: the light a diffuse floor reflects straight from an emitter
// (max_depth 1) against the exact answer, for a rectangle (quad), a sphere
// and a triangle mesh, each near the origin, moved 10⁴ units away, and
// scaled by 10⁻³ and 10³ (radiance does not depend on scale).

// closedFormAlbedo is the floor's albedo, closedFormLe the emitters'
// radiance.
const (
	closedFormAlbedo = 0.5
	closedFormLe     = 4.0
)

// closedFormCase is one emitter over the floor y = 0, in unscaled units:
// the floor points it lights are x, z in [-extent, extent].
type closedFormCase struct {
	name   string
	extent float64
	eye    float64 // height of the rays' origins over the floor; 0 is 1.5
	// add puts the emitter (material 1) into d; exact returns the floor's
	// radiance at (x, 0, z).
	add   func(d *SceneDesc, tf func(radiometry.Vec) vec3, k float32)
	exact func(x, z float64) float64
}

func closedFormCases() []closedFormCase {
	const h = 4 // height of the lights over the floor
	quad := []radiometry.Vec{{-1, h, -1.5}, {1, h, -1.5}, {1, h, 1.5}, {-1, h, 1.5}}
	var hexagon []radiometry.Vec
	for i := 0; i < 6; i++ {
		a := float64(i) * math.Pi / 3
		hexagon = append(hexagon, radiometry.Vec{1.5 * math.Cos(a), h - 0.5, 1.5 * math.Sin(a)})
	}
	const sphereR, sphereY = 1.0, 3.0
	// A quad just over the floor: sampled by solid angle under it, by area
	// far from it (spherical.go).
	const hc = 0.5
	closeQuad := []radiometry.Vec{{-1, hc, -1.5}, {1, hc, -1.5}, {1, hc, 1.5}, {-1, hc, 1.5}}
	// quadCase is a quad light (corners in order) over the floor.
	quadCase := func(name string, extent, eye float64, poly []radiometry.Vec) closedFormCase {
		return closedFormCase{
			name: name, extent: extent, eye: eye,
			add: func(d *SceneDesc, tf func(radiometry.Vec) vec3, k float32) {
				c := tf(poly[0])
				d.Quads = append(d.Quads, QuadDesc{Corner: c, Edge1: tf(poly[1]).Sub(c), Edge2: tf(poly[3]).Sub(c), Material: 1})
			},
			exact: func(x, z float64) float64 {
				return closedFormAlbedo * closedFormLe * radiometry.PolygonFormFactor(radiometry.Vec{x, 0, z}, radiometry.Vec{0, 1, 0}, poly)
			},
		}
	}
	return []closedFormCase{
		quadCase("quad close", 3, 0.4, closeQuad),
		quadCase("quad", 5, 0, quad),
		{
			name: "sphere", extent: 5,
			add: func(d *SceneDesc, tf func(radiometry.Vec) vec3, k float32) {
				d.Spheres = append(d.Spheres, SphereDesc{Center: tf(radiometry.Vec{0, sphereY, 0}), Radius: sphereR * k, Material: 1})
			},
			// A sphere above the horizon acts as a point source of its
			// projected area: Lo = ρ·Le·(R/d)²·cos θ.
			exact: func(x, z float64) float64 {
				return closedFormAlbedo * closedFormLe * radiometry.SphereFormFactor(radiometry.Vec{x, 0, z}, radiometry.Vec{0, 1, 0}, radiometry.Vec{0, sphereY, 0}, sphereR)
			},
		},
		{
			name: "triangle mesh", extent: 5,
			add: func(d *SceneDesc, tf func(radiometry.Vec) vec3, k float32) {
				m := MeshDesc{Material: 1, Positions: []vec3{tf(radiometry.Vec{0, h - 0.5, 0})}}
				for i, v := range hexagon {
					m.Positions = append(m.Positions, tf(v))
					// Facing down and up in turn: emitters are two-sided.
					a, b := uint32(1+i), uint32(1+(i+1)%6)
					if i%2 == 0 {
						a, b = b, a
					}
					m.Indices = append(m.Indices, 0, a, b)
				}
				d.Meshes = append(d.Meshes, m)
			},
			exact: func(x, z float64) float64 {
				return closedFormAlbedo * closedFormLe * radiometry.PolygonFormFactor(radiometry.Vec{x, 0, z}, radiometry.Vec{0, 1, 0}, hexagon)
			},
		},
	}
}

// closedFormPlacements are the ways the scene is moved and scaled: a
// point p becomes offset + k·p.
var closedFormPlacements = []struct {
	name   string
	offset [3]float64
	k      float64
}{
	{"at the origin", [3]float64{}, 1},
	{"10⁴ away", [3]float64{1e4, 0, -1e4}, 1},
	{"scaled 10⁻³", [3]float64{}, 1e-3},
	{"scaled 10³", [3]float64{}, 1e3},
}

// closedFormScene builds the scene of case c under a placement.
func closedFormScene(t testing.TB, c closedFormCase, offset [3]float64, k float64, samples int) *Scene {
	tf := func(p radiometry.Vec) vec3 {
		return vec3{float32(offset[0] + k*p[0]), float32(offset[1] + k*p[1]), float32(offset[2] + k*p[2])}
	}
	d := &SceneDesc{
		Settings: Settings{Width: 16, Height: 16, Samples: samples, MaxDepth: 1, Seed: 3},
		Camera:   CameraDesc{Position: tf(radiometry.Vec{0, 2, -0.5}), LookAt: tf(radiometry.Vec{0, 0, 0}), FOV: 100},
		Materials: []Material{
			{Kind: MaterialDiffuse, Color: vec3{closedFormAlbedo, closedFormAlbedo, closedFormAlbedo}, Texture: NoTexture},
			{Kind: MaterialEmissive, Color: vec3{1, 1, 1}, Intensity: closedFormLe, Texture: NoTexture},
		},
		Planes: []PlaneDesc{{Point: tf(radiometry.Vec{}), Normal: vec3{0, 1, 0}}},
	}
	c.add(d, tf, float32(k))
	return compileTest(t, d)
}

// TestDirectLightClosedForm renders, for each emitter and placement, a grid
// of floor points seen from above and compares each with the exact answer:
// the mean over the lit floor within 2 %, and every 4×4 block of points
// within four standard errors (plus 1 % for float32 geometry).
func TestDirectLightClosedForm(t *testing.T) {
	const grid, samples = 16, 256
	for _, c := range closedFormCases() {
		for _, pl := range closedFormPlacements {
			t.Run(c.name+"/"+pl.name, func(t *testing.T) {
				s := closedFormScene(t, c, pl.offset, pl.k, samples)
				var est, exact [grid][grid]float64
				var varMean [grid][grid]float64
				var st Stats
				for j := 0; j < grid; j++ {
					for i := 0; i < grid; i++ {
						x := c.extent * (2*(float64(i)+0.5)/grid - 1)
						z := c.extent * (2*(float64(j)+0.5)/grid - 1)
						eye := c.eye
						if eye == 0 {
							eye = 1.5
						}
						o := vec3{float32(pl.offset[0] + pl.k*x*0.9), float32(pl.offset[1] + pl.k*eye), float32(pl.offset[2] + pl.k*z*0.9)}
						q := vec3{float32(pl.offset[0] + pl.k*x), float32(pl.offset[1]), float32(pl.offset[2] + pl.k*z)}
						r := Ray{Origin: o, Dir: normalize(q.Sub(o)), TMax: infinity}
						var sum, sum2 float64
						for n := 0; n < samples; n++ {
							smp := NewSampler(9, uint32(i), uint32(j), uint32(n))
							smp.SetDimension(cameraDims)
							v := float64(s.tracePath(r, s.Intersect(r), &smp, &st)[0])
							sum += v
							sum2 += v * v
						}
						m := sum / samples
						est[j][i], exact[j][i] = m, c.exact(x, z)
						varMean[j][i] = max(0, sum2/samples-m*m) / samples
					}
				}
				var se, sx float64
				for j := range est {
					for i := range est[j] {
						se += est[j][i]
						sx += exact[j][i]
					}
				}
				if math.Abs(se/sx-1) > 0.02 {
					t.Errorf("mean over the floor %.5g, exact %.5g (%+.2f %%, want within 2 %%)", se/grid/grid, sx/grid/grid, 100*(se/sx-1))
				}
				for bj := 0; bj < grid; bj += 4 {
					for bi := 0; bi < grid; bi += 4 {
						var e, x, v float64
						for j := bj; j < bj+4; j++ {
							for i := bi; i < bi+4; i++ {
								e += est[j][i] / 16
								x += exact[j][i] / 16
								v += varMean[j][i] / 256
							}
						}
						if tol := 4*math.Sqrt(v) + 0.01*x; math.Abs(e-x) > tol {
							t.Errorf("block at (%d, %d): %.5g, exact %.5g (off by %.3g, noise allows %.3g)", bi, bj, e, x, e-x, tol)
						}
					}
				}
				t.Logf("mean %.5g, exact %.5g (%+.3f %%)", se/grid/grid, sx/grid/grid, 100*(se/sx-1))
			})
		}
	}
}
