package main

import "math"

// albedo returns the directional albedos of trace's single-scattering GGX
// lobe (tracer/microfacet.go: ggxD, ggxG2, and α = roughness²) seen at
// cosine co > 0 to the normal, in float64: e1 = ∫ D·G2 / (4 cos θo) dωi,
// its albedo for F = 1, and e5 = the same with F = (1 − ωo·h)⁵ in the
// integrand. The integral is taken over the normals visible from ωo
// (Heitz 2018, as ggxSampleNormal draws them), where a reflected
// direction's weight is G2/G1(ωo), by the midpoint rule on n × n points
// of the projected disc (its radius sin θ and half the azimuth, θ and φ
// in equal steps: the other half mirrors it across the plane of
// incidence). No random numbers.
func albedo(co, rough float64, n int) (e1, e5 float64) {
	alpha := rough * rough
	a2 := alpha * alpha
	root := func(c float64) float64 { return math.Sqrt(a2 + (1-a2)*c*c) }
	g1 := 2 * co / (co + root(co))
	var s1, s5 float64
	total := visibleNormals(co, alpha, n, func(area, hz, oh float64) {
		ci := 2*oh*hz - co
		if !(ci > 0) {
			return
		}
		g2 := 2 * co * ci / (ci*root(co) + co*root(ci))
		w := g2 / g1
		w *= area
		s1 += w
		c := 1 - min(oh, 1)
		s5 += w * c * c * c * c * c
	})
	// Divided by the cells' summed area, not its integral π/2: a
	// constant integrand (α 0: h = n) comes out exact.
	return s1 / total, s5 / total
}

// visibleNormals walks the GGX normals of α alpha visible from a viewer
// at cosine co > 0 (Heitz 2018, as ggxSampleNormal draws them) on n × n
// cells of the projected disc (its radius sin θ and half the azimuth, θ
// and φ in equal steps: the other half mirrors it across the plane of
// incidence), calling fn with each cell's area, its normal h's cosine hz
// to the surface normal and oh = ωo·h where that is > 0, and returns the
// cells' summed area.
func visibleNormals(co, alpha float64, n int, fn func(area, hz, oh float64)) (total float64) {
	so := math.Sqrt(max(0, 1-co*co))
	// ωo stretched to unit roughness, and a basis about it: t1 normal to
	// the plane of incidence, t2 = vh × t1.
	vx, vz := alpha*so, co
	l := math.Hypot(vx, vz)
	vx, vz = vx/l, vz/l
	s := 0.5 * (1 + vz)
	for i := 0; i < n; i++ {
		// The disc's radius r = sin θ, θ uniform: a cell's area
		// 2 r cos θ dθ dφ shrinks toward the rim, where pz = cos θ → 0
		// and the normals tilt most (the lobe's horizon lies there).
		th := math.Pi / 2 * (float64(i) + 0.5) / float64(n)
		r, cth := math.Sin(th), math.Cos(th)
		area := r * cth
		for j := 0; j < n; j++ {
			total += area
			phi := math.Pi * ((float64(j)+0.5)/float64(n) - 0.5)
			p1, p2 := r*math.Cos(phi), r*math.Sin(phi)
			p2 = (1-s)*math.Sqrt(max(0, 1-p1*p1)) + s*p2
			pz := math.Sqrt(max(0, 1-p1*p1-p2*p2))
			// nh = pz·vh + p1·t1 + p2·t2, t1 = (0, 1, 0), t2 = (−vz, 0, vx).
			nx, ny, nz := pz*vx-p2*vz, p1, pz*vz+p2*vx
			hx, hy, hz := alpha*nx, alpha*ny, max(0, nz)
			hl := math.Sqrt(hx*hx + hy*hy + hz*hz)
			hx, hz = hx/hl, hz/hl
			if oh := so*hx + co*hz; oh > 0 {
				fn(area, hz, oh)
			}
		}
	}
	return total
}
