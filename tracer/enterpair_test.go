package tracer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// edgeFloats are coordinates that stress the slab test: signed zeros,
// subnormals, values whose products overflow or underflow.
var edgeFloats = []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, -0.5, 1e-45, -1e-45, 1e-38, -1e-38,
	1e-20, -1e-20, 1e20, -1e20, 1e30, -1e30, 3e38, -3e38, 0.1, -0.1, 7, -7}

// slabTestCase returns a random pair of boxes (Min ≤ Max, as every BVH
// node), a finite ray and a tMax, with edge cases mixed in: rays parallel
// to slabs, origins on box faces, zero-size boxes, −0 components.
func slabTestCase(rng *rand.Rand) (p [2]BVHNode, r Ray, tMax float32) {
	coord := func() float32 {
		if rng.IntN(4) == 0 {
			return edgeFloats[rng.IntN(len(edgeFloats))]
		}
		return rng.Float32()*20 - 10
	}
	for k := range p {
		for a := 0; a < 3; a++ {
			lo, hi := coord(), coord()
			switch rng.IntN(5) {
			case 0:
				hi = lo // zero-size on this axis
			case 1:
				if lo == 0 { // [+0, −0] or [−0, +0]
					hi = -lo
				}
			}
			if hi < lo {
				lo, hi = hi, lo
			}
			p[k].Min[a], p[k].Max[a] = lo, hi
		}
		p[k].Index = rng.Uint32() >> rng.IntN(32) // lanes 3 and 7: never read as floats
		p[k].Count = uint16(rng.IntN(9))
		p[k].Info = uint16(rng.IntN(3))
	}
	for a := 0; a < 3; a++ {
		r.Origin[a] = coord()
		switch rng.IntN(6) {
		case 0:
			r.Origin[a] = p[rng.IntN(2)].Min[a] // on a face
		case 1:
			r.Origin[a] = p[rng.IntN(2)].Max[a]
		}
	}
	r.Dir = uniformSphere(rng.Float32(), rng.Float32())
	switch rng.IntN(6) {
	case 0: // parallel to one or two slabs, with either zero
		for a := 0; a < 3; a++ {
			if rng.IntN(2) == 0 {
				r.Dir[a] = edgeFloats[rng.IntN(2)]
			}
		}
	case 1:
		for a := 0; a < 3; a++ {
			r.Dir[a] = edgeFloats[rng.IntN(len(edgeFloats))]
		}
	}
	switch rng.IntN(4) {
	case 0:
		tMax = infinity
	case 1:
		tMax = edgeFloats[rng.IntN(len(edgeFloats))]
	default:
		tMax = rng.Float32() * 30
	}
	r.TMax = tMax
	return p, r, tMax
}

// TestNewRay4Finite: rays with a NaN or infinite component are told apart
// from finite ones, and take enter4General.
func TestNewRay4Finite(t *testing.T) {
	for _, r := range nonFiniteRays() {
		if rw := newRay4(&r); rw.finite {
			t.Errorf("ray %+v: taken as finite", r)
		}
	}
	r := Ray{Origin: vec3{1, 2, 3}, Dir: vec3{0, 0.6, 0.8}, TMax: infinity}
	if rw := newRay4(&r); !rw.finite {
		t.Errorf("ray %+v: taken as not finite", r)
	}
}

// nonFiniteRays returns rays with one component of the origin or the
// direction NaN, +Inf or −Inf.
func nonFiniteRays() []Ray {
	var rays []Ray
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		for c := 0; c < 6; c++ {
			r := Ray{Origin: vec3{1, 2, 3}, Dir: vec3{0, 0.6, 0.8}, TMax: infinity}
			if c < 3 {
				r.Origin[c] = bad
			} else {
				r.Dir[c-3] = bad
			}
			rays = append(rays, r)
		}
	}
	return rays
}
