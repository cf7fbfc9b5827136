package tracer

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer/fmath"
)

// Vector helpers for the ray path. mgl32's Dot, Cross, Len and Mul contain
// products that the Go compiler may fuse into multiply-adds on some targets
// (arm64; amd64 with GOAMD64=v3); these wrap every product in float32(...) so
// the result is the same rounded IEEE arithmetic the kernel's C performs.
// mgl32's Add and Sub have no products and are used as they are.

type vec3 = mgl32.Vec3

func dot(a, b vec3) float32 { return dotXYZ(a[0], a[1], a[2], b[0], b[1], b[2]) }

// dotXYZ is dot on scalars, which the compiler keeps in registers.
func dotXYZ(a0, a1, a2, b0, b1, b2 float32) float32 {
	return float32(a0*b0) + float32(a1*b1) + float32(a2*b2)
}

func cross(a, b vec3) vec3 {
	return vec3{
		float32(a[1]*b[2]) - float32(a[2]*b[1]),
		float32(a[2]*b[0]) - float32(a[0]*b[2]),
		float32(a[0]*b[1]) - float32(a[1]*b[0]),
	}
}

func length(a vec3) float32 { return fmath.Sqrt(dot(a, a)) }

// normalize returns a/|a|; a zero vector stays zero.
func normalize(a vec3) vec3 {
	x, y, z := normalizeXYZ(a[0], a[1], a[2])
	return vec3{x, y, z}
}

// normalizeXYZ is normalize on and to scalars, which the compiler keeps
// in registers.
func normalizeXYZ(x, y, z float32) (float32, float32, float32) {
	l := fmath.Sqrt(float32(x*x) + float32(y*y) + float32(z*z))
	if l == 0 {
		return x, y, z
	}
	return x / l, y / l, z / l
}

// mul is the component-wise product. Like every product here it is
// wrapped in float32(...): the Go spec lets the compiler fuse a product with
// a later addition even across statements and inlined calls, and an explicit
// conversion is what forbids it.
func mul(a, b vec3) vec3 {
	return vec3{float32(a[0] * b[0]), float32(a[1] * b[1]), float32(a[2] * b[2])}
}

// scale returns a·s.
func scale(a vec3, s float32) vec3 {
	return vec3{float32(a[0] * s), float32(a[1] * s), float32(a[2] * s)}
}

// madd returns a + b·s, rounded after the product.
func madd(a, b vec3, s float32) vec3 {
	return vec3{a[0] + float32(b[0]*s), a[1] + float32(b[1]*s), a[2] + float32(b[2]*s)}
}

// maddv returns a + b·c component-wise, rounded after the product.
func maddv(a, b, c vec3) vec3 {
	return vec3{a[0] + float32(b[0]*c[0]), a[1] + float32(b[1]*c[1]), a[2] + float32(b[2]*c[2])}
}

func maxComponent(a vec3) float32 { return max(a[0], a[1], a[2]) }

func absf(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// reflect mirrors d about the unit normal n.
func reflect(d, n vec3) vec3 {
	return madd(d, n, -2*dot(d, n))
}

// orthonormal returns two unit vectors that with the unit vector n form a
// right-handed basis (t, b, n). Duff et al., "Building an Orthonormal Basis,
// Revisited" (JCGT 2017).
func orthonormal(n vec3) (t, b vec3) {
	t0, t1, t2, b0, b1, b2 := orthonormalXYZ(n[0], n[1], n[2])
	return vec3{t0, t1, t2}, vec3{b0, b1, b2}
}

// orthonormalXYZ is orthonormal on and to scalars, which the compiler
// keeps in registers (a vec3, an array, it keeps in memory).
func orthonormalXYZ(n0, n1, n2 float32) (t0, t1, t2, b0, b1, b2 float32) {
	sign := float32(1)
	if n2 < 0 {
		sign = -1
	}
	a := -1 / (sign + n2)
	c := float32(n0*n1) * a
	return 1 + float32(sign*float32(float32(n0*n0)*a)), sign * c, -sign * n0,
		c, sign + float32(float32(n1*n1)*a), -n1
}
