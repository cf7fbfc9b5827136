package tracer

import "github.com/tracerender/trace/tracer/fmath"

// Solid-angle sampling of flat emitters. A triangle (or a quad, as two
// triangles) that subtends a large solid angle at the lit point, as a
// light does at the walls and ceiling next to it, is sampled uniformly in
// that solid angle (Arvo, "Stratified Sampling of Spherical Triangles",
// 1995, as pbrt-v4's SampleSphericalTriangle does it) rather than by area,
// whose density d²/cos θ varies a great deal across a light seen from
// close by. Small and far emitters, where float32 cannot resolve the
// triangle's angles, and emitters that fill nearly the whole hemisphere,
// are sampled by area.

// Solid angles, in steradians, outside of which flat emitters are sampled
// by area: below minSphericalArea the angle sum α+β+γ−π of a spherical
// triangle loses too many digits in float32; above maxSphericalArea
// (nearly a hemisphere) the construction is ill-conditioned.
const (
	minSphericalArea = 0.01
	maxSphericalArea = 6.0
)

// angleBetween returns the angle between the unit vectors a and b,
// 2·atan2(|a − b|, |a + b|), accurate for small and large angles alike.
func angleBetween(a, b vec3) float32 {
	return float32(2 * fmath.Atan2(length(a.Sub(b)), length(a.Add(b))))
}

// triangleSolidAngle returns the solid angle the triangle (v0, v1, v2)
// subtends at p, by Van Oosterom and Strackee's formula
// |2·atan2(a·(b × c), 1 + a·b + a·c + b·c)|, a, b and c the unit vectors
// from p to the vertices.
func triangleSolidAngle(p, v0, v1, v2 vec3) float32 {
	a, b, c := normalize(v0.Sub(p)), normalize(v1.Sub(p)), normalize(v2.Sub(p))
	den := ((1 + dot(a, b)) + dot(a, c)) + dot(b, c)
	return absf(float32(2 * fmath.Atan2(dot(a, cross(b, c)), den)))
}

// gramSchmidt returns v made orthogonal to the unit vector w.
func gramSchmidt(v, w vec3) vec3 { return madd(v, w, -dot(v, w)) }

// sampleSphericalTriangle returns a unit direction from p toward the
// triangle (v0, v1, v2), uniformly distributed in the solid angle it
// subtends, from (u1, u2); ok = false when the triangle is degenerate seen
// from p.
func sampleSphericalTriangle(p, v0, v1, v2 vec3, u1, u2 float32) (w vec3, ok bool) {
	a, b, c := normalize(v0.Sub(p)), normalize(v1.Sub(p)), normalize(v2.Sub(p))
	nab, nbc, nca := cross(a, b), cross(b, c), cross(c, a)
	if dot(nab, nab) == 0 || dot(nbc, nbc) == 0 || dot(nca, nca) == 0 {
		return vec3{}, false
	}
	nab, nbc, nca = normalize(nab), normalize(nbc), normalize(nca)
	neg := func(v vec3) vec3 { return vec3{-v[0], -v[1], -v[2]} }
	// The spherical triangle's angles at a, b and c; its area is their
	// sum less π. Pick the sub-triangle of area u1 times that.
	alpha := angleBetween(nab, neg(nca))
	beta := angleBetween(nbc, neg(nab))
	gamma := angleBetween(nca, neg(nbc))
	apPi := pi + float32(u1*(((alpha+beta)+gamma)-pi))
	sinAlpha, cosAlpha := fmath.SinCos(alpha)
	sinAp, cosAp := fmath.SinCos(apPi)
	sinPhi := float32(sinAp*cosAlpha) - float32(cosAp*sinAlpha)
	cosPhi := float32(cosAp*cosAlpha) + float32(sinAp*sinAlpha)
	k1 := cosPhi + cosAlpha
	k2 := sinPhi - float32(sinAlpha*dot(a, b))
	num := k2 + float32((float32(k2*cosPhi)-float32(k1*sinPhi))*cosAlpha)
	den := float32((float32(k2*sinPhi) + float32(k1*cosPhi)) * sinAlpha)
	cosBp := num / den
	if !(cosBp == cosBp) || !(den != 0) {
		return vec3{}, false
	}
	cosBp = max(-1, min(1, cosBp))
	// c′ on the arc from a to c, then the direction on the arc from b to
	// c′ at the fraction u2 of the way in cos θ.
	sinBp := sqrt32(max(0, 1-float32(cosBp*cosBp)))
	cp := madd(scale(a, cosBp), normalize(gramSchmidt(c, a)), sinBp)
	cosT := 1 - float32(u2*(1-dot(cp, b)))
	sinT := sqrt32(max(0, 1-float32(cosT*cosT)))
	w = normalize(madd(scale(b, cosT), normalize(gramSchmidt(cp, b)), sinT))
	return w, w == w
}

// quadTriangles returns the corners of a quad's two triangles:
// (c0, c1, c2) and (c0, c2, c3).
func quadTriangles(sh *Shape) (c0, c1, c2, c3 vec3) {
	c0 = sh.P0
	c1 = sh.P0.Add(sh.P1)
	c2 = c1.Add(sh.P2)
	c3 = sh.P0.Add(sh.P2)
	return
}

// sphericalNear is the ratio of an emitter's area to its squared distance
// (from p to its first corner) below which it is sampled by area without
// computing its solid angle: there area sampling is as good (the density
// d²/cos θ barely varies across it) and much cheaper.
const sphericalNear = 0.5

// flatSolidAngle returns, for a triangle (HitTriangle) or a quad of area
// area seen from p, whether it is sampled by solid angle, and if so the
// solid angle it subtends and, for a quad, its first triangle's share.
func (s *Scene) flatSolidAngle(kind HitKind, index uint32, area float32, p vec3) (omega, first float32, spherical bool) {
	// The first corner alone decides whether p is near (the common case
	// of a far emitter costs no more), then the others are made.
	var c0 vec3
	if kind == HitTriangle {
		c0 = s.Triangles[index].P0
	} else {
		c0 = s.Shapes[index].P0
	}
	d := c0.Sub(p)
	if !(area > float32(sphericalNear*dot(d, d))) {
		return 0, 0, false
	}
	var c1, c2, c3 vec3
	if kind == HitTriangle {
		tr := &s.Triangles[index]
		c1, c2 = tr.P0.Add(tr.E1), tr.P0.Add(tr.E2)
	} else {
		_, c1, c2, c3 = quadTriangles(&s.Shapes[index])
	}
	omega = triangleSolidAngle(p, c0, c1, c2)
	first = omega
	if kind != HitTriangle {
		omega = first + triangleSolidAngle(p, c0, c2, c3)
	}
	return omega, first, omega >= minSphericalArea && omega <= maxSphericalArea
}

// sampleFlatBySolidAngle returns a point of the triangle or quad emitter
// seen from p, uniform in the solid angle omega it subtends there (first:
// its first triangle's share, flatSolidAngle), with its surface
// coordinates; ok = false when the sampled direction misses the emitter
// through rounding at its edge.
func (s *Scene) sampleFlatBySolidAngle(e Emitter, p vec3, omega, first, u1, u2 float32) (q vec3, b1, b2 float32, ok bool) {
	var w vec3
	if e.Kind == HitTriangle {
		tr := &s.Triangles[e.Index]
		w, ok = sampleSphericalTriangle(p, tr.P0, tr.P0.Add(tr.E1), tr.P0.Add(tr.E2), u1, u2)
	} else {
		c0, c1, c2, c3 := quadTriangles(&s.Shapes[e.Index])
		f := first / omega
		if u1 < f {
			w, ok = sampleSphericalTriangle(p, c0, c1, c2, min(u1/f, float32(0.99999994)), u2)
		} else {
			w, ok = sampleSphericalTriangle(p, c0, c2, c3, min((u1-f)/(1-f), float32(0.99999994)), u2)
		}
	}
	if !ok {
		return vec3{}, 0, 0, false
	}
	r := Ray{Origin: p, Dir: w, TMax: infinity}
	var t float32
	if e.Kind == HitTriangle {
		t, b1, b2, ok = s.Triangles[e.Index].intersect(&r)
	} else {
		t, b1, b2, ok = intersectQuad(&s.Shapes[e.Index], &r)
	}
	if !ok {
		return vec3{}, 0, 0, false
	}
	return r.At(t), b1, b2, true
}
