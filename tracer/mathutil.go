package tracer

import "github.com/tracerender/trace/tracer/fmath"

const (
	pi    = float32(3.14159265358979323846)
	invPi = float32(1 / 3.14159265358979323846)
)

func sqrt32(x float32) float32 { return fmath.Sqrt(x) }

// sphereUV maps a unit normal (n0, n1, n2) to longitude u in [0, 1)
// and latitude v in [0, 1]: u = (atan2(−z, x) + π)/2π, v = acos(−y)/π
// (v = 0 at the south pole). It takes scalars, which the compiler passes
// in registers (a vec3, an array, it passes on the stack).
func sphereUV(n0, n1, n2 float32) (u, v float32) {
	phi := fmath.Atan2(-n2, n0) + pi
	theta := fmath.Acos(max(-1, min(1, -n1)))
	u = phi / float32(2*pi)
	if u >= 1 {
		u = 0
	}
	v = theta / pi
	return u, v
}

// clamp01 limits x to [0, 1].
func clamp01(x float32) float32 { return max(0, min(1, x)) }

// bit is 1 for true and 0 for false, without a branch: or-ing the bits of
// several comparisons tests them all with one branch.
func bit(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}
