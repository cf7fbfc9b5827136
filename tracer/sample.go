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
	x := float32(r * fmath.Cos(phi))
	y := float32(r * fmath.Sin(phi))
	z := sqrt32(max(0, 1-u1))
	t, b := orthonormal(n)
	return normalize(madd(madd(scale(n, z), t, x), b, y))
}

// uniformSphere returns a unit vector uniformly distributed on the sphere.
func uniformSphere(u1, u2 float32) vec3 {
	z := 1 - 2*u1
	r := sqrt32(max(0, 1-float32(z*z)))
	phi := float32(2*pi) * u2
	return vec3{float32(r * fmath.Cos(phi)), float32(r * fmath.Sin(phi)), z}
}

// phongLobe returns a direction about the unit vector axis with density
// proportional to cos^exponent of the angle to axis.
func phongLobe(axis vec3, exponent, u1, u2 float32) vec3 {
	cosA := fmath.Pow(u1, 1/(exponent+1))
	sinA := sqrt32(max(0, 1-float32(cosA*cosA)))
	phi := float32(2*pi) * u2
	t, b := orthonormal(axis)
	return normalize(madd(madd(scale(axis, cosA), t, float32(sinA*fmath.Cos(phi))), b, float32(sinA*fmath.Sin(phi))))
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
