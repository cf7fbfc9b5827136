package main

import "math"

// glassAlbedo returns the directional albedo of trace's rough dielectric
// lobe (tracer/microfacet.go: dielectricEval and sampleDielectric, GGX of
// α = roughness², the exact Fresnel reflectance at each microfacet
// normal, no η² scaling of radiance) seen at cosine co > 0 to the normal,
// for the relative index eta = n_from / n_to, in float64: the reflected
// and the refracted light together, the probability that one try of
// sampleDielectric's is kept (with the probability G2/G1). The integral is taken over the normals visible from ωo,
// as albedo takes it, where each normal h reflects F(ωo·h) of the light,
// with the weight G2(ωo, ωr)/G1(ωo) if ωr leaves above the surface, and
// refracts 1 − F(ωo·h) (nothing past the critical angle, where F is 1)
// with the weight G2(ωo, ωt)/G1(ωo) if ωt goes below it. No random
// numbers.
func glassAlbedo(co, rough, eta float64, n int) float64 {
	alpha := rough * rough
	a2 := alpha * alpha
	root := func(c float64) float64 { return math.Sqrt(a2 + (1-a2)*c*c) }
	g1 := 2 * co / (co + root(co))
	g2 := func(ci float64) float64 { return 2 * co * ci / (ci*root(co) + co*root(ci)) }
	var sum float64
	total := visibleNormals(co, alpha, n, func(area, hz, oh float64) {
		oh = min(oh, 1)
		f := 1.0
		sin2t := eta * eta * (1 - oh*oh)
		if sin2t < 1 {
			// The refracted direction eta·(−ωo) + (eta·cos − cos_t)·h:
			// its cosine to the normal, downward.
			ct := math.Sqrt(1 - sin2t)
			ec, et := eta*oh, eta*ct
			rs, rp := (ec-ct)/(ec+ct), (oh-et)/(oh+et)
			f = 0.5 * (rs*rs + rp*rp)
			if ci := eta*co - (eta*oh-ct)*hz; ci > 0 {
				sum += area * (1 - f) * g2(ci) / g1
			}
		}
		if ci := 2*oh*hz - co; ci > 0 {
			sum += area * f * g2(ci) / g1
		}
	})
	return sum / total
}
