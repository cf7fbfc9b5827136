package tracer

import (
	"fmt"
	"math"
	"testing"
)

// sheenAlbedo64 integrates a white sheen's lobe (KHR_materials_sheen's
// Charlie distribution and visibility, written here from the
// extension's text in float64, not from sheen.go) over the hemisphere:
// its directional albedo ∫ D / (4 cos θo (1 + Λ(ωo) + Λ(ωi))) dωi seen at
// cosine co, for a perceptual roughness rough (α = rough²). The integral
// is taken over half vectors h (dωi = 4 (ωo·h) dωh; genalbedo takes it
// over the light's directions), θh and φh in equal steps, by the
// midpoint rule.
func sheenAlbedo64(co, rough float64) float64 {
	alpha := rough * rough
	mix := func(a, b float64) float64 { return a*(1-(1-alpha)*(1-alpha)) + b*(1-alpha)*(1-alpha) }
	l := func(x float64) float64 {
		return mix(21.5473, 25.3245)/(1+mix(3.82987, 3.32435)*math.Pow(x, mix(0.19823, 0.16801))) +
			mix(-1.97760, -1.27393)*x + mix(-4.32054, -4.85967)
	}
	lambda := func(c float64) float64 {
		if c < 0.5 {
			return math.Exp(l(c))
		}
		return math.Exp(2*l(0.5) - l(1-c))
	}
	so := math.Sqrt(1 - co*co)
	lo := lambda(co)
	const nt, np = 1200, 720
	sum := 0.0
	for i := range nt {
		th := (float64(i) + 0.5) / nt * math.Pi / 2
		sh, ch := math.Sincos(th)
		d := (2 + 1/alpha) * math.Pow(sh, 1/alpha) / (2 * math.Pi)
		for j := range np {
			phi := (float64(j) + 0.5) / np * 2 * math.Pi
			oh := so*sh*math.Cos(phi) + co*ch
			ci := 2*oh*ch - co
			if oh <= 0 || ci <= 0 {
				continue
			}
			sum += d * oh / (co * (1 + lo + lambda(ci))) * sh
		}
	}
	return sum * (math.Pi / 2 / nt) * (2 * math.Pi / np)
}

// sheenOverBlack is a pbr material of a black base with no specular (F0
// and F90 0), under a sheen of colour c and roughness rough: only the
// sheen reflects.
func sheenOverBlack(c vec3, rough float32) Material {
	return Material{Kind: MaterialPBR, DielectricSpecular: 1, SheenColor: c, SheenRoughness: rough}
}

// TestSheenAlbedo: a white sheen over a black base, estimated by sampling
// its lobe (200000 samples), reflects the extension's albedo integrated
// independently (sheenAlbedo64) within 1 % + 4 standard errors, and the
// table's interpolated E (sheenAlbedo) is within 0.01 of it, at roughness
// 0.3 to 1 and cos θo 0.2 to 0.9; at grazing views of a low roughness,
// where the spec's lobe reflects more than 1 (E 1.6 at roughness 0.07,
// cos θo 0.03), it reflects 1 within 2 % (its albedo divided by the
// table's), and a grey sheen 0.5 of that.
func TestSheenAlbedo(t *testing.T) {
	white := vec3{1, 1, 1}
	for _, rough := range []float32{0.3, 0.6, 1} {
		for _, co := range []float64{0.2, 0.5, 0.9} {
			name := fmt.Sprintf("roughness %g, cos θo %g", rough, co)
			want := sheenAlbedo64(co, float64(rough))
			if tab := sheenAlbedo(float32(co), rough); math.Abs(float64(tab)-want) > 0.01 {
				t.Errorf("%s: the table reads %.4f, the integral %.4f", name, tab, want)
			}
			m := sheenOverBlack(white, rough)
			l := materialLobes(&m, vec3{}, 0, 0, float32(co))
			got, se := lobeAlbedo(&l, viewDir(co), 200000, 21)
			if d := math.Abs(float64(got[0]) - want); d > 0.01*want+4*float64(se[0]) {
				t.Errorf("%s: reflects %.4f ± %.4f, the integral %.4f", name, got[0], se[0], want)
			}
		}
	}
	for _, c := range []struct {
		rough float32
		co    float64
	}{{0.07, 0.03}, {0.15, 0.02}} {
		if e := sheenAlbedo64(c.co, float64(c.rough)); !(e > 1.05) {
			t.Fatalf("roughness %g, cos θo %g: the spec's lobe reflects %.4f, not more than 1", c.rough, c.co, e)
		}
		for _, g := range []float32{1, 0.5} {
			m := sheenOverBlack(vec3{g, g, g}, c.rough)
			l := materialLobes(&m, vec3{}, 0, 0, float32(c.co))
			got, se := lobeAlbedo(&l, viewDir(c.co), 200000, 22)
			if d := math.Abs(float64(got[0]) - float64(g)); d > 0.02*float64(g)+4*float64(se[0]) {
				t.Errorf("roughness %g, cos θo %g, colour %g: reflects %.4f ± %.4f, want %g", c.rough, c.co, g, got[0], se[0], g)
			}
		}
	}
}

// TestSheenFurnace: a pbr material under a sheen never reflects more than
// it receives (4 standard errors of 100000 samples), and a white sheen
// over a white base reflects at least what the sheen alone does and at
// least 1 − the sheen's share it takes from the base: white and coloured
// bases, rough and mirror metals, with and without a clear coat, sheen
// roughness 0.1 to 1, cos θo 0.05 to 0.9.
func TestSheenFurnace(t *testing.T) {
	white := vec3{1, 1, 1}
	for _, m := range []Material{
		{Kind: MaterialPBR, Color: white, Roughness: 0.5},
		{Kind: MaterialPBR, Color: white, Roughness: 0.2, Clearcoat: 1, ClearcoatRoughness: 0.3},
		{Kind: MaterialPBR, Color: white, Metallic: 1, Roughness: 0.4},
		{Kind: MaterialPBR, Color: white, Metallic: 1, Roughness: 0},
		{Kind: MaterialPBR, Color: vec3{0.8, 0.3, 0.1}, Metallic: 0.5, Roughness: 0.7},
		{Kind: MaterialPBR, Color: vec3{0.8, 0.3, 0.1}, Roughness: 0.7, Clearcoat: 1, ClearcoatRoughness: 0},
	} {
		for _, sheen := range []vec3{white, {0.9, 0.5, 0.2}} {
			for _, rough := range []float32{0.1, 0.4, 1} {
				for _, co := range []float64{0.05, 0.3, 0.9} {
					name := fmt.Sprintf("%v metallic %g roughness %g coat %g, sheen %v of roughness %g, cos θo %g",
						m.Color, m.Metallic, m.Roughness, m.Clearcoat, sheen, rough, co)
					m.SheenColor, m.SheenRoughness = sheen, rough
					l := materialLobes(&m, m.Color, m.Metallic, m.Roughness, float32(co))
					got, se := lobeAlbedo(&l, viewDir(co), 100000, 23)
					for k := range 3 {
						if float64(got[k]) > 1+4*float64(se[k]) {
							t.Errorf("%s: reflects %v ± %v, more than 1", name, got, se)
							break
						}
					}
					if m.Color != white || sheen != white || m.Clearcoat > 0 {
						continue
					}
					e := min(float64(sheenAlbedo(float32(co), rough)), 1)
					if float64(got[0]) < e-4*float64(se[0]) {
						t.Errorf("%s: reflects %.4f ± %.4f, less than the sheen's %.4f", name, got[0], se[0], e)
					}
				}
			}
		}
	}
}

// TestSheenIsGlossy: a mirror metal (no lobe next-event estimation can
// take) under a sheen has one.
func TestSheenIsGlossy(t *testing.T) {
	m := Material{Kind: MaterialPBR, Color: vec3{1, 1, 1}, Metallic: 1}
	if isGlossy(&m, 1, 0, 0, 0) {
		t.Fatal("a mirror metal is glossy")
	}
	m.SheenColor = vec3{0, 0.5, 0}
	if !isGlossy(&m, 1, 0, 0, 0) {
		t.Error("a mirror metal under a sheen is not glossy")
	}
}

// TestSheenChecked: Compile refuses a sheen colour or roughness outside
// [0, 1].
func TestSheenChecked(t *testing.T) {
	for _, tc := range []struct {
		color vec3
		rough float32
		want  string
	}{
		{vec3{0.5, 1.5, 0.5}, 0.5, "materials[0]: sheen colour [0.5 1.5 0.5] is outside [0, 1]"},
		{vec3{-0.1, 0, 0}, 0.5, "materials[0]: sheen colour [-0.1 0 0] is outside [0, 1]"},
		{vec3{0.5, 0.5, 0.5}, 2, "materials[0]: sheen roughness 2 is outside [0, 1]"},
		{vec3{0.5, 0.5, 0.5}, float32(math.NaN()), "materials[0]: sheen roughness NaN is outside [0, 1]"},
	} {
		d := &SceneDesc{
			Settings:  Settings{Width: 1, Height: 1, Samples: 1, MaxDepth: 1},
			Camera:    CameraDesc{Position: vec3{0, 0, -5}, Up: vec3{0, 1, 0}, FOV: 40},
			Materials: []Material{{Kind: MaterialPBR, Texture: NoTexture, SheenColor: tc.color, SheenRoughness: tc.rough}},
		}
		if _, err := Compile(d); err == nil || err.Error() != tc.want {
			t.Errorf("colour %v, roughness %g: error %v, want %q", tc.color, tc.rough, err, tc.want)
		}
	}
}

// TestSheenLambdaAboveOne: a cosine that rounds above 1 (a dot product of
// unit vectors) gives Λ(1), not NaN (1 − c negative under l's power): the
// sheen example rendered a NaN sample before.
func TestSheenLambdaAboveOne(t *testing.T) {
	for _, alpha := range []float32{0.0049, 0.25, 1} {
		c := math.Nextafter32(1, 2)
		if got, want := sheenLambda(c, alpha), sheenLambda(1, alpha); got != want {
			t.Errorf("α %g: Λ(%v) = %v, want Λ(1) = %v", alpha, c, got, want)
		}
	}
}
