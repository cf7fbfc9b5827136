package tracer

import (
	"math"
	"testing"
)

// directionalScene is a diffuse floor of albedo rho at y = 0 under one
// directional light whose direction toward the light is toward, seen by
// a camera at eye looking straight down, with the given shapes above it.
func directionalScene(t *testing.T, integ Integrator, eye, toward vec3, e float32, rho float32, spheres []SphereDesc) *Scene {
	t.Helper()
	s, err := Compile(&SceneDesc{
		Settings:  Settings{Width: 3, Height: 3, Samples: 4, MaxDepth: 1, Integrator: integ, Seed: 1},
		Camera:    CameraDesc{Position: eye, LookAt: vec3{eye[0], 0, eye[2]}, Up: vec3{0, 0, 1}, FOV: 10},
		Materials: []Material{{Kind: MaterialDiffuse, Texture: NoTexture, Color: vec3{rho, rho, rho}}},
		Planes:    []PlaneDesc{{Normal: vec3{0, 1, 0}}},
		Spheres:   spheres,
		Lights:    []PointLight{{Position: toward, Color: vec3{1, 0.5, 0.25}, Intensity: e, Falloff: FalloffDirectional}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDirectionalLightClosedForm: a diffuse floor of albedo ρ under a
// directional light of irradiance E arriving θ off its normal has
// radiance ρ/π · E · cos θ (path; the Lambert term ρ · E · cos θ under
// whitted), the same at every distance, and none once the light is below
// the horizon. A delta light's next-event estimate has no noise, so the
// tolerance is float32 rounding.
func TestDirectionalLightClosedForm(t *testing.T) {
	const rho, e = 0.5, 3
	col := [3]float64{1, 0.5, 0.25}
	for _, integ := range []Integrator{IntegratorPath, IntegratorWhitted} {
		for _, deg := range []float64{0, 30, 60, 85, 100} {
			th := deg * math.Pi / 180
			toward := vec3{float32(math.Sin(th)), float32(math.Cos(th)), 0}
			for _, eye := range []vec3{{0, 2, 0}, {70, 2000, -30}} {
				s := directionalScene(t, integ, eye, toward, e, rho, nil)
				var st Stats
				got := s.RenderPixel(1, 1, &st)
				for c := range 3 {
					want := rho * e * col[c] * math.Max(0, math.Cos(th))
					if integ == IntegratorPath {
						want /= math.Pi
					}
					if math.Abs(float64(got[c])-want) > 1e-5*math.Max(want, 1e-3) {
						t.Errorf("integrator %d, θ = %g°, eye %v: channel %d = %g, want %g", integ, deg, eye, c, got[c], want)
					}
				}
			}
		}
	}
}

// TestDirectionalLightShadow: a sphere between the floor and a
// directional light shades the point of the floor behind it along the
// light's direction, however far the light is; the same point with the
// light turned away from the sphere's line is lit.
func TestDirectionalLightShadow(t *testing.T) {
	// The light comes from +x+y at 45°: the line from (−1, 0, 0) toward it
	// runs through the sphere's centre (0, 1, 0); the camera looks down
	// at (−1, 0, 0), its rays passing 1 away from that centre.
	sphere := []SphereDesc{{Center: vec3{0, 1, 0}, Radius: 0.5}}
	r := float32(math.Sqrt(0.5))
	for _, integ := range []Integrator{IntegratorPath, IntegratorWhitted} {
		var st Stats
		shaded := directionalScene(t, integ, vec3{-1, 5, 0}, vec3{r, r, 0}, 3, 0.5, sphere).RenderPixel(1, 1, &st)
		lit := directionalScene(t, integ, vec3{-1, 5, 0}, vec3{-r, r, 0}, 3, 0.5, sphere).RenderPixel(1, 1, &st)
		if shaded != (vec3{}) || !(lit[0] > 0.3) {
			t.Errorf("integrator %d: behind the sphere %v, want black; on the other side %v, want lit", integ, shaded, lit)
		}
	}
}
