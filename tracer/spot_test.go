package tracer

import (
	"math"
	"testing"
)

// TestSpotFactor: a spot light's share of its intensity follows
// KHR_lights_punctual's reference falloff, (clamp((cos θ − cos outer) /
// (cos inner − cos outer), 0, 1))², full within the inner cone, zero past
// the outer; a point light (zero SpotDir) shines fully everywhere.
func TestSpotFactor(t *testing.T) {
	const inner, outer = 0.2, 0.5
	l := PointLight{SpotDir: vec3{0, -1, 0}}
	l.SpotScale, l.SpotOffset = SpotCone(inner, outer)
	ref := func(theta float64) float64 {
		a := (math.Cos(theta) - math.Cos(outer)) / (math.Cos(inner) - math.Cos(outer))
		a = math.Max(0, math.Min(1, a))
		return a * a
	}
	for _, theta := range []float64{0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.49, 0.5, 0.6, 1.5, 3} {
		// dir runs from the lit point up to the light, theta off the axis.
		dir := vec3{float32(-math.Sin(theta)), float32(math.Cos(theta)), 0}
		got := float64(spotFactor(&l, dir))
		if want := ref(theta); math.Abs(got-want) > 1e-5 {
			t.Errorf("θ = %g: spotFactor %g, glTF's falloff %g", theta, got, want)
		}
		if p := (PointLight{}); spotFactor(&p, dir) != 1 {
			t.Errorf("θ = %g: a point light's factor is %g, want 1", theta, spotFactor(&p, dir))
		}
	}
	// inner = outer: glTF's 0.001 floor on the denominator keeps the
	// factor finite, a hard edge.
	l.SpotScale, l.SpotOffset = SpotCone(outer, outer)
	if f := spotFactor(&l, vec3{0, 1, 0}); f != 1 {
		t.Errorf("inner = outer, on the axis: %g, want 1", f)
	}
	if f := spotFactor(&l, vec3{float32(-math.Sin(0.6)), float32(math.Cos(0.6)), 0}); f != 0 {
		t.Errorf("inner = outer, outside: %g, want 0", f)
	}
}

// TestSpotLightRender: a spot light pointing down at a floor lights the
// floor under it and not past its cone, under both integrators; turned
// to point up, it lights nothing.
func TestSpotLightRender(t *testing.T) {
	for _, integ := range []Integrator{IntegratorPath, IntegratorWhitted} {
		for _, dir := range []vec3{{0, -1, 0}, {0, 1, 0}} {
			l := PointLight{Position: vec3{0, 2, 0}, Color: vec3{1, 1, 1}, Intensity: 10, SpotDir: dir}
			l.SpotScale, l.SpotOffset = SpotCone(0.2, 0.3) // a spot 2·tan 0.3 ≈ 0.62 across on the floor
			s, err := Compile(&SceneDesc{
				Settings:  Settings{Width: 9, Height: 9, Samples: 1, MaxDepth: 1, Integrator: integ, Seed: 1},
				Camera:    CameraDesc{Position: vec3{0, 5, 0}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 0, 1}, FOV: 60},
				Materials: []Material{{Kind: MaterialDiffuse, Texture: NoTexture, Color: vec3{0.5, 0.5, 0.5}}},
				Planes:    []PlaneDesc{{Normal: vec3{0, 1, 0}}},
				Lights:    []PointLight{l},
			})
			if err != nil {
				t.Fatal(err)
			}
			var st Stats
			centre, corner := s.RenderPixel(4, 4, &st), s.RenderPixel(0, 0, &st)
			lit := dir[1] < 0
			if (centre[0] > 0) != lit || corner != (vec3{}) {
				t.Errorf("integrator %d, spot pointing %v: centre %v, corner %v; want the centre lit %v, the corner black", integ, dir, centre, corner, lit)
			}
		}
	}
}
