package tracer

import (
	"fmt"

	"github.com/tracerender/trace/tracer/fmath"
)

// The sheen of a pbr material (glTF's KHR_materials_sheen): the soft rim
// of cloth and velvet, a layer of fibres over the base (and under the
// clear coat) with Estevez and Kulla's "Charlie" distribution
// (2017, "Production Friendly Microfacet Sheen BRDF") and no Fresnel:
//
//	f_sheen = sheen colour · D(h) / ((1 + Λ(ωo) + Λ(ωi))·4 cos θo cos θi)
//	D(h) = (2 + 1/α)·sin(θh)^(1/α) / 2π,   α = sheen roughness²
//
// Λ the extension's fitted curve (sheenLambda). The base below is
// weighed by the extension's albedo scaling,
//
//	f = f_sheen + f_base·min(1 − max(colour)·E(μo), 1 − max(colour)·E(μi))
//
// E(μ) the lobe's directional albedo for a white colour, tabulated by
// kernels/internal/genalbedo (sheenE). The spec's visibility lets a white
// sheen of low roughness reflect more than it receives at grazing views
// (E 2.5 at roughness 0.07 and μ 0.01, 1.15 at roughness 0.2): there the
// lobe is divided by E, so that it reflects all of a white furnace's
// light and no more, and E read as 1 (a white sheen over a black base
// then reads min(E, 1)). The sheen roughness is clamped to
// [sheenMinRough, 1]: below, the lobe is a spike at grazing half vectors
// that neither the table nor a sampler resolves. The lobe is sampled
// uniformly over the hemisphere (its f·cos θi has no cos θi factor), in
// proportion to its albedo against the base's.

// sheenMinRough is the smallest sheen roughness a material takes.
const sheenMinRough = 0.07

// sheenRoughness clamps a perceptual sheen roughness to [sheenMinRough, 1].
func sheenRoughness(rough float32) float32 {
	return min(max(rough, sheenMinRough), 1)
}

// sheenD is the Charlie distribution for the cosine c between the half
// vector and the normal, α = alpha.
func sheenD(c, alpha float32) float32 {
	inv := 1 / alpha
	s2 := max(0, 1-float32(c*c))
	return float32(float32((2+inv)*fmath.Pow(s2, float32(0.5*inv))) * (0.5 * invPi))
}

// sheenL is the extension's fitted exponent l(x) of Λ, its coefficients
// mixed by t = (1 − α)².
func sheenL(x, t float32) float32 {
	a := 21.5473 + float32(3.7772*t)
	b := 3.82987 + float32(-0.50552*t)
	c := 0.19823 + float32(-0.03022*t)
	d := -1.97760 + float32(0.70367*t)
	e := -4.32054 + float32(-0.53913*t)
	return a/(1+float32(b*fmath.Pow(x, c))) + float32(d*x) + e
}

// sheenLambda is the Charlie sheen's Λ for a direction at cosine c ≥ 0 to
// the normal and α = alpha; c is taken as at most 1 (a dot product of
// unit vectors may round above it, where l's power of 1 − c would be
// NaN).
func sheenLambda(c, alpha float32) float32 {
	c = min(c, 1)
	t := float32((1 - alpha) * (1 - alpha))
	if c < 0.5 {
		return fmath.Exp(sheenL(c, t))
	}
	return fmath.Exp(float32(2*sheenL(0.5, t)) - sheenL(1-c, t))
}

// sheenAlbedo returns E, the albedo of a white sheen of perceptual
// roughness rough (clamped: sheenRoughness) seen at cosine co to the
// normal, interpolated bilinearly in sheenE at √co and the roughness.
func sheenAlbedo(co, rough float32) float32 {
	const n = sheenAlbedoN
	x := float32(sqrt32(clamp01(co)) * (n - 1))
	y := float32(float32((sheenRoughness(rough)-sheenMinRough)*(1/(1-sheenMinRough))) * (n - 1))
	i, j := min(int(x), n-2), min(int(y), n-2)
	tx, ty := x-float32(i), y-float32(j)
	k := j*n + i
	a := sheenE[k] + float32((sheenE[k+1]-sheenE[k])*tx)
	b := sheenE[k+n] + float32((sheenE[k+n+1]-sheenE[k+n])*tx)
	return a + float32((b-a)*ty)
}

// uniformHemisphere returns a direction about the unit normal n with
// density 1/2π.
func uniformHemisphere(n vec3, u1, u2 float32) vec3 {
	t, b := orthonormal(n)
	z := u1
	r := sqrt32(max(0, 1-float32(z*z)))
	sinPhi, cosPhi := fmath.SinCos(float32(2*pi) * u2)
	return normalize(madd(madd(scale(n, z), t, float32(r*cosPhi)), b, float32(r*sinPhi)))
}

// newSheen sets up l's sheen of colour c and roughness rough for a viewer
// at cosine co ∈ [0, 1] to the normal, over a base of albedo fb (the mean
// channel of the base's lobes), and returns the albedo of the sheen and
// the base under it together, by which the clear coat's probability is
// set.
func (l *pbrLobes) newSheen(c vec3, rough, co, fb float32) float32 {
	l.sheenRough = sheenRoughness(rough)
	l.sheenAlpha = float32(l.sheenRough * l.sheenRough)
	l.sheenLo = sheenLambda(co, l.sheenAlpha)
	e := sheenAlbedo(co, l.sheenRough)
	l.sheen = c
	if e > 1 {
		l.sheen = scale(c, 1/e)
		e = 1
	}
	l.sheenEo = e
	l.sheenMax = maxComponent(c)
	// The sheen's albedo, and the base's under it, for the probability
	// of sampling it.
	fsh := float32(float32(float32(float32(c[0]+c[1])+c[2])*(1.0/3)) * e)
	under := float32(fb * float32(1-float32(l.sheenMax*e)))
	l.pSheen = 1
	if fsh+under > 0 {
		l.pSheen = fsh / (fsh + under)
	}
	return fsh + under
}

// evalSheen returns pbrLobes.eval's f·cos θi and density of the base's
// lobes, fcos and pdf, under the sheen, with the sheen's added, for the
// cosines cnh of the half vector and co, ci > 0 of the view and the light
// to the normal.
func (l *pbrLobes) evalSheen(cnh, co, ci float32, fcos vec3, pdf float32) (vec3, float32) {
	ei := min(sheenAlbedo(ci, l.sheenRough), 1)
	fcos = scale(fcos, 1-float32(l.sheenMax*max(l.sheenEo, ei)))
	v := float32(float32(4*co) * float32(float32(1+l.sheenLo)+sheenLambda(ci, l.sheenAlpha)))
	s := sheenD(cnh, l.sheenAlpha) / v
	fcos = madd(fcos, l.sheen, s)
	pdf = float32((1-l.pSheen)*pdf) + float32(l.pSheen*(0.5*invPi))
	return fcos, pdf
}

// checkSheen reports a sheen colour or roughness outside [0, 1].
func checkSheen(m *Material) error {
	for _, c := range m.SheenColor {
		if !(c >= 0 && c <= 1) {
			return fmt.Errorf("sheen colour %v is outside [0, 1]", m.SheenColor)
		}
	}
	if r := m.SheenRoughness; !(r >= 0 && r <= 1) {
		return fmt.Errorf("sheen roughness %g is outside [0, 1]", r)
	}
	return nil
}
