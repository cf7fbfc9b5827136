package tracer

import "testing"

// renderPixels renders every pixel of d (RenderPixel), row by row.
func renderPixels(t *testing.T, d *SceneDesc) []vec3 {
	t.Helper()
	s := compileTest(t, d)
	var st Stats
	var px []vec3
	for y := range d.Settings.Height {
		for x := range d.Settings.Width {
			px = append(px, s.RenderPixel(x, y, &st))
		}
	}
	return px
}

// TestPBRClearcoatMapUncoated: a pbr quad under a clear coat whose
// ClearcoatMap (glTF's clearcoatTexture) is red 0 on the half u < 0.5
// and 1 on the other renders, path traced, the same bits as the uncoated
// material on the first half and as the coat's factor on the other: the
// camera looks straight down at the quad, the seam under the image's
// middle columns (left out), the first half on the image's right (the
// camera's right is world −x).
func TestPBRClearcoatMapUncoated(t *testing.T) {
	const w, h = 16, 12
	scene := func(m Material, tex []Texture) *SceneDesc {
		return &SceneDesc{
			Settings:   Settings{Width: w, Height: h, Samples: 4, MaxDepth: 3, Integrator: IntegratorPath, Seed: 5},
			Camera:     CameraDesc{Position: vec3{0, 3, 0}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 0, 1}, FOV: 50},
			Background: Background{Kind: BackgroundGradient, Bottom: vec3{0.1, 0.1, 0.1}, Top: vec3{1, 0.9, 0.8}},
			Materials:  []Material{m},
			Textures:   tex,
			// Green 1: the red alone must matter.
			Images: []Image{{Width: 2, Height: 1, Pix: []float32{0, 1, 1, 1, 1, 1}}},
			Lights: []PointLight{{Position: vec3{1, 4, -1}, Color: vec3{1, 1, 1}, Intensity: 20}},
			// u runs along x, from -5 to 5.
			Quads: []QuadDesc{{Corner: vec3{-5, 0, -5}, Edge1: vec3{10, 0, 0}, Edge2: vec3{0, 0, 10}}},
		}
	}
	pbr := Material{Kind: MaterialPBR, Texture: NoTexture, Color: vec3{0.6, 0.3, 0.2}, Roughness: 0.6}
	uncoated := renderPixels(t, scene(pbr, nil))
	pbr.Clearcoat, pbr.ClearcoatRoughness = 1, 0.2
	coated := renderPixels(t, scene(pbr, nil))
	pbr.ClearcoatMap = 1
	mapped := renderPixels(t, scene(pbr, []Texture{{Kind: TextureImage, Image: 0, Filter: FilterNearest}}))
	var sameU, sameC, differ int
	for y := range h {
		for x := range w {
			if x == w/2-1 || x == w/2 {
				continue // the seam
			}
			i := y*w + x
			want, name := coated, "the coated material"
			if x >= w/2 {
				want, name = uncoated, "the uncoated material"
			}
			if mapped[i] != want[i] {
				t.Errorf("pixel (%d, %d): %v, want %v, %s's", x, y, mapped[i], want[i], name)
			}
			if uncoated[i] != coated[i] {
				differ++
			}
			if mapped[i] == uncoated[i] {
				sameU++
			} else if mapped[i] == coated[i] {
				sameC++
			}
		}
	}
	if half := (w/2 - 1) * h; differ != 2*half || sameU != half || sameC != half {
		t.Errorf("%d pixels differ with and without the coat, %d are the uncoated ones and %d the coated ones; want %d, %d, %d",
			differ, sameU, sameC, 2*half, half, half)
	}
}

// TestPBRClearcoatMapConstant: a ClearcoatMap and a
// ClearcoatRoughnessMap of one colour everywhere (a checker of equal
// squares: red 1/2, green 1/2) under the factors 1/2 and 1/2 render the
// same bits as the factors 1/4 and 1/4 without maps, path traced (powers
// of two: the products are exact); a map of another colour renders
// differently, and so does the red or the green alone in the wrong map
// (each map reads its own channel).
func TestPBRClearcoatMapConstant(t *testing.T) {
	render := func(m Material, tex []Texture) []vec3 {
		return renderPixels(t, &SceneDesc{
			Settings:   Settings{Width: 12, Height: 10, Samples: 4, MaxDepth: 3, Integrator: IntegratorPath, Seed: 7},
			Camera:     CameraDesc{Position: vec3{0, 1.5, -4}, LookAt: vec3{0, 0.5, 0}},
			Background: Background{Kind: BackgroundGradient, Bottom: vec3{0.2, 0.2, 0.2}, Top: vec3{1, 0.9, 0.8}},
			Materials:  []Material{m, {Kind: MaterialDiffuse, Texture: NoTexture, Color: vec3{0.5, 0.5, 0.5}}},
			Textures:   tex,
			Lights:     []PointLight{{Position: vec3{2, 4, -3}, Color: vec3{1, 1, 1}, Intensity: 20}},
			Spheres:    []SphereDesc{{Center: vec3{0, 0.7, 0}, Radius: 0.7}},
			Planes:     []PlaneDesc{{Normal: vec3{0, 1, 0}, Material: 1}},
		})
	}
	pbr := Material{Kind: MaterialPBR, Texture: NoTexture, Color: vec3{0.3, 0.5, 0.7}, Roughness: 0.4}
	factor := pbr
	factor.Clearcoat, factor.ClearcoatRoughness = 0.25, 0.25
	want := render(factor, nil)
	mapped := pbr
	mapped.Clearcoat, mapped.ClearcoatRoughness = 0.5, 0.5
	mapped.ClearcoatMap, mapped.ClearcoatRoughnessMap = 1, 2
	checker := func(c vec3) Texture { return Texture{Kind: TextureChecker, Scale: 4, Even: c, Odd: c} }
	for _, tc := range []struct {
		name        string
		coat, rough vec3
		same        bool
	}{
		{"the factors' values", vec3{0.5, 1, 1}, vec3{1, 0.5, 1}, true},
		{"another coat", vec3{0.25, 1, 1}, vec3{1, 0.5, 1}, false},
		{"another roughness", vec3{0.5, 1, 1}, vec3{1, 0.25, 1}, false},
		{"the channels swapped", vec3{1, 0.5, 1}, vec3{0.5, 1, 1}, false},
	} {
		got := render(mapped, []Texture{checker(tc.coat), checker(tc.rough)})
		same := true
		for i := range got {
			same = same && got[i] == want[i]
		}
		if same != tc.same {
			t.Errorf("maps of %s: the same pixels as the factors %v, want %v", tc.name, same, tc.same)
		}
	}
}

// TestPBRClearcoatRoughnessMapLightSampled: a mirror metal under a
// clear coat of roughness 1/64 (a mirror: both lobes deltas, so the
// material is not light-sampled) whose ClearcoatRoughnessMap's green is
// 32 everywhere (a checker above 1) has a coat of roughness 1/2 at every
// point, and renders the same bits as the coat of roughness 1/2 without
// a map, the point light's highlight included: whether a point is
// light-sampled goes by the coat there, not by the factor.
func TestPBRClearcoatRoughnessMapLightSampled(t *testing.T) {
	render := func(m Material, tex []Texture) []vec3 {
		return renderPixels(t, &SceneDesc{
			Settings:   Settings{Width: 12, Height: 10, Samples: 4, MaxDepth: 3, Integrator: IntegratorPath, Seed: 3},
			Camera:     CameraDesc{Position: vec3{0, 1.5, -4}, LookAt: vec3{0, 0.5, 0}},
			Background: Background{Color: vec3{0.05, 0.05, 0.05}},
			Materials:  []Material{m, {Kind: MaterialDiffuse, Texture: NoTexture, Color: vec3{0.5, 0.5, 0.5}}},
			Textures:   tex,
			Lights:     []PointLight{{Position: vec3{1, 3, -3}, Color: vec3{1, 1, 1}, Intensity: 20}},
			Spheres:    []SphereDesc{{Center: vec3{0, 0.7, 0}, Radius: 0.7}},
			Planes:     []PlaneDesc{{Normal: vec3{0, 1, 0}, Material: 1}},
		})
	}
	metal := Material{Kind: MaterialPBR, Texture: NoTexture, Color: vec3{0.9, 0.6, 0.3}, Metallic: 1, Roughness: 0, Clearcoat: 1}
	factor := metal
	factor.ClearcoatRoughness = 0.5
	want := render(factor, nil)
	mapped := metal
	mapped.ClearcoatRoughness, mapped.ClearcoatRoughnessMap = 1.0/64, 1
	c := vec3{1, 32, 1}
	got := render(mapped, []Texture{{Kind: TextureChecker, Scale: 4, Even: c, Odd: c}})
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("pixel %d: %v, want %v, the factor's", i, got[i], want[i])
		}
	}
}
