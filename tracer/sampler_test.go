package tracer

import (
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// samplerScene returns a scene with one 4×1 image whose texels are grey
// levels 0, 1, 2, 3 (left to right), and one texture of it with the given
// sampler.
func samplerScene(ws, wt Wrap, f Filter) *Scene {
	s := &Scene{Texels: []float32{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3}}
	s.Textures = []Texture{{Kind: TextureImage, Even: vec3{1, 1, 1}, Width: 4, Height: 1, WrapS: ws, WrapT: wt, Filter: f}}
	return s
}

// TestWrapModes: coordinates outside [0, 1] under each wrap mode give the
// texel (nearest) or blend (linear) the documented formulas say.
func TestWrapModes(t *testing.T) {
	for _, tc := range []struct {
		wrap   Wrap
		filter Filter
		u      float32
		want   float32
	}{
		{WrapRepeat, FilterNearest, 1.1, 0}, {WrapClamp, FilterNearest, 1.1, 3}, {WrapMirror, FilterNearest, 1.1, 3},
		{WrapRepeat, FilterNearest, -0.3, 2}, {WrapClamp, FilterNearest, -0.3, 0}, {WrapMirror, FilterNearest, -0.3, 1},
		{WrapRepeat, FilterNearest, 1, 0}, {WrapClamp, FilterNearest, 1, 3}, {WrapMirror, FilterNearest, 1, 3},
		{WrapMirror, FilterNearest, 2.3, 1}, {WrapMirror, FilterNearest, -1.9, 0}, {WrapClamp, FilterNearest, 1e30, 3},
		{WrapClamp, FilterLinear, 1.5, 3}, {WrapClamp, FilterLinear, -7, 0}, {WrapMirror, FilterLinear, -0.125, 0},
		{WrapMirror, FilterLinear, 1.125, 3}, {WrapRepeat, FilterLinear, 2, 1.5}, {WrapClamp, FilterLinear, 0, 0},
		{WrapMirror, FilterLinear, 3.0625, 3}, {WrapMirror, FilterLinear, 0.25, 0.5},
	} {
		s := samplerScene(tc.wrap, WrapClamp, tc.filter)
		got := s.textureAt(0, tc.u, 0.5)
		if got != (vec3{tc.want, tc.want, tc.want}) {
			t.Errorf("wrap %d filter %d u %g: %v, want %g", tc.wrap, tc.filter, tc.u, got, tc.want)
		}
	}
}

// TestNearestVersusLinear: at the boundary between texels 1 and 2
// (u = ½), nearest takes texel 2 (the boundary belongs to the texel on
// its right) and linear blends texels 1 and 2 by their distance to the
// texel centres at u = 3/8 and 5/8.
func TestNearestVersusLinear(t *testing.T) {
	for _, tc := range []struct {
		f    Filter
		u    float32
		want float32
	}{{FilterNearest, 0.5, 2}, {FilterLinear, 0.5, 1.5}, {FilterNearest, 0.49, 1}, {FilterLinear, 0.375, 1}, {FilterLinear, 0.5625, 1.75}} {
		if got := samplerScene(WrapRepeat, WrapRepeat, tc.f).textureAt(0, tc.u, 0.5); got[0] != tc.want {
			t.Errorf("filter %d at u %g: %g, want %g", tc.f, tc.u, got[0], tc.want)
		}
	}
}

// TestSampleWrappedRepeatLinear: the general sampler, on the default
// sampler's settings, gives sampleImage's bits (which textureAt uses for
// it), so the fast path and the general one agree.
func TestSampleWrappedRepeatLinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := &Scene{}
	for i := 0; i < 3*5*3; i++ {
		s.Texels = append(s.Texels, rng.Float32())
	}
	tex := &Texture{Kind: TextureImage, Width: 5, Height: 3}
	for i := 0; i < 10000; i++ {
		u, v := float32(rng.NormFloat64()*3), float32(rng.NormFloat64()*3)
		if a, b := s.sampleWrapped(tex, u, v), s.sampleImage(tex, u, v, false); a != b {
			t.Fatalf("(%g, %g): general %v, repeat-linear %v", u, v, a, b)
		}
	}
}

// TestSecondUVSetAndVertexColours: a mesh with two coordinate sets and
// vertex colours; a texture on set 1 reads the second set, one on set 0
// the first, and the material colour is multiplied by the interpolated
// vertex colour.
func TestSecondUVSetAndVertexColours(t *testing.T) {
	img := Image{Width: 4, Height: 1, Pix: []float32{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3}}
	d := &SceneDesc{
		Settings: Settings{Width: 1, Height: 1, Samples: 1},
		Camera:   CameraDesc{Position: mgl32.Vec3{0, 0, -1}, Up: mgl32.Vec3{0, 1, 0}, FOV: 40},
		Images:   []Image{img},
		Textures: []Texture{
			{Kind: TextureImage, Image: 0, Filter: FilterNearest},
			{Kind: TextureImage, Image: 0, Filter: FilterNearest, TexCoord: 1},
		},
		Materials: []Material{{Kind: MaterialDiffuse, Texture: 0}, {Kind: MaterialDiffuse, Texture: 1}},
		Meshes: []MeshDesc{{
			Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
			UVs:       []mgl32.Vec2{{0.1, 0.5}, {0.1, 0.5}, {0.1, 0.5}}, // texel 0
			UV1s:      []mgl32.Vec2{{0.6, 0.5}, {0.6, 0.5}, {0.6, 0.5}}, // texel 2
			Colors:    []mgl32.Vec3{{1, 0.5, 0.25}, {1, 0.5, 0.25}, {1, 0.5, 0.25}},
			Indices:   []uint32{0, 1, 2},
		}},
	}
	d.Camera.LookAt = mgl32.Vec3{0, 0, 0}
	s, err := Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	a := &s.TriangleAttrs[0]
	if a.Flags&(TriangleUV1|TriangleColor) != TriangleUV1|TriangleColor || len(s.UV1) != 3 || len(s.Colors) != 3 {
		t.Fatalf("flags %#x, %d second uvs, %d colours", a.Flags, len(s.UV1), len(s.Colors))
	}
	tc := s.triangleCoords(a, 0.25, 0.25)
	if got := s.color(&s.Materials[0], &tc); got != (vec3{0, 0, 0}) {
		t.Errorf("set 0: %v, want texel 0 (black)", got)
	}
	if got, want := s.color(&s.Materials[1], &tc), (vec3{2, 1, 0.5}); got != want {
		t.Errorf("set 1: %v, want texel 2 × the vertex colour %v", got, want)
	}
	// No second set: set 1 falls back to set 0; no colours: white.
	d.Meshes[0].UV1s, d.Meshes[0].Colors = nil, nil
	if s, err = Compile(d); err != nil {
		t.Fatal(err)
	}
	tc = s.triangleCoords(&s.TriangleAttrs[0], 0.25, 0.25)
	if got := s.color(&s.Materials[1], &tc); got != (vec3{0, 0, 0}) || len(s.UV1) != 0 || len(s.Colors) != 0 {
		t.Errorf("without a second set: %v (%d, %d)", got, len(s.UV1), len(s.Colors))
	}
}

// TestNormalMappedMeshKeepsSetOneAndColours: a normal-mapped mesh (its
// vertices laid out with tangents) keeps its second texture coordinate set
// and its vertex colours, beside a mesh without a normal map that has
// them too.
func TestNormalMappedMeshKeepsSetOneAndColours(t *testing.T) {
	img := Image{Width: 4, Height: 1, Pix: []float32{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3}}
	flat := Image{Width: 1, Height: 1, Pix: []float32{0.5, 0.5, 1}}
	tri := func(x float32, c mgl32.Vec3) MeshDesc {
		return MeshDesc{
			Positions: []mgl32.Vec3{{x, 0, 0}, {x + 1, 0, 0}, {x, 1, 0}},
			UVs:       []mgl32.Vec2{{0.1, 0.5}, {0.9, 0.5}, {0.1, 0.9}},
			UV1s:      []mgl32.Vec2{{0.6, 0.5}, {0.6, 0.5}, {0.6, 0.5}}, // texel 2
			Colors:    []mgl32.Vec3{c, c, c},
			Indices:   []uint32{0, 1, 2},
		}
	}
	plain, mapped := tri(0, mgl32.Vec3{1, 0.5, 0.25}), tri(2, mgl32.Vec3{0.5, 1, 0.5})
	plain.Material, mapped.Material = 0, 1
	d := &SceneDesc{
		Settings: Settings{Width: 1, Height: 1, Samples: 1},
		Camera:   CameraDesc{Position: mgl32.Vec3{0, 0, -1}, LookAt: mgl32.Vec3{0, 0, 0}, Up: mgl32.Vec3{0, 1, 0}, FOV: 40},
		Images:   []Image{img, flat},
		Textures: []Texture{
			{Kind: TextureImage, Image: 0, Filter: FilterNearest, TexCoord: 1},
			{Kind: TextureImage, Image: 1, Filter: FilterNearest},
		},
		Materials: []Material{
			{Kind: MaterialDiffuse, Texture: 0},
			{Kind: MaterialDiffuse, Texture: 0, NormalMap: 2}, // texture 1, 1-based
		},
		Meshes: []MeshDesc{plain, mapped},
	}
	s, err := Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []vec3{{2, 1, 0.5}, {1, 2, 1}} {
		var a *TriangleAttr
		for k := range s.TriangleAttrs {
			if s.TriangleAttrs[k].Material == uint32(i) {
				a = &s.TriangleAttrs[k]
			}
		}
		if a == nil {
			t.Fatalf("no triangle of material %d", i)
		}
		if i == 1 && a.Flags&TriangleTangent == 0 {
			t.Fatalf("the normal-mapped mesh has no tangents (flags %#x)", a.Flags)
		}
		tc := s.triangleCoords(a, 0.25, 0.25)
		if got := s.color(&s.Materials[i], &tc); got != want {
			t.Errorf("mesh %d: colour %v, want texel 2 of set 1 × its vertex colour, %v", i, got, want)
		}
	}
}
