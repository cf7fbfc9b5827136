package tracer

import (
	"math"
	"testing"
)

// TestPBRSpecularMapLambert: a pbr quad of the default specular whose
// SpecularMap (glTF's specularTexture) has alpha 0 on the half u < 0.5
// and 1 on the other, under a uniform white sky, is pure Lambert on the
// first half, its radiance the base colour (as TestPBRSpecularLambert's
// specular 0), within 4 standard errors of the mean, and not on the
// other; the map's colours (white) do not count, only its alpha.
func TestPBRSpecularMapLambert(t *testing.T) {
	base := vec3{0.6, 0.4, 0.2}
	f0, f90 := PBRSpecular(1.5, 1, [3]float64{1, 1, 1})
	s := compileTest(t, &SceneDesc{
		Settings:   Settings{MaxDepth: 1},
		Camera:     CameraDesc{Position: vec3{0, 1, -1}, LookAt: vec3{0, 0, 0}},
		Background: Background{Color: vec3{1, 1, 1}},
		Materials: []Material{{Kind: MaterialPBR, Texture: NoTexture, Color: base, Roughness: 0.5,
			SpecularF0: f0, SpecularF90: f90, DielectricSpecular: 1, SpecularMap: 1}},
		Textures: []Texture{{Kind: TextureImage, Image: 0, Filter: FilterNearest}},
		Images:   []Image{{Width: 2, Height: 1, Pix: []float32{1, 1, 1, 1, 1, 1}, Alpha: []float32{0, 1}}},
		// u runs along z, from -10 to 10.
		Quads: []QuadDesc{{Corner: vec3{-10, 0, -10}, Edge1: vec3{0, 0, 20}, Edge2: vec3{20, 0, 0}}},
	})
	for _, tc := range []struct {
		z       float32 // where the ray meets the quad: u = (z + 10)/20
		lambert bool
	}{{-5, true}, {5, false}} {
		// A ray at 45° to the quad: one bounce, then the sky.
		r := Ray{Origin: vec3{0, 1, tc.z - 1}, Dir: normalize(vec3{0, -1, 1}), TMax: infinity}
		mean, se := pathMeanSE(s, r, 40000)
		for k := range 3 {
			off := math.Abs(mean[k]-float64(base[k])) > 4*se[k]+1e-6
			if tc.lambert == off {
				t.Errorf("u %g: channel %d radiance %.5f ± %.5f, base colour %g: want Lambert %v", (tc.z+10)/20, k, mean[k], se[k], base[k], tc.lambert)
			}
		}
	}
}

// TestPBRSpecularColorMapConstant: a SpecularColorMap of one colour
// everywhere (a checker of equal squares) renders the same bits as that
// colour as the specular colour factor, the map's F0 unclamped
// (PBRSpecularUnclamped) and clamped to F90 after the map, path traced
// and Whitted; the colour's components are powers of two, so that the
// factor's F0 (computed in float64 and rounded once) and the map's
// (rounded, then scaled in float32) are the same numbers. The red one
// passes 1 before the factor and is clamped on both sides. A map of
// another colour renders differently.
func TestPBRSpecularColorMapConstant(t *testing.T) {
	color := [3]float64{64, 0.5, 0.25} // F0 at ior 1.5: 2.56 (clamped to 1), 0.02, 0.01
	for _, integ := range []Integrator{IntegratorPath, IntegratorWhitted} {
		render := func(m Material, tex []Texture) []vec3 {
			d := &SceneDesc{
				Settings:   Settings{Width: 12, Height: 10, Samples: 4, MaxDepth: 3, Integrator: integ, Seed: 7},
				Camera:     CameraDesc{Position: vec3{0, 1.5, -4}, LookAt: vec3{0, 0.5, 0}},
				Background: Background{Kind: BackgroundGradient, Bottom: vec3{0.2, 0.2, 0.2}, Top: vec3{1, 0.9, 0.8}},
				Materials:  []Material{m, {Kind: MaterialDiffuse, Texture: NoTexture, Color: vec3{0.5, 0.5, 0.5}}},
				Textures:   tex,
				Lights:     []PointLight{{Position: vec3{2, 4, -3}, Color: vec3{1, 1, 1}, Intensity: 20}},
				Spheres:    []SphereDesc{{Center: vec3{0, 0.7, 0}, Radius: 0.7}},
				Planes:     []PlaneDesc{{Normal: vec3{0, 1, 0}, Material: 1}},
			}
			return renderPixels(t, d)
		}
		pbr := Material{Kind: MaterialPBR, Texture: NoTexture, Color: vec3{0.3, 0.5, 0.7}, Roughness: 0.3, DielectricSpecular: 1}
		factor := pbr
		factor.SpecularF0, factor.SpecularF90 = PBRSpecular(1.5, 0.75, color)
		want := render(factor, nil)
		mapped := pbr
		mapped.SpecularF0, mapped.SpecularF90 = PBRSpecularUnclamped(1.5, 0.75, [3]float64{1, 1, 1})
		mapped.SpecularColorMap = 1
		c := vec3{float32(color[0]), float32(color[1]), float32(color[2])}
		for _, tc := range []struct {
			name string
			odd  vec3
			same bool
		}{{"the factor's colour", c, true}, {"another colour", vec3{1, 0.5, 0.25}, false}} {
			got := render(mapped, []Texture{{Kind: TextureChecker, Scale: 4, Even: c, Odd: tc.odd}})
			same := true
			for i := range got {
				same = same && got[i] == want[i]
			}
			if same != tc.same {
				t.Errorf("integrator %d, a map of %s: the same pixels as the factor %v, want %v", integ, tc.name, same, tc.same)
			}
		}
	}
}
