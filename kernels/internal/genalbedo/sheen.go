package main

import "math"

// The sheen table's points on each axis, the quadrature's on each of its
// two (TestSheenQuadrature), and the smallest sheen roughness, the first
// row's (tracer's sheenMinRough: below it the lobe is a spike at grazing
// half vectors that neither the table nor a sampler resolves).
const (
	sheenN        = 32
	sheenQuadN    = 128
	sheenMinRough = 0.07
)

// gridSheenCos and gridSheenRough are the cosine and the perceptual sheen
// roughness of the sheen table's points i and j: √μ in equal steps (μ 0
// taken as 1e-4), the roughness from sheenMinRough to 1 in equal steps.
func gridSheenCos(i int) float64 {
	x := float64(i) / (sheenN - 1)
	return max(x*x, minCosine)
}

func gridSheenRough(j int) float64 {
	return sheenMinRough + (1-sheenMinRough)*float64(j)/(sheenN-1)
}

// sheenTable returns E_sheen on the sheen grid, row j (roughness) by
// column i (cosine): entry j·sheenN + i.
func sheenTable() []float32 {
	e := make([]float32, sheenN*sheenN)
	eachRow(sheenN, func(j int) {
		for i := range sheenN {
			e[j*sheenN+i] = float32(sheenAlbedo(gridSheenCos(i), gridSheenRough(j), sheenQuadN))
		}
	})
	return e
}

// sheenLambda is the Charlie sheen's Λ (KHR_materials_sheen, after
// Estevez and Kulla 2017) for a direction at cosine c to the normal and
// α = roughness², in float64.
func sheenLambda(c, alpha float64) float64 {
	l := func(x float64) float64 {
		t := (1 - alpha) * (1 - alpha)
		a := 21.5473 + (25.3245-21.5473)*t
		b := 3.82987 + (3.32435-3.82987)*t
		cc := 0.19823 + (0.16801-0.19823)*t
		d := -1.97760 + (-1.27393+1.97760)*t
		e := -4.32054 + (-4.85967+4.32054)*t
		return a/(1+b*math.Pow(x, cc)) + d*x + e
	}
	if c < 0.5 {
		return math.Exp(l(c))
	}
	return math.Exp(2*l(0.5) - l(1-c))
}

// sheenAlbedo returns the directional albedo of trace's sheen lobe for a
// white sheen colour (tracer/sheen.go: the "Charlie" distribution D(h) =
// (2 + 1/α)·sin(θh)^(1/α) / 2π, α = roughness², and the visibility
// 1 / ((1 + Λ(ωo) + Λ(ωi))·4 cos θo cos θi)) seen at cosine co > 0 to
// the normal, in float64: ∫ D / (4 cos θo (1 + Λ(ωo) + Λ(ωi))) dωi over
// the hemisphere, by the midpoint rule on n × n points (θi and half the
// azimuth in equal steps, the other half mirroring it across the plane
// of incidence). No random numbers.
func sheenAlbedo(co, rough float64, n int) float64 {
	alpha := rough * rough
	so := math.Sqrt(max(0, 1-co*co))
	lo := sheenLambda(co, alpha)
	var sum float64
	for i := range n {
		th := math.Pi / 2 * (float64(i) + 0.5) / float64(n)
		si, ci := math.Sincos(th)
		li := sheenLambda(ci, alpha)
		var row float64
		for j := range n {
			phi := math.Pi * (float64(j) + 0.5) / float64(n)
			// h ∝ ωo + ωi, ωo = (so, 0, co), ωi = (si cos φ, si sin φ, ci).
			hx, hy, hz := so+si*math.Cos(phi), si*math.Sin(phi), co+ci
			c2 := hz * hz / (hx*hx + hy*hy + hz*hz)
			d := (2 + 1/alpha) * math.Pow(max(0, 1-c2), 0.5/alpha) / (2 * math.Pi)
			row += d
		}
		sum += row * si / (4 * co * (1 + lo + li))
	}
	// dωi = sin θi dθi dφ over φ in [0, 2π): twice the half's.
	return sum * 2 * (math.Pi / 2 / float64(n)) * (math.Pi / float64(n))
}
