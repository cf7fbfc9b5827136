package scenes

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// parallelTolerance is the sine of the smallest angle two directions may
// make to count as not parallel: the camera's up and view directions, a
// quad's edges, a triangle's edges at its first vertex. 1e-6 radians is far
// below anything a user means, and still leaves float32 arithmetic a few
// significant bits of the cross product.
const parallelTolerance = 1e-6

// parallel reports whether a and b are parallel within parallelTolerance,
// or either is zero: |a × b| ≤ tol·|a|·|b|, computed in float64 so that
// the test itself neither overflows nor underflows. Non-finite input
// counts as parallel.
func parallel(a, b mgl32.Vec3) bool {
	ax, ay, az := float64(a[0]), float64(a[1]), float64(a[2])
	bx, by, bz := float64(b[0]), float64(b[1]), float64(b[2])
	cross := math.Sqrt(sq(ay*bz-az*by) + sq(az*bx-ax*bz) + sq(ax*by-ay*bx))
	la := math.Sqrt(sq(ax) + sq(ay) + sq(az))
	lb := math.Sqrt(sq(bx) + sq(by) + sq(bz))
	return !(cross > parallelTolerance*la*lb)
}

// normalizable reports whether the renderer can normalise v in float32:
// its squared length is neither zero (underflow) nor infinite (overflow).
func normalizable(v mgl32.Vec3) bool {
	l2 := float32(v[0]*v[0]) + float32(v[1]*v[1]) + float32(v[2]*v[2])
	return l2 > 0 && !math.IsInf(float64(l2), 0)
}

func sq(x float64) float64 { return x * x }
