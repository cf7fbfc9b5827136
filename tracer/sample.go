package tracer

import "github.com/tracerender/trace/tracer/fmath"

// Sampling routines: each maps uniform numbers in [0, 1) to a direction or
// a point, with the density the integrators divide by.

// cosineHemisphere returns a direction about the unit normal n with density
// cos θ / π (Malley's method: a uniform disk sample lifted to the
// hemisphere).
func cosineHemisphere(n vec3, u1, u2 float32) vec3 {
	r := sqrt32(u1)
	phi := float32(2*pi) * u2
	sinPhi, cosPhi := fmath.SinCos(phi)
	x := float32(r * cosPhi)
	y := float32(r * sinPhi)
	z := sqrt32(max(0, 1-u1))
	t0, t1, t2, b0, b1, b2 := orthonormalXYZ(n[0], n[1], n[2])
	// normalize(madd(madd(scale(n, z), t, x), b, y)), in scalars.
	wx := float32(n[0]*z) + float32(t0*x) + float32(b0*y)
	wy := float32(n[1]*z) + float32(t1*x) + float32(b1*y)
	wz := float32(n[2]*z) + float32(t2*x) + float32(b2*y)
	l := sqrt32(float32(wx*wx) + float32(wy*wy) + float32(wz*wz))
	if l == 0 {
		return vec3{wx, wy, wz}
	}
	return vec3{wx / l, wy / l, wz / l}
}

// uniformSphere returns a unit vector uniformly distributed on the sphere.
func uniformSphere(u1, u2 float32) vec3 {
	z := 1 - 2*u1
	r := sqrt32(max(0, 1-float32(z*z)))
	phi := float32(2*pi) * u2
	sinPhi, cosPhi := fmath.SinCos(phi)
	return vec3{float32(r * cosPhi), float32(r * sinPhi), z}
}

// phongLobe returns a direction about the unit vector axis with density
// proportional to cos^exponent of the angle to axis.
func phongLobe(axis vec3, exponent, u1, u2 float32) vec3 {
	cosA := fmath.Pow(u1, 1/(exponent+1))
	sinA := sqrt32(max(0, 1-float32(cosA*cosA)))
	phi := float32(2*pi) * u2
	t, b := orthonormal(axis)
	sinPhi, cosPhi := fmath.SinCos(phi)
	return normalize(madd(madd(scale(axis, cosA), t, float32(sinA*cosPhi)), b, float32(sinA*sinPhi)))
}

// samplePoint returns a point uniformly distributed over the area of a
// bounded shape, the shape's unit normal there, and the point's surface
// coordinates (b1, b2) as intersect would report them.
func (sh *Shape) samplePoint(u1, u2 float32) (p, n vec3, b1, b2 float32) {
	switch sh.Kind {
	case ShapeSphere:
		n = uniformSphere(u1, u2)
		return madd(sh.P0, n, sh.P1[0]), n, 0, 0
	default: // ShapeQuad; planes are never sampled
		return madd(madd(sh.P0, sh.P1, u1), sh.P2, u2), sh.N, u1, u2
	}
}

// sphereCone returns, for a sphere of centre c and radius r seen from p,
// sin² of the half-angle of the cone it subtends and 1 − cos of that
// angle (with a series form for tiny cones, where 1 − cos would cancel);
// ok = false when p is inside or on the sphere.
func sphereCone(c vec3, r float32, p vec3) (sin2Max, oneMinusCosMax float32, ok bool) {
	d := c.Sub(p)
	dc2 := dot(d, d)
	r2 := float32(r * r)
	if !(dc2 > r2) {
		return 0, 0, false
	}
	sin2Max = r2 / dc2
	if sin2Max < sin2SmallCone {
		return sin2Max, float32(sin2Max * 0.5), true
	}
	return sin2Max, 1 - sqrt32(max(0, 1-sin2Max)), true
}

// sin2SmallCone is sin²(1.5°): below it sphereCone and sampleSphereCone
// use first-order forms (as pbrt-v4's Sphere::Sample does).
const sin2SmallCone = 0.00068523

// sphereConePdf returns the solid-angle density of sampleSphereCone from
// p, or ok = false when p is inside or on the sphere.
func sphereConePdf(c vec3, r float32, p vec3) (float32, bool) {
	_, omc, ok := sphereCone(c, r, p)
	if !ok || !(omc > 0) {
		return 0, false
	}
	return 1 / float32(float32(2*pi)*omc), true
}

// sampleSphereCone returns a point of the sphere (centre c, radius r) seen
// from p, uniformly distributed in the cone of directions the sphere
// subtends at p, the sphere's outward unit normal there, and the density
// per solid angle; ok = false when p is inside or on the sphere. The
// direction is turned into the point on the sphere without intersecting
// it (pbrt-v4, Sphere::Sample).
func sampleSphereCone(c vec3, r float32, p vec3, u1, u2 float32) (q, n vec3, pdf float32, ok bool) {
	sin2Max, omc, ok := sphereCone(c, r, p)
	if !ok || !(omc > 0) {
		return vec3{}, vec3{}, 0, false
	}
	cosT := 1 - float32(omc*u1) // uniform in [cos θmax, 1]
	sin2T := 1 - float32(cosT*cosT)
	if sin2Max < sin2SmallCone {
		sin2T = float32(sin2Max * u1)
		cosT = sqrt32(1 - sin2T)
	}
	sinMax := sqrt32(sin2Max)
	// The angle α at the centre between −w and the sampled point.
	cosA := sin2T/sinMax + float32(cosT*sqrt32(max(0, 1-sin2T/sin2Max)))
	sinA := sqrt32(max(0, 1-float32(cosA*cosA)))
	phi := float32(2*pi) * u2
	w := normalize(c.Sub(p))
	t, b := orthonormal(w)
	// n = −(sin α cos φ·t + sin α sin φ·b + cos α·w)
	sinPhi, cosPhi := fmath.SinCos(phi)
	local := madd(madd(scale(w, cosA), t, float32(sinA*cosPhi)), b, float32(sinA*sinPhi))
	n = vec3{-local[0], -local[1], -local[2]}
	return madd(c, n, r), n, 1 / float32(float32(2*pi)*omc), true
}
