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

// TestEnterPairMatchesGeneral: the slab tests for finite rays — the one
// in Go that picks each axis's entry bound by the sign of the ray's
// direction, and the SSE one on amd64 — return the same distances, bit for
// bit, and the same hits as the one that orders both products with min and
// max, on millions of random boxes and rays; a non-finite ray takes the
// general test.
func TestEnterPairMatchesGeneral(t *testing.T) {
	n := 4_000_000
	if testing.Short() {
		n = 200_000
	}
	rng := rand.New(rand.NewPCG(5, 6))
	same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }
	hits := 0
	for i := 0; i < n; i++ {
		p, r, tMax := slabTestCase(rng)
		rb := newRayBox(&r)
		if !rb.finite {
			t.Fatalf("case %d: finite ray %+v taken as non-finite", i, r)
		}
		ga, gb, ghitA, ghitB := rb.enterPairGeneral(&p, tMax)
		signed := rb
		signed.setNear() // newRayBox leaves it to the builds that use it
		sa, sb, shitA, shitB := signed.enterPairSigned(&p, tMax)
		if !same(sa, ga) || !same(sb, gb) || shitA != ghitA || shitB != ghitB {
			t.Fatalf("case %d: ray %+v tMax %g boxes %+v:\nby sign %g %g %v %v\ngeneral %g %g %v %v",
				i, r, tMax, p, sa, sb, shitA, shitB, ga, gb, ghitA, ghitB)
		}
		if slabSSE {
			va, vb, vhits := enterPairSSE(&rb, &p, tMax)
			if !same(va, ga) || !same(vb, gb) || vhits != bit(ghitA)|bit(ghitB)<<1 {
				t.Fatalf("case %d: ray %+v tMax %g boxes %+v:\nSSE %g %g hits %b\ngeneral %g %g %v %v",
					i, r, tMax, p, va, vb, vhits, ga, gb, ghitA, ghitB)
			}
		}
		hits += int(bit(ghitA) + bit(ghitB))
	}
	if hits < n/10 || hits > 2*n-n/10 {
		t.Errorf("%d hits of %d boxes: the cases do not exercise both outcomes", hits, 2*n)
	}
	for _, r := range nonFiniteRays() {
		if rb := newRayBox(&r); rb.finite {
			t.Errorf("ray %+v: taken as finite", r)
		}
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
