package tracer

import (
	"fmt"
	"math"
	"testing"
)

// The GGX lobes' energy compensation (ggxenergy.go): its tables against
// independent float64 integrals, and white furnaces of the lobes.

// TestGGXAlbedoTable: the tables' bilinear lookup, E1 and E5, against
// the float64 integrals of microfacet_test.go (over microfacet normals, not
// genalbedo's visible normals): E1 within 0.3 % (relative), E5 within
// 0.004, at views of cos θo 0.05 to 0.95 and roughness 0.05 to 1 (at cos
// θo 0.02 those integrals are themselves 0.5 % off; genalbedo's
// TestInterpolation measures there); the lobe's albedo for Schlick's F0
// 0.04 is F0·(E1 − E5) + E5 within 0.003. A mirror's row (roughness 0) is
// E1 = 1, E5 = (1 − μ)⁵ at the grid's points.
func TestGGXAlbedoTable(t *testing.T) {
	var worst1, worst5 float64
	for _, rough := range []float32{0.05, 0.1, 0.25, 0.5, 0.75, 1} {
		for _, co := range []float32{0.05, 0.1, 0.3, 0.6, 0.95} {
			alpha := float64(ggxAlpha(rough))
			want1 := ggxAlbedo64(float64(co), alpha)
			want5 := ggxFresnelAlbedo64(float64(co), alpha, 0)
			e1, e5 := ggxAlbedo(co, rough)
			d1, d5 := math.Abs(float64(e1)-want1)/want1, math.Abs(float64(e5)-want5)
			worst1, worst5 = max(worst1, d1), max(worst5, d5)
			if d1 > 0.003 || d5 > 0.004 {
				t.Errorf("roughness %g, cos θo %g: E1 %.5f, E5 %.5f; integrals %.5f, %.5f", rough, co, e1, e5, want1, want5)
			}
			f := float64(float32(0.04*(e1-e5)) + e5)
			if want := ggxFresnelAlbedo64(float64(co), alpha, 0.04); math.Abs(f-want) > 0.003 {
				t.Errorf("roughness %g, cos θo %g: albedo for F0 0.04 %.5f, integral %.5f", rough, co, f, want)
			}
		}
	}
	t.Logf("the tables against the integrals: E1 within %.2g (relative), E5 within %.2g", worst1, worst5)
	for i := 1; i < ggxAlbedoN; i++ { // (the point of μ 0 is taken at 1e-4)
		x := float32(i) / (ggxAlbedoN - 1)
		co := float32(x * x)
		if e1, e5 := ggxAlbedo(co, 0); e1 != 1 || math.Abs(float64(e5)-math.Pow(1-float64(co), 5)) > 1e-6 {
			t.Errorf("roughness 0, cos θo %g: E1 %g, E5 %g, want 1 and (1 − μ)⁵ %g", co, e1, e5, math.Pow(1-float64(co), 5))
		}
	}
}

// TestPBRWhiteFurnace: a white metal, a pbr material of white base
// (metallic 0: its diffuse base under the dielectric's specular of F0
// 0.04) and the same under a clear coat (roughness 0.1 and 0.6) reflect
// all the light they receive, within 0.6 % (the tables' error plus 4
// standard errors of 200000 samples of sample, whose weights are eval's
// f·cos θi / pdf), at roughness 0.25, 0.5 and 1 and views at cos θo
// 0.1, 0.5 and 0.9. Single scattering reflected as little as 0.31 (a
// white metal of roughness 1 head-on) and a white base 0.93; they fail
// without the compensation. Coloured ones (a base of (0.8, 0.3, 0.1) as
// metal and as pbr of metallic 0.5, with a coat) reflect less than 1 in
// every channel; the metal reflects in red single scattering's albedo
// E_ss(F0 0.8) times Turquin's factor 1 + F0·(1 − E1)/E1, each integrated
// in float64, within 0.5 %.
func TestPBRWhiteFurnace(t *testing.T) {
	white := vec3{1, 1, 1}
	mats := []struct {
		name string
		m    Material
	}{
		{"white metal", Material{Kind: MaterialMetal, Color: white}},
		{"white base", Material{Kind: MaterialPBR, Color: white}},
		{"white base, coat 0.1", Material{Kind: MaterialPBR, Color: white, Clearcoat: 1, ClearcoatRoughness: 0.1}},
		{"white base, coat 0.6", Material{Kind: MaterialPBR, Color: white, Clearcoat: 1, ClearcoatRoughness: 0.6}},
		{"white metal, coat 0.3", Material{Kind: MaterialPBR, Color: white, Metallic: 1, Clearcoat: 1, ClearcoatRoughness: 0.3}},
	}
	for _, mt := range mats {
		for _, rough := range []float32{0.25, 0.5, 1} {
			for _, co := range []float64{0.1, 0.5, 0.9} {
				name := fmt.Sprintf("%s, roughness %g, cos θo %g", mt.name, rough, co)
				m := mt.m
				m.Roughness = rough
				l := materialLobes(&m, m.Color, m.Metallic, m.Roughness, float32(co))
				got, se := lobeAlbedo(&l, viewDir(co), 200000, 11)
				for k := range 3 {
					if d := math.Abs(float64(got[k]) - 1); d > 0.006+4*float64(se[k]) {
						t.Errorf("%s: reflects %.4f ± %.4f, want 1", name, got[k], se[k])
						break
					}
				}
			}
		}
	}
	colour := vec3{0.8, 0.3, 0.1}
	for _, m := range []Material{
		{Kind: MaterialMetal, Color: colour},
		{Kind: MaterialPBR, Color: colour, Metallic: 0.5},
		{Kind: MaterialPBR, Color: colour, Metallic: 0.5, Clearcoat: 1, ClearcoatRoughness: 0.4},
	} {
		for _, rough := range []float32{0.25, 0.5, 1} {
			for _, co := range []float64{0.1, 0.5, 0.9} {
				name := fmt.Sprintf("%v of metallic %g, coat %g, roughness %g, cos θo %g", m.Color, m.Metallic, m.Clearcoat, rough, co)
				m.Roughness = rough
				l := materialLobes(&m, m.Color, m.Metallic, m.Roughness, float32(co))
				got, se := lobeAlbedo(&l, viewDir(co), 100000, 12)
				for k := range 3 {
					if float64(got[k]) > 1+4*float64(se[k]) {
						t.Errorf("%s: reflects %v ± %v, more than 1", name, got, se)
						break
					}
				}
				if m.Kind == MaterialMetal {
					alpha := float64(ggxAlpha(rough))
					f0 := float64(colour[0])
					ss, e1 := ggxFresnelAlbedo64(co, alpha, f0), ggxAlbedo64(co, alpha)
					want := ss * (1 + f0*(1-e1)/e1)
					if d := math.Abs(float64(got[0]) - want); d > 0.005*want+4*float64(se[0]) {
						t.Errorf("%s: reflects %.4f ± %.4f in red, want %.4f (single scattering %.4f)", name, got[0], se[0], want, ss)
					}
				}
			}
		}
	}
}
