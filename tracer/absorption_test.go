package tracer

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// TestAbsorptionCoefficient: light that travels AttenuationDistance
// inside keeps AttenuationColor of itself, and at x the colour to the
// power x/d; a channel of colour 1 keeps everything (σ = 0), one of
// colour 0 nothing past the shortest distance, and none is ever NaN.
func TestAbsorptionCoefficient(t *testing.T) {
	c, d := vec3{0.5, 0.8, 1}, float32(0.3)
	sigma := absorptionCoefficient(c, d)
	for _, x := range []float32{0, 0.1, 0.3, 0.75, 3} {
		got := transmittance(sigma, x)
		for i := range got {
			want := math.Pow(float64(c[i]), float64(x/d))
			if math.Abs(float64(got[i])-want) > 2e-6*max(want, 1e-30)+1e-37 {
				t.Errorf("colour %g over %g, at %g: keeps %g, want %g", c[i], d, x, got[i], want)
			}
		}
	}
	if sigma[2] != 0 {
		t.Errorf("colour 1: σ %g, want 0", sigma[2])
	}
	black := absorptionCoefficient(vec3{0, 0.5, 0}, 1e-30)
	for _, x := range []float32{0, 1e-36, 1, 1e30, 3.4e38} {
		got := transmittance(black, x)
		for i, v := range got {
			if v != v || v < 0 || v > 1 {
				t.Errorf("σ %g at %g: %g", black[i], x, v)
			}
		}
		if x == 0 && got != (vec3{1, 1, 1}) {
			t.Errorf("σ %v at 0: %v, want all kept", black, got)
		}
		if x >= 1e-36 && got[0] != 0 {
			t.Errorf("colour 0 at %g: keeps %g, want 0", x, got[0])
		}
	}
}

// TestAbsorbingSlab: a camera looks straight through a slab of absorbing
// glass (two parallel quads facing out, thickness 2) at a uniform
// background. At normal incidence each crossing keeps a = exp(−σ·2) =
// colour^(2/distance) and each surface reflects R = ((n − 1)/(n + 1))²,
// both ways; every bounce stays on the axis and every way out sees the
// background, so the radiance is the closed form
//
//	L/B = R + (1 − R)² a / (1 − R a)
//
// (the front reflection, then the light through the glass with its
// internal reflections, leaving on either side). Index 1 reflects
// nothing: L/B = a. Without absorption L/B is 1 whatever the index.
// Whitted ray tracing sums the series to max_depth (64: the rest is
// below R³²) deterministically, within float32 rounding (1e-5); path
// tracing samples it (4096 stratified samples: within 0.2 %; 0.02 %
// measured).
func TestAbsorbingSlab(t *testing.T) {
	color, dist, thick := vec3{0.5, 0.8, 1}, float32(1), float32(2)
	bg := vec3{0.9, 1, 1.2}
	for _, ior := range []float32{1, 1.5} {
		for _, integ := range []Integrator{IntegratorWhitted, IntegratorPath} {
			name := fmt.Sprintf("ior %g, integrator %d", ior, integ)
			d := &SceneDesc{
				Settings:   Settings{Width: 1, Height: 1, Samples: 1, MaxDepth: MaxDepth, Integrator: integ, Seed: 3},
				Camera:     CameraDesc{Position: mgl32.Vec3{0, 0, -5}, LookAt: mgl32.Vec3{0, 0, 0}, Up: mgl32.Vec3{0, 1, 0}, FOV: 0.5},
				Background: Background{Kind: BackgroundColor, Color: bg},
				Materials: []Material{{Kind: MaterialDielectric, Texture: NoTexture, Color: vec3{1, 1, 1}, IOR: ior,
					AttenuationColor: color, AttenuationDistance: dist}},
				Quads: []QuadDesc{
					{Corner: mgl32.Vec3{-50, -50, 0}, Edge1: mgl32.Vec3{0, 100, 0}, Edge2: mgl32.Vec3{100, 0, 0}},     // facing −z, the camera
					{Corner: mgl32.Vec3{-50, -50, thick}, Edge1: mgl32.Vec3{100, 0, 0}, Edge2: mgl32.Vec3{0, 100, 0}}, // facing +z
				},
			}
			tol := 1e-5
			if integ == IntegratorPath {
				d.Settings.Samples, tol = 4096, 2e-3
			}
			s, err := Compile(d)
			if err != nil {
				t.Fatal(err)
			}
			var st Stats
			got := s.RenderPixel(0, 0, &st)
			r := math.Pow(float64((ior-1)/(ior+1)), 2)
			for i := range got {
				a := math.Pow(float64(color[i]), float64(thick/dist))
				want := float64(bg[i]) * (r + (1-r)*(1-r)*a/(1-r*a))
				if e := math.Abs(float64(got[i])/want - 1); !(e < tol) {
					t.Errorf("%s: channel %d: %g, want %g (relative error %.2g, tolerance %g)", name, i, got[i], want, e, tol)
				}
			}
		}
	}
}

// TestAbsorptionChecked: Compile refuses an attenuation it cannot use.
func TestAbsorptionChecked(t *testing.T) {
	for _, tc := range []struct {
		color vec3
		dist  float32
		want  string
	}{
		{vec3{0.5, 0.5, 0.5}, -1, "materials[0]: attenuation distance -1 is not a positive finite number"},
		{vec3{0.5, 0.5, 0.5}, float32(math.Inf(1)), "materials[0]: attenuation distance +Inf is not a positive finite number"},
		{vec3{0.5, 1.5, 0.5}, 1, "materials[0]: attenuation colour [0.5 1.5 0.5] is outside [0, 1]"},
		{vec3{0.5, float32(math.NaN()), 0.5}, 1, "materials[0]: attenuation colour [0.5 NaN 0.5] is outside [0, 1]"},
	} {
		d := &SceneDesc{
			Settings:  Settings{Width: 1, Height: 1, Samples: 1, MaxDepth: 1},
			Camera:    CameraDesc{Position: mgl32.Vec3{0, 0, -5}, Up: mgl32.Vec3{0, 1, 0}, FOV: 40},
			Materials: []Material{{Kind: MaterialDielectric, Texture: NoTexture, IOR: 1.5, AttenuationColor: tc.color, AttenuationDistance: tc.dist}},
		}
		if _, err := Compile(d); err == nil || err.Error() != tc.want {
			t.Errorf("colour %v, distance %g: error %v, want %q", tc.color, tc.dist, err, tc.want)
		}
	}
}
