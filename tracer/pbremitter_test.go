package tracer

import (
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/internal/radiometry"
)

// Tests of pbr materials with an emission as area lights: next-event
// estimation samples them as it samples emissive materials, and the
// emission that BSDF-sampled rays find is weighed against it by multiple
// importance sampling, so that rendering with light sampling and without
// it (hit-only path tracing) gives the same means, with less noise.

// hitOnly switches next-event estimation toward emitters off in s: no
// emitter is sampled, and the emission rays find counts in full. What is
// left is hit-only path tracing, unbiased on its own.
func hitOnly(s *Scene) *Scene {
	o := *s
	o.Emitters, o.LightNodes = nil, nil
	o.Materials = append([]Material(nil), s.Materials...)
	for i := range o.Materials {
		o.Materials[i].LightPDF = 0
	}
	return &o
}

// pbrEmitter is a pbr material of base colour base whose emission is le
// in every channel.
func pbrEmitter(le float32, base vec3) Material {
	return Material{Kind: MaterialPBR, Texture: NoTexture, Color: base, Roughness: 0.6, Emission: vec3{le, le, le}}
}

// floorEstimate is tracePath's estimate of the radiance of a grid of
// floor points: per point, the mean over n samples and the variance of
// that mean, and how long the samples took.
type floorEstimate struct {
	mean, varMean []float64
	elapsed       time.Duration
}

// estimateFloor renders grid×grid points of the floor y = 0 over [-extent,
// extent]², each seen from the height eye above a point 0.9 times as far
// from the centre, n samples each, and returns red's estimates.
func estimateFloor(s *Scene, grid int, extent, eye float64, n int) floorEstimate {
	var e floorEstimate
	var st Stats
	start := time.Now()
	for j := 0; j < grid; j++ {
		for i := 0; i < grid; i++ {
			x := extent * (2*(float64(i)+0.5)/float64(grid) - 1)
			z := extent * (2*(float64(j)+0.5)/float64(grid) - 1)
			o := vec3{float32(0.9 * x), float32(eye), float32(0.9 * z)}
			r := Ray{Origin: o, Dir: normalize(vec3{float32(x), 0, float32(z)}.Sub(o)), TMax: infinity}
			var sum, sum2 float64
			for k := 0; k < n; k++ {
				smp := NewSampler(13, uint32(i), uint32(j), uint32(k))
				smp.SetDimension(cameraDims)
				v := float64(s.tracePath(r, s.Intersect(r), &smp, &st)[0])
				sum, sum2 = sum+v, sum2+v*v
			}
			m := sum / float64(n)
			e.mean = append(e.mean, m)
			e.varMean = append(e.varMean, max(0, sum2/float64(n)-m*m)/float64(n))
		}
	}
	e.elapsed = time.Since(start)
	return e
}

// TestPBREmitterClosedForm: a pbr emitter over a diffuse floor (the
// rectangle, the close rectangle and the hexagon mesh of
// TestDirectLightClosedForm, max_depth 1) lights it as the closed form
// says, rendered with light sampling and without it: each mean over the
// floor within 2 % of the exact one, every 4×4 block of points within
// four standard errors (plus 1 %), and the two renders' means within four
// standard errors of each other (nothing counted twice, nothing missed).
// Light sampling must cut the squared error at equal samples at least
// 4-fold; the squared error × time of both is logged.
func TestPBREmitterClosedForm(t *testing.T) {
	const grid, samples = 16, 128
	for _, c := range closedFormCases() {
		if c.name == "sphere" {
			continue // TestPBREmitterSphere
		}
		t.Run(c.name, func(t *testing.T) {
			d := &SceneDesc{
				Settings: Settings{Width: 16, Height: 16, Samples: samples, MaxDepth: 1, Seed: 3},
				Camera:   CameraDesc{Position: vec3{0, 2, -0.5}, LookAt: vec3{}, FOV: 100},
				Materials: []Material{
					{Kind: MaterialDiffuse, Color: vec3{closedFormAlbedo, closedFormAlbedo, closedFormAlbedo}, Texture: NoTexture},
					pbrEmitter(closedFormLe, vec3{0.5, 0.5, 0.5}),
				},
				Planes: []PlaneDesc{{Normal: vec3{0, 1, 0}}},
			}
			c.add(d, func(p radiometry.Vec) vec3 { return vec3{float32(p[0]), float32(p[1]), float32(p[2])} }, 1)
			s := compileTest(t, d)
			if len(s.Emitters) == 0 || !(s.Materials[1].LightPDF > 0) {
				t.Fatalf("%d emitters, LightPDF %g: the pbr emitter is not light-sampled", len(s.Emitters), s.Materials[1].LightPDF)
			}
			eye := c.eye
			if eye == 0 {
				eye = 1.5
			}
			var exact []float64
			for j := 0; j < grid; j++ {
				for i := 0; i < grid; i++ {
					exact = append(exact, c.exact(c.extent*(2*(float64(i)+0.5)/grid-1), c.extent*(2*(float64(j)+0.5)/grid-1)))
				}
			}
			nee := estimateFloor(s, grid, c.extent, eye, samples)
			hit := estimateFloor(hitOnly(s), grid, c.extent, eye, samples)
			var sx float64
			for _, x := range exact {
				sx += x
			}
			mse := func(e floorEstimate) (mean, se2, mse float64) {
				for k := range e.mean {
					mean += e.mean[k] / float64(len(e.mean))
					se2 += e.varMean[k] / float64(len(e.mean)*len(e.mean))
					mse += (e.mean[k] - exact[k]) * (e.mean[k] - exact[k]) / float64(len(e.mean))
				}
				return mean, se2, mse
			}
			exactMean := sx / float64(len(exact))
			mN, seN, mseN := mse(nee)
			mH, seH, mseH := mse(hit)
			for _, r := range []struct {
				name string
				e    floorEstimate
				mean float64
			}{{"light-sampled", nee, mN}, {"hit-only", hit, mH}} {
				if math.Abs(r.mean/exactMean-1) > 0.02 {
					t.Errorf("%s: mean over the floor %.5g, exact %.5g (%+.2f %%, want within 2 %%)", r.name, r.mean, exactMean, 100*(r.mean/exactMean-1))
				}
				for bj := 0; bj < grid; bj += 4 {
					for bi := 0; bi < grid; bi += 4 {
						var e, x, v float64
						for j := bj; j < bj+4; j++ {
							for i := bi; i < bi+4; i++ {
								k := j*grid + i
								e, x, v = e+r.e.mean[k]/16, x+exact[k]/16, v+r.e.varMean[k]/256
							}
						}
						if tol := 4*math.Sqrt(v) + 0.01*x; math.Abs(e-x) > tol {
							t.Errorf("%s: block at (%d, %d): %.5g, exact %.5g (off by %.3g, noise allows %.3g)", r.name, bi, bj, e, x, e-x, tol)
						}
					}
				}
			}
			if se := math.Sqrt(seN + seH); math.Abs(mN-mH) > 4*se {
				t.Errorf("means %.5g light-sampled and %.5g hit-only differ by more than 4 standard errors (%.2g)", mN, mH, se)
			}
			t.Logf("exact %.5g; light-sampled %.5g, squared error %.3g, × time %.3g s; hit-only %.5g, squared error %.3g, × time %.3g s (%.1f× and %.1f× less with light sampling)",
				exactMean, mN, mseN, mseN*nee.elapsed.Seconds(), mH, mseH, mseH*hit.elapsed.Seconds(),
				mseH/mseN, mseH*hit.elapsed.Seconds()/(mseN*nee.elapsed.Seconds()))
			if !(mseH > 4*mseN) {
				t.Errorf("squared error %.3g light-sampled, %.3g hit-only at %d samples: want at least 4× less", mseN, mseH, samples)
			}
		})
	}
}

// pbrEmitterCase is a scene lit by pbr emitters only (material 1 and
// on) over a diffuse floor y = 0 (material 0), with the eye the rays
// leave from.
type pbrEmitterCase struct {
	name string
	eye  vec3
	desc func() *SceneDesc
	// minGain is the least variance reduction light sampling must give.
	minGain float64
}

func pbrEmitterCases() []pbrEmitterCase {
	floor := Material{Kind: MaterialDiffuse, Color: vec3{0.6, 0.6, 0.6}, Texture: NoTexture}
	wall := Material{Kind: MaterialDiffuse, Color: vec3{0.7, 0.3, 0.2}, Texture: NoTexture}
	// A 4×4 image, dim but for one bright texel: most of the light comes
	// from a sixteenth of the emitter.
	img := Image{Width: 4, Height: 4}
	for k := 0; k < 16; k++ {
		v := float32(0.05)
		if k == 6 {
			v = 30
		}
		img.Pix = append(img.Pix, v, float32(0.5*v), float32(0.25*v))
	}
	lamp := func(m Material) *SceneDesc {
		return &SceneDesc{
			Settings:  Settings{MaxDepth: 4, Seed: 5},
			Materials: []Material{floor, m, wall},
			Planes:    []PlaneDesc{{Normal: vec3{0, 1, 0}}, {Point: vec3{0, 0, 2.5}, Normal: vec3{0, 0, -1}, Material: 2}},
		}
	}
	textured := pbrEmitter(1, vec3{0.4, 0.5, 0.6})
	textured.EmissionMap = 1
	return []pbrEmitterCase{
		{"image-textured quad", vec3{0, 1.2, -2}, func() *SceneDesc {
			d := lamp(textured)
			d.Images = []Image{img}
			d.Textures = []Texture{{Kind: TextureImage, Image: 0}}
			d.Quads = []QuadDesc{{Corner: vec3{-1, 2, -1}, Edge1: vec3{2, 0, 0}, Edge2: vec3{0, 0, 2}, Material: 1}}
			return d
		}, 4},
		{"checker-textured single-sided mesh", vec3{0, 1.2, -2}, func() *SceneDesc {
			m := textured
			m.SingleSided = 1
			d := lamp(m)
			d.Textures = []Texture{{Kind: TextureChecker, Scale: 3, Even: vec3{8, 8, 8}, Odd: vec3{0.1, 0.2, 0.3}}}
			// A tilted hexagon fan facing down (its back, facing up,
			// emits nothing and lets rays through), and a second,
			// facing up, that the floor sees only through the first.
			mesh := MeshDesc{Material: 1, Positions: []vec3{{0, 2, 0}}}
			for i := 0; i < 6; i++ {
				a := float64(i) * math.Pi / 3
				mesh.Positions = append(mesh.Positions, vec3{float32(1.2 * math.Cos(a)), float32(2 + 0.3*math.Cos(a)), float32(1.2 * math.Sin(a))})
				mesh.UVs = append(mesh.UVs, mgl32.Vec2{float32(i) / 6, 1})
				mesh.Indices = append(mesh.Indices, 0, uint32(1+i), uint32(1+(i+1)%6))
			}
			mesh.UVs = append([]mgl32.Vec2{{0.5, 0}}, mesh.UVs...)
			d.Meshes = []MeshDesc{mesh}
			d.Triangles = []TriangleDesc{{Vertices: [3]vec3{{-1, 2.6, 1}, {1, 2.6, 1}, {0, 2.6, -1}}, Material: 1}}
			return d
		}, 4},
		{"inside an emitting sphere", vec3{0, 1.5, -2}, func() *SceneDesc {
			m := pbrEmitter(0.5, vec3{0.5, 0.5, 0.5})
			m.EmissionMap = 1
			d := lamp(m)
			d.Textures = []Texture{{Kind: TextureChecker, Scale: 4, Even: vec3{3, 3, 3}, Odd: vec3{0.2, 0.2, 0.2}}}
			d.Planes = d.Planes[:1]
			d.Spheres = []SphereDesc{{Radius: 6, Material: 1}, {Center: vec3{1, 0.5, 0}, Radius: 0.5, Material: 2}}
			return d
		}, 1.15}, // rays meet the enclosure wherever they go: little to gain
		{"blended quad and an emissive material", vec3{0, 1.2, -2}, func() *SceneDesc {
			m := pbrEmitter(6, vec3{0.5, 0.5, 0.5})
			m.AlphaMode, m.Alpha = AlphaBlend, 0.4
			d := lamp(m)
			d.Materials = append(d.Materials, Material{Kind: MaterialEmissive, Color: vec3{1, 0.8, 0.6}, Intensity: 3, Texture: NoTexture})
			d.Quads = []QuadDesc{{Corner: vec3{-1, 2, -1}, Edge1: vec3{2, 0, 0}, Edge2: vec3{0, 0, 1}, Material: 1}}
			d.Spheres = []SphereDesc{{Center: vec3{-1.5, 1.5, 1}, Radius: 0.3, Material: 3}}
			return d
		}, 2},
	}
}

// TestPBREmitterUnbiased: scenes lit by pbr emitters, textured (an image
// with one bright texel, a checker), single-sided, blended, seen from
// inside, beside an emissive material, over several bounces (the
// emitters scatter too): light sampling with multiple importance
// sampling has the same mean as hit-only path tracing (within four
// standard errors), so the texture is in the emission it samples and no
// light is counted twice or missed, and less variance (the case's
// minGain).
func TestPBREmitterUnbiased(t *testing.T) {
	const n = 2048
	for _, c := range pbrEmitterCases() {
		t.Run(c.name, func(t *testing.T) {
			s := compileTest(t, c.desc())
			if len(s.Emitters) == 0 || !(s.Materials[1].LightPDF > 0) {
				t.Fatalf("%d emitters, LightPDF %g: the pbr emitter is not light-sampled", len(s.Emitters), s.Materials[1].LightPDF)
			}
			var mean, vari [2]float64
			var st Stats
			const points = 16
			for p := 0; p < points; p++ {
				q := vec3{float32(p%4) - 1.5, 0, float32(p/4)*0.8 - 1.2}
				r := Ray{Origin: c.eye, Dir: normalize(q.Sub(c.eye)), TMax: infinity}
				for k, sc := range []*Scene{s, hitOnly(s)} {
					var sum, sum2 float64
					for i := 0; i < n; i++ {
						smp := NewSampler(17, uint32(p), 0, uint32(i))
						smp.SetDimension(cameraDims)
						v := float64(luminance(sc.tracePath(r, sc.Intersect(r), &smp, &st)))
						sum, sum2 = sum+v, sum2+v*v
					}
					m := sum / n
					mean[k] += m / points
					vari[k] += max(0, sum2/n-m*m) / points
				}
			}
			se := math.Sqrt((vari[0] + vari[1]) / (n * points))
			t.Logf("mean luminance %.5g light-sampled, %.5g hit-only (± %.2g); variance per sample %.4g and %.4g (%.1f×)",
				mean[0], mean[1], se, vari[0], vari[1], vari[1]/vari[0])
			if math.Abs(mean[0]-mean[1]) > 4*se {
				t.Errorf("means differ: %.5g light-sampled, %.5g hit-only, more than 4 standard errors (%.2g)", mean[0], mean[1], se)
			}
			if !(vari[1] > c.minGain*vari[0]) {
				t.Errorf("variance per sample %.4g light-sampled, %.4g hit-only: want at least %g× less", vari[0], vari[1], c.minGain)
			}
		})
	}
}

// TestPBREmitterPicks: the emitters of a scene are its emissive shapes and
// its pbr shapes and triangles with an emission (not those without), each
// picked in proportion to its power: the mean luminance of its emission
// (the factor times the emission map's mean, tint included) times its
// area; LightPDF is the share per unit area.
func TestPBREmitterPicks(t *testing.T) {
	img := Image{Width: 2, Height: 1, Pix: []float32{1, 1, 1, 3, 0, 0}} // mean (2, 0.5, 0.5)
	d := &SceneDesc{
		Images:   []Image{img},
		Textures: []Texture{{Kind: TextureImage, Image: 0, Even: vec3{1, 2, 1}}},
		Materials: []Material{
			{Kind: MaterialEmissive, Color: vec3{1, 1, 1}, Intensity: 3, Texture: NoTexture},
			{Kind: MaterialPBR, Texture: NoTexture, Emission: vec3{2, 1, 0.5}, EmissionMap: 1},
			{Kind: MaterialPBR, Texture: NoTexture, Emission: vec3{1, 1, 1}},
			{Kind: MaterialPBR, Texture: NoTexture, Color: vec3{1, 1, 1}}, // no emission
		},
		Quads: []QuadDesc{
			{Corner: vec3{0, 2, 0}, Edge1: vec3{2, 0, 0}, Edge2: vec3{0, 0, 1}, Material: 0},
			{Corner: vec3{3, 2, 0}, Edge1: vec3{1, 0, 0}, Edge2: vec3{0, 0, 1}, Material: 1},
			{Corner: vec3{-3, 2, 0}, Edge1: vec3{1, 0, 0}, Edge2: vec3{0, 0, 1}, Material: 3},
		},
		Spheres:   []SphereDesc{{Center: vec3{0, 4, 0}, Radius: 0.5, Material: 2}},
		Triangles: []TriangleDesc{{Vertices: [3]vec3{{0, 0, 5}, {2, 0, 5}, {0, 3, 5}}, Material: 1}, {Vertices: [3]vec3{{0, 0, 6}, {2, 0, 6}, {0, 3, 6}}, Material: 3}},
	}
	s := compileTest(t, d)
	lum := []float64{
		3,
		0.2126*2*2 + 0.7152*1*0.5*2 + 0.0722*0.5*0.5, // factor × tint × mean texel
		1,
		0,
	}
	area := func(e Emitter) float64 {
		if e.Kind == HitTriangle {
			return 3
		}
		return float64(s.Shapes[e.Index].Area)
	}
	var total float64
	count := map[uint32]int{}
	for _, e := range s.Emitters {
		m := s.emitterMaterial(e)
		count[m]++
		total += lum[m] * area(e)
	}
	if len(s.Emitters) != 4 || count[0] != 1 || count[1] != 2 || count[2] != 1 {
		t.Fatalf("%d emitters, %v by material: want the emissive quad, the textured pbr quad and triangle, the pbr sphere", len(s.Emitters), count)
	}
	prev := float32(0)
	for k, e := range s.Emitters {
		m := s.emitterMaterial(e)
		want := lum[m] * area(e) / total
		if got := float64(e.CDF - prev); math.Abs(got-want) > 1e-5 {
			t.Errorf("emitter %d (material %d): picked with probability %.6g, want %.6g", k, m, got, want)
		}
		prev = e.CDF
	}
	for i, m := range s.Materials {
		if want := lum[i] / total; math.Abs(float64(m.LightPDF)-want) > 1e-6*want+1e-12 {
			t.Errorf("materials[%d]: LightPDF %.6g, want %.6g", i, m.LightPDF, want)
		}
	}
}

// emitterMaterial returns the material index of emitter e.
func (s *Scene) emitterMaterial(e Emitter) uint32 {
	if e.Kind == HitTriangle {
		return s.TriangleAttrs[e.Index].Material
	}
	return s.Shapes[e.Index].Material
}
