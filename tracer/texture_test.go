package tracer

import (
	"math"
	"testing"
)

func TestChecker(t *testing.T) {
	even, odd := vec3{1, 1, 1}, vec3{0, 0, 0}
	s := &Scene{Textures: []Texture{{Kind: TextureChecker, Scale: 2, Even: even, Odd: odd}}}
	m := &Material{Texture: 0}
	tests := []struct {
		u, v float32
		want vec3
	}{
		{0.1, 0.1, even},   // floor 0 + floor 0
		{0.6, 0.1, odd},    // 1 + 0
		{0.6, 0.6, even},   // 1 + 1
		{-0.1, 0.1, odd},   // −1 + 0: floor, not truncation
		{-0.1, -0.1, even}, // −1 + −1
		{1e30, 0.1, even},  // far away: defined, no overflow
		{0.5, 0, odd},      // on a boundary the upper check wins
	}
	for _, tc := range tests {
		if got := s.color(m, at(tc.u, tc.v)); got != tc.want {
			t.Errorf("checker(%v, %v) = %v, want %v", tc.u, tc.v, got, tc.want)
		}
	}
	plain := &Material{Texture: NoTexture, Color: vec3{0.1, 0.2, 0.3}}
	if got := s.color(plain, at(0.6, 0.1)); got != plain.Color {
		t.Errorf("untextured colour %v, want %v", got, plain.Color)
	}
}

func TestGradientBackground(t *testing.T) {
	s := &Scene{Background: Background{Kind: BackgroundGradient, Bottom: vec3{1, 0, 0}, Top: vec3{0, 0, 1}}}
	for _, tc := range []struct {
		d    vec3
		want vec3
	}{
		{vec3{0, 1, 0}, vec3{0, 0, 1}},
		{vec3{0, -1, 0}, vec3{1, 0, 0}},
		{vec3{1, 0, 0}, vec3{0.5, 0, 0.5}},
	} {
		if got := s.background(tc.d); got != tc.want {
			t.Errorf("background(%v) = %v, want %v", tc.d, got, tc.want)
		}
	}
}

func TestImageTextureBilinearRepeat(t *testing.T) {
	// A 2×2 image: top row red, green; bottom row blue, white.
	red, green, blue, white := vec3{1, 0, 0}, vec3{0, 1, 0}, vec3{0, 0, 1}, vec3{1, 1, 1}
	d := &SceneDesc{
		Settings:  Settings{Width: 1, Height: 1, Samples: 1},
		Camera:    CameraDesc{Position: vec3{0, 0, -1}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 1, 0}, FOV: 40},
		Images:    []Image{{Width: 2, Height: 2, Pix: []float32{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}}},
		Textures:  []Texture{{Kind: TextureImage, Image: 0}},
		Materials: []Material{{Texture: 0}},
	}
	s, err := Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	m := &s.Materials[0]
	avg := func(cs ...vec3) vec3 {
		var sum vec3
		for _, c := range cs {
			sum = sum.Add(c)
		}
		return scale(sum, 1/float32(len(cs)))
	}
	tests := []struct {
		u, v float32
		want vec3
	}{
		{0.25, 0.75, red},   // texel centres: (0,0) is the bottom-left
		{0.75, 0.75, green}, // top right
		{0.25, 0.25, blue},
		{0.75, 0.25, white},
		{0.5, 0.75, avg(red, green)},                   // between two texels
		{0.5, 0.5, avg(red, green, blue, white)},       // the middle
		{0, 0.75, avg(red, green)},                     // the left edge wraps to the right column
		{1.25, -0.75, blue},                            // repeat in both directions
		{-3.75, 7.75, red},                             // far repeats
		{float32(math.Inf(1)), 0.25, avg(blue, white)}, // no crash on infinity
	}
	for _, tc := range tests {
		got := s.color(m, at(tc.u, tc.v))
		for i := 0; i < 3; i++ {
			if !near(got[i], tc.want[i], 1e-6) {
				t.Errorf("(%v, %v) = %v, want %v", tc.u, tc.v, got, tc.want)
				break
			}
		}
	}
}

func TestEquirectangularBackground(t *testing.T) {
	// A 4×2 panorama with a distinct value in every texel.
	pix := make([]float32, 4*2*3)
	for i := range 8 {
		pix[3*i] = float32(i)
	}
	s := &Scene{
		Textures:   []Texture{{Kind: TextureImage, Width: 4, Height: 2}},
		Texels:     pix,
		Background: Background{Kind: BackgroundImage, Texture: 0},
	}
	up := s.background(vec3{0, 1, 0})
	down := s.background(vec3{0, -1, 0})
	// Straight up is the top row, straight down the bottom row.
	if !(up[0] < 4 && down[0] >= 4-1e-6) {
		t.Errorf("up %v down %v: want top row values (0..3) up and bottom row (4..7) down", up, down)
	}
	// Looking along +z sees the centre column, between texels 1 and 2 of
	// the middle rows; −x is to its right.
	fwd := s.background(vec3{0, 0, 1})
	if !near(fwd[0], 3.5, 1e-5) {
		t.Errorf("+z gives %v, want 3.5 (centre of the image)", fwd[0])
	}
	right, left := s.background(vec3{-1, 0, 0}), s.background(vec3{1, 0, 0})
	if !(right[0] > fwd[0] && left[0] < fwd[0]) {
		t.Errorf("−x %v, +z %v, +x %v: want −x right of the centre (larger u)", right[0], fwd[0], left[0])
	}
}

// TestImageTint: an image texture's colour is its texel times the tint in
// Even, applied at shading time; a zero tint is none.
func TestImageTint(t *testing.T) {
	for _, tc := range []struct {
		tint, want vec3
	}{{vec3{}, vec3{0.5, 0.25, 1}}, {vec3{1, 1, 1}, vec3{0.5, 0.25, 1}}, {vec3{2, 0.5, 0}, vec3{1, 0.125, 0}}} {
		s := compileTest(t, &SceneDesc{
			Images:    []Image{{Width: 1, Height: 1, Pix: []float32{0.5, 0.25, 1}}},
			Textures:  []Texture{{Kind: TextureImage, Image: 0, Even: tc.tint}},
			Materials: []Material{{Kind: MaterialDiffuse, Texture: 0}},
		})
		if got := s.color(&s.Materials[0], at(0.3, 0.7)); got != tc.want {
			t.Errorf("tint %v: colour %v, want %v", tc.tint, got, tc.want)
		}
	}
}

// TestTextureUVTransform: a texture's UV transform scales, rotates and
// moves the coordinates before the lookup; none (all zero) leaves them.
func TestTextureUVTransform(t *testing.T) {
	even, odd := vec3{1, 1, 1}, vec3{0, 0, 0}
	plain := Texture{Kind: TextureChecker, Scale: 1, Even: even, Odd: odd}
	scaled := plain
	scaled.UV = [6]float32{3, 0, 0, 3, 0, 0}
	rotated := plain // 90° counter-clockwise: (u, v) → (−v, u)
	rotated.UV = [6]float32{0, -1, 1, 0, 0, 0}
	moved := plain
	moved.UV = [6]float32{1, 0, 0, 1, 0.5, 0}
	s := &Scene{Textures: []Texture{plain, scaled, rotated, moved}}
	col := func(i int32, u, v float32) vec3 { return s.color(&Material{Texture: i}, at(u, v)) }
	for _, p := range [][2]float32{{0.1, 0.2}, {0.45, 0.1}, {1.3, -0.7}, {-2.2, 0.9}} {
		u, v := p[0], p[1]
		if got, want := col(1, u, v), col(0, 3*u, 3*v); got != want {
			t.Errorf("scale 3 at (%g, %g): %v, want the plain checker's at (%g, %g), %v", u, v, got, 3*u, 3*v, want)
		}
		if got, want := col(2, u, v), col(0, -v, u); got != want {
			t.Errorf("rotation 90° at (%g, %g): %v, want %v", u, v, got, want)
		}
		if got, want := col(3, u, v), col(0, u+0.5, v); got != want {
			t.Errorf("offset 0.5 at (%g, %g): %v, want %v", u, v, got, want)
		}
	}
	// The transform changes something: a point whose check flips.
	if col(3, 0.75, 0.25) == col(0, 0.75, 0.25) {
		t.Error("an offset of half a check left the colour as it was")
	}
}

// TestPBRMaps: a metallic-roughness map's blue scales metallic and its
// green roughness; an emission map multiplies the emission; no map leaves
// the factors.
func TestPBRMaps(t *testing.T) {
	s := &Scene{Textures: []Texture{{Kind: TextureChecker, Scale: 1, Even: vec3{0.1, 0.5, 0.25}, Odd: vec3{1, 1, 1}}}}
	m := &Material{Kind: MaterialPBR, Metallic: 0.8, Roughness: 0.6, Emission: vec3{2, 4, 8}, RoughMap: 1, EmissionMap: 1}
	metal, rough := s.pbrParams(m, at(0.5, 0.5)) // the even check
	if metal != float32(0.8*0.25) || rough != float32(0.6*0.5) {
		t.Errorf("metallic %g, roughness %g; want %g, %g", metal, rough, float32(0.8*0.25), float32(0.6*0.5))
	}
	if got, want := s.emission(m, at(0.5, 0.5)), (vec3{0.2, 2, 2}); got != want {
		t.Errorf("emission %v, want %v", got, want)
	}
	plain := &Material{Kind: MaterialPBR, Metallic: 0.8, Roughness: 0.6, Emission: vec3{2, 4, 8}}
	if metal, rough := s.pbrParams(plain, at(0.5, 0.5)); metal != 0.8 || rough != 0.6 || s.emission(plain, at(0.5, 0.5)) != plain.Emission {
		t.Errorf("no maps: metallic %g, roughness %g, emission %v", metal, rough, s.emission(plain, at(0.5, 0.5)))
	}
}

// at returns the texture coordinates of a shape's point (u, v).
func at(u, v float32) *texCoords {
	tc := shapeCoords(u, v)
	return &tc
}
