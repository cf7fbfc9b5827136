package tracer

import (
	"fmt"
	"math"
	"testing"
)

// The clear coat of pbr materials (pbrLobes, microfacet.go): its
// energy against independent float64 integrals, and a closed form
// through the path tracer. TestPBRSamplingDensity checks its sampling.

// TestClearcoatFurnace: a clear coat of strength 1 over a white diffuse
// base and over a white metal, at several roughnesses of each, reflects
// at most all the light it receives (within 0.1 %, as TestPBRFurnace),
// and what it reflects is the base's albedo times what the coat lets
// through, 1 − F(cos θo), plus the coat's own, its GGX lobe with
// Schlick's F0 0.04 integrated in float64 (F(cos θo) for a mirror coat).
func TestClearcoatFurnace(t *testing.T) {
	for _, metal := range []float32{0, 1} {
		for _, rough := range []float32{0, 0.5, 1} {
			for _, coatRough := range []float32{0, 0.1, 0.5, 1} {
				for _, co := range []float64{0.05, 0.3, 0.7, 1} {
					name := fmt.Sprintf("metallic %g, roughness %g, coat roughness %g, cos θo %g", metal, rough, coatRough, co)
					base := &Material{Kind: MaterialPBR, Color: vec3{1, 1, 1}, Metallic: metal, Roughness: rough}
					coated := *base
					coated.Clearcoat, coated.ClearcoatRoughness = 1, coatRough
					lb := materialLobes(base, base.Color, base.Metallic, base.Roughness, float32(co))
					lc := materialLobes(&coated, coated.Color, coated.Metallic, coated.Roughness, float32(co))
					gotBase, seBase := lobeAlbedo(&lb, viewDir(co), 100000, 4)
					got, se := lobeAlbedo(&lc, viewDir(co), 100000, 5)
					coat := 0.04 + 0.96*math.Pow(1-co, 5)
					if alpha := float64(float32(coatRough * coatRough)); alpha >= ggxMinAlpha {
						e1 := ggxAlbedo64(co, alpha)
						coat = ggxFresnelAlbedo64(co, alpha, 0.04) * (1 + 0.04*(1-e1)/e1)
					}
					want := (1-coat)*float64(gotBase[0]) + coat
					tol := 0.002 + 4*math.Hypot(float64(se[0]), float64(seBase[0]))
					if d := math.Abs(float64(got[0]) - want); d > tol {
						t.Errorf("%s: reflects %.4f ± %.4f, want %.4f (base %.4f, coat %.4f)", name, got[0], se[0], want, gotBase[0], coat)
					}
					if float64(got[0]) > 1+1e-3+4*float64(se[0]) {
						t.Errorf("%s: reflects %.4f ± %.4f > 1", name, got[0], se[0])
					}
					if got[0] != got[1] || got[1] != got[2] {
						t.Errorf("%s: reflects %v, not grey", name, got)
					}
				}
			}
		}
	}
}

// TestClearcoatMirrorOverBlack: a mirror-smooth clear coat (roughness 0)
// over a black mirror metal, seen head-on under a white background,
// reflects exactly its Fresnel at normal incidence, 0.04, times its
// strength (0.02 at clearcoat 0.5): the base reflects nothing there.
func TestClearcoatMirrorOverBlack(t *testing.T) {
	for _, c := range []struct{ clearcoat, want float32 }{{1, 0.04}, {0.5, 0.02}, {0, 0}} {
		t.Run(fmt.Sprint(c.clearcoat), func(t *testing.T) {
			got := renderCentre(t, &SceneDesc{
				Settings:   Settings{Width: 1, Height: 1, Samples: 16, MaxDepth: 4},
				Camera:     CameraDesc{Position: vec3{0, 0, -5}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 1, 0}, FOV: 10},
				Background: Background{Color: vec3{1, 1, 1}},
				Materials: []Material{{Kind: MaterialPBR, Texture: NoTexture, Metallic: 1, Roughness: 0,
					Clearcoat: c.clearcoat, ClearcoatRoughness: 0}},
				Quads: []QuadDesc{{Corner: vec3{-1, -1, 0}, Edge1: vec3{2, 0, 0}, Edge2: vec3{0, 2, 0}}},
			})
			for k := 0; k < 3; k++ {
				if math.Abs(float64(got[k]-c.want)) > 1e-6 {
					t.Errorf("reflects %v, want %g", got, c.want)
				}
			}
		})
	}
}

// TestClearcoatIsGlossy: a pbr material with a rough clear coat is
// light-sampled even over a mirror metal; a mirror coat over a mirror
// metal is not (every lobe a delta).
func TestClearcoatIsGlossy(t *testing.T) {
	for _, c := range []struct {
		m    Material
		want bool
	}{
		{Material{Kind: MaterialPBR, Metallic: 1}, false},
		{Material{Kind: MaterialPBR, Metallic: 1, Clearcoat: 1}, false},
		{Material{Kind: MaterialPBR, Metallic: 1, Clearcoat: 1, ClearcoatRoughness: 0.3}, true},
		{Material{Kind: MaterialPBR, Metallic: 1, Clearcoat: 0, ClearcoatRoughness: 0.3}, false},
		{Material{Kind: MaterialPBR, Metallic: 0.5, Clearcoat: 1}, true},
	} {
		if got := isGlossy(&c.m, c.m.Metallic, c.m.Roughness, c.m.Clearcoat, c.m.ClearcoatRoughness); got != c.want {
			t.Errorf("%+v: isGlossy %v, want %v", c.m, got, c.want)
		}
	}
}
