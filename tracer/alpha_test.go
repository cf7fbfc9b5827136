package tracer

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// alphaScene is a lit white floor (y = 0) under a 2×2 quad at y = 1 whose
// material is m, and a light high above; image 0 is a 4×4 checkerboard of
// alpha 1 (even texels) and 0, the quad's (u, v) running along x and z.
func alphaScene(t *testing.T, m Material, edge1, edge2 mgl32.Vec3, corner mgl32.Vec3) *Scene {
	t.Helper()
	img := Image{Width: 4, Height: 4, Pix: make([]float32, 48), Alpha: make([]float32, 16)}
	for j := 0; j < 4; j++ {
		for i := 0; i < 4; i++ {
			img.Pix[3*(4*j+i)], img.Pix[3*(4*j+i)+1], img.Pix[3*(4*j+i)+2] = 0.5, 0.5, 0.5
			if (i+j)%2 == 0 {
				img.Alpha[4*j+i] = 1
			}
		}
	}
	d := &SceneDesc{
		Settings:   Settings{Width: 8, Height: 8, Samples: 1, MaxDepth: 2},
		Camera:     CameraDesc{Position: mgl32.Vec3{0, 5, 0.01}, LookAt: mgl32.Vec3{0, 0, 0}, Up: mgl32.Vec3{0, 1, 0}, FOV: 40},
		Background: Background{Color: mgl32.Vec3{0.5, 0.5, 0.5}},
		Images:     []Image{img},
		Textures:   []Texture{{Kind: TextureImage, Image: 0}},
		Materials:  []Material{{Kind: MaterialDiffuse, Texture: NoTexture, Color: mgl32.Vec3{1, 1, 1}}, m},
		Lights:     []PointLight{{Position: mgl32.Vec3{0, 1000, 0}, Color: mgl32.Vec3{1, 1, 1}, Intensity: 1, Falloff: FalloffNone}},
		Planes:     []PlaneDesc{{Point: mgl32.Vec3{}, Normal: mgl32.Vec3{0, 1, 0}, Material: 0}},
		Quads:      []QuadDesc{{Corner: corner, Edge1: edge1, Edge2: edge2, Material: 1}},
	}
	s, err := Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAlphaMaskCheckerboard: a MASK cut-out's shadow on the floor is its
// checkerboard — floor points under opaque squares are dark, under holes
// lit — and the camera sees the floor through the holes.
func TestAlphaMaskCheckerboard(t *testing.T) {
	m := Material{Kind: MaterialDiffuse, Texture: 0, AlphaMode: AlphaMask, Alpha: 1, AlphaCutoff: 0.5}
	s := alphaScene(t, m, mgl32.Vec3{2, 0, 0}, mgl32.Vec3{0, 0, 2}, mgl32.Vec3{-1, 1, -1})
	if !s.SeeThrough {
		t.Fatal("SeeThrough not set")
	}
	var smp Sampler
	var st Stats
	for j := 0; j < 4; j++ {
		for i := 0; i < 4; i++ {
			// The centre of texel (i, j): u = (i+½)/4, v = 1 − (j+½)/4.
			x := -1 + 2*(float32(i)+0.5)/4
			z := -1 + 2*(1-(float32(j)+0.5)/4)
			opaque := (i+j)%2 == 0
			shadow := Ray{Origin: vec3{x, 0.001, z}, Dir: vec3{0, 1, 0}, TMax: 999}
			if got := s.occludedSeen(shadow, &smp, 0, false, &st); got != opaque {
				t.Errorf("texel (%d, %d): floor in shadow %v, want %v", i, j, got, opaque)
			}
			if !s.Occluded(shadow) {
				t.Errorf("texel (%d, %d): the plain Occluded must see the quad", i, j)
			}
			r := Ray{Origin: vec3{x, 5, z}, Dir: vec3{0, -1, 0}, TMax: infinity}
			h := s.intersectSeen(&r, &smp, 0, &st)
			if h.Kind != HitShape { // the quad or the floor plane
				t.Fatalf("texel (%d, %d): hit kind %d", i, j, h.Kind)
			}
			isQuad := s.Shapes[h.Index].Kind == ShapeQuad
			if isQuad != opaque {
				t.Errorf("texel (%d, %d): camera sees the quad %v, want %v", i, j, isQuad, opaque)
			}
			// From the nearest hit, as a packet of camera rays finds it:
			// the same surface seen, from the same ray.
			r2 := Ray{Origin: vec3{x, 5, z}, Dir: vec3{0, -1, 0}, TMax: infinity}
			if h2 := s.seenFrom(&r2, s.Intersect(r2), &smp, 0, &st); h2 != h || r2 != r {
				t.Errorf("texel (%d, %d): seenFrom %+v from %+v, intersectSeen %+v from %+v", i, j, h2, r2, h, r)
			}
		}
	}
	// The same quad opaque shadows every one of those points.
	o := alphaScene(t, Material{Kind: MaterialDiffuse, Texture: 0}, mgl32.Vec3{2, 0, 0}, mgl32.Vec3{0, 0, 2}, mgl32.Vec3{-1, 1, -1})
	if o.SeeThrough {
		t.Fatal("an opaque scene is SeeThrough")
	}
	if !o.occludedSeen(Ray{Origin: vec3{-0.75, 0.001, -0.75}, Dir: vec3{0, 1, 0}, TMax: 999}, &smp, 0, false, &st) {
		t.Error("opaque quad: no shadow")
	}
}

// TestAlphaBlendConverges: a BLEND emitter of alpha 0.3 in front of a grey
// background converges to 0.3·emission + 0.7·background.
func TestAlphaBlendConverges(t *testing.T) {
	m := Material{Kind: MaterialEmissive, Texture: NoTexture, Color: mgl32.Vec3{1, 1, 1}, Intensity: 1, AlphaMode: AlphaBlend, Alpha: 0.3}
	s := alphaScene(t, m, mgl32.Vec3{2, 0, 0}, mgl32.Vec3{0, 0, 2}, mgl32.Vec3{-1, 1, -1})
	s.Shapes = s.Shapes[:len(s.Shapes)-1] // no floor: the background behind
	const n = 1 << 14
	var sum float64
	var st Stats
	for i := uint32(0); i < n; i++ {
		smp := NewSampler(7, 3, 4, i)
		r := Ray{Origin: vec3{0.1, 5, 0.2}, Dir: vec3{0, -1, 0}, TMax: infinity}
		sum += float64(s.tracePath(r, s.Intersect(r), &smp, &st)[0])
	}
	got, want := sum/n, 0.3*1+0.7*0.5
	// Bernoulli(0.3) samples of 1 and 0.5: σ = 0.5·√(0.21/n) ≈ 0.0018.
	if math.Abs(got-want) > 0.01 {
		t.Errorf("mean %.4f, want %.4f", got, want)
	}
}

// TestAlphaOpaqueUnchanged: alpha fields on opaque, double-sided
// materials change no bit of the picture.
func TestAlphaOpaqueUnchanged(t *testing.T) {
	plain := alphaScene(t, Material{Kind: MaterialDiffuse, Texture: 0}, mgl32.Vec3{2, 0, 0}, mgl32.Vec3{0, 0, 2}, mgl32.Vec3{-1, 1, -1})
	set := alphaScene(t, Material{Kind: MaterialDiffuse, Texture: 0, Alpha: 0.2, AlphaCutoff: 0.9, AlphaMap: 1}, mgl32.Vec3{2, 0, 0}, mgl32.Vec3{0, 0, 2}, mgl32.Vec3{-1, 1, -1})
	if set.SeeThrough || len(set.Texels) != len(plain.Texels) || set.Textures[0].AlphaOffset != 0 {
		t.Fatalf("opaque: SeeThrough %v, %d texels (want %d), alpha offset %d", set.SeeThrough, len(set.Texels), len(plain.Texels), set.Textures[0].AlphaOffset)
	}
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			var st Stats
			if a, b := plain.RenderPixel(x, y, &st), set.RenderPixel(x, y, &st); a != b {
				t.Fatalf("pixel (%d, %d): %v, want %v", x, y, b, a)
			}
		}
	}
}

// TestSingleSided: a single-sided quad seen from behind is invisible and
// casts no shadow on points behind it; from the front it is there.
func TestSingleSided(t *testing.T) {
	// edge1 × edge2 = (0, 0, 2) × (2, 0, 0) points up: the floor is
	// behind the quad, the light and a camera above in front of it.
	m := Material{Kind: MaterialDiffuse, Texture: NoTexture, Color: mgl32.Vec3{1, 0, 0}, SingleSided: 1}
	s := alphaScene(t, m, mgl32.Vec3{0, 0, 2}, mgl32.Vec3{2, 0, 0}, mgl32.Vec3{-1, 1, -1})
	var smp Sampler
	var st Stats
	up := Ray{Origin: vec3{0.1, 0.001, 0.2}, Dir: vec3{0, 1, 0}, TMax: 999}
	if s.occludedSeen(up, &smp, 0, false, &st) {
		t.Error("a single-sided quad shadows a point behind it")
	}
	r := up
	r.TMax = infinity
	if h := s.intersectSeen(&r, &smp, 0, &st); h.Kind != HitNone {
		t.Errorf("seen from behind: hit %d %d", h.Kind, h.Index)
	}
	down := Ray{Origin: vec3{0.1, 5, 0.2}, Dir: vec3{0, -1, 0}, TMax: infinity}
	if h := s.intersectSeen(&down, &smp, 0, &st); h.Kind != HitShape || s.Shapes[h.Index].Kind != ShapeQuad {
		t.Errorf("seen from the front: hit %d, want the quad", h.Kind)
	}
	// From the light, traced the other way (emitter shadow rays), the
	// same surface blocks the same paths.
	fromLight := Ray{Origin: vec3{0.1, 5, 0.2}, Dir: vec3{0, -1, 0}, TMax: 4.99}
	if s.occludedSeen(fromLight, &smp, 0, true, &st) {
		t.Error("traced from the light: a single-sided quad shadows a point behind it")
	}
	if !s.occludedSeen(fromLight, &smp, 0, false, &st) {
		t.Error("traced down from above the front: not blocked")
	}
	// Double-sided, the same ray is blocked.
	o := alphaScene(t, Material{Kind: MaterialDiffuse, Texture: NoTexture, Color: mgl32.Vec3{1, 0, 0}}, mgl32.Vec3{0, 0, 2}, mgl32.Vec3{2, 0, 0}, mgl32.Vec3{-1, 1, -1})
	if !o.occludedSeen(up, &smp, 0, false, &st) {
		t.Error("double-sided quad: no shadow")
	}
}

// TestAlphaPassBound: a ray passes through at most MaxAlphaPasses
// surfaces; the next one stops it.
func TestAlphaPassBound(t *testing.T) {
	d := &SceneDesc{
		Settings:  Settings{Width: 1, Height: 1, Samples: 1},
		Camera:    CameraDesc{Position: mgl32.Vec3{0, 0, -1}, LookAt: mgl32.Vec3{0, 0, 0}, Up: mgl32.Vec3{0, 1, 0}, FOV: 40},
		Materials: []Material{{Kind: MaterialDiffuse, Texture: NoTexture, AlphaMode: AlphaMask, Alpha: 0, AlphaCutoff: 0.5}},
	}
	for k := 0; k < MaxAlphaPasses+3; k++ {
		d.Quads = append(d.Quads, QuadDesc{Corner: mgl32.Vec3{-1, -1, float32(k)}, Edge1: mgl32.Vec3{2, 0, 0}, Edge2: mgl32.Vec3{0, 2, 0}})
	}
	s, err := Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	var smp Sampler
	var st Stats
	r := Ray{Origin: vec3{0, 0, -1}, Dir: vec3{0, 0, 1}, TMax: infinity}
	h := s.intersectSeen(&r, &smp, 0, &st)
	if h.Kind != HitShape || st.Rays != MaxAlphaPasses {
		t.Fatalf("hit %d after %d extra queries, want a quad after %d", h.Kind, st.Rays, MaxAlphaPasses)
	}
	if z := r.At(h.T)[2]; math.Abs(float64(z-MaxAlphaPasses)) > 1e-3 {
		t.Errorf("stopped at z = %g, want %d", z, MaxAlphaPasses)
	}
	if !s.occludedSeen(Ray{Origin: vec3{0, 0, -1}, Dir: vec3{0, 0, 1}, TMax: 100}, &smp, 0, false, &st) {
		t.Error("a shadow ray through more than MaxAlphaPasses surfaces is not blocked")
	}
	if s.occludedSeen(Ray{Origin: vec3{0, 0, -1}, Dir: vec3{0, 0, 1}, TMax: 5.5}, &smp, 0, false, &st) {
		t.Error("a shadow ray through 6 transparent surfaces is blocked")
	}
}

// TestCheckAlpha: bad alpha fields are refused by name.
func TestCheckAlpha(t *testing.T) {
	for _, m := range []Material{
		{AlphaMode: 3},
		{AlphaMode: AlphaMask, Alpha: 1, AlphaCutoff: 1.5},
		{AlphaMode: AlphaBlend, Alpha: -0.1},
		{AlphaMode: AlphaMask, Alpha: 1, AlphaCutoff: 0.5, AlphaMap: 9},
	} {
		if err := checkAlpha(&m, 1); err == nil {
			t.Errorf("%+v: no error", m)
		}
	}
	if err := checkAlpha(&Material{AlphaMode: AlphaMask, Alpha: 1, AlphaCutoff: 0.5, AlphaMap: 1}, 1); err != nil {
		t.Error(err)
	}
}
