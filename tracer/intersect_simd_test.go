//go:build goexperiment.simd && amd64

package tracer

import (
	"math"
	"math/rand/v2"
	"simd/archsimd"
	"testing"
)

func requireAVX2(t *testing.T) {
	t.Helper()
	if !archsimd.X86.AVX2() {
		t.Skip("no AVX2: the vector traversal is not used on this CPU")
	}
}

// TestVecEnterPairMatchesScalar: the vector slab test returns the same
// distances, bit for bit, and the same hits as enterPair, on millions of
// random boxes and rays.
func TestVecEnterPairMatchesScalar(t *testing.T) {
	requireAVX2(t)
	n := 4_000_000
	if testing.Short() {
		n = 200_000
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < n; i++ {
		p, r, tMax := slabTestCase(rng)
		rv, ok := newRayVec(&r)
		if !ok {
			t.Fatalf("case %d: finite ray %+v rejected", i, r)
		}
		rb := newRayBox(&r)
		ta, tb, hitA, hitB := rb.enterPair(&p, tMax)
		va, vb, vhitA, vhitB := rv.enterPairVec(&p, clampVec(tMax))
		if math.Float32bits(ta) != math.Float32bits(va) || math.Float32bits(tb) != math.Float32bits(vb) || hitA != vhitA || hitB != vhitB {
			t.Fatalf("case %d: ray %+v tMax %g boxes %+v:\nscalar %g %g %v %v\nvector %g %g %v %v",
				i, r, tMax, p, ta, tb, hitA, hitB, va, vb, vhitA, vhitB)
		}
	}
}

// TestVecRejectsNonFiniteRays: a ray with a NaN or infinite component
// takes the scalar path.
func TestVecRejectsNonFiniteRays(t *testing.T) {
	requireAVX2(t)
	for _, r := range nonFiniteRays() {
		if _, ok := newRayVec(&r); ok {
			t.Errorf("ray %+v: accepted", r)
		}
	}
	// TMax is not a lane newRayVec checks: an infinite TMax is fine.
	if _, ok := newRayVec(&Ray{Dir: vec3{1, 0, 0}, TMax: float32(math.Inf(1))}); !ok {
		t.Error("infinite TMax: rejected")
	}
}

// TestVecTraversalMatchesScalar: Intersect and Occluded give the same
// answers, bit for bit, with the vector traversal as with the scalar one,
// on random scenes and rays: rays along the axes, starting on node faces,
// with −0 components, and non-finite rays (which take the scalar path).
func TestVecTraversalMatchesScalar(t *testing.T) {
	requireAVX2(t)
	nrays := 20000
	if testing.Short() {
		nrays = 2000
	}
	for seed := uint64(1); seed <= 3; seed++ {
		s := randomScene(t, seed, 5000*int(seed), 20)
		for k, n := range s.Nodes[2:] { // enterPairVec relies on Min ≤ Max
			if !(n.Min[0] <= n.Max[0] && n.Min[1] <= n.Max[1] && n.Min[2] <= n.Max[2]) {
				t.Fatalf("seed %d: node %d: Min %v > Max %v", seed, k+2, n.Min, n.Max)
			}
		}
		rng := rand.New(rand.NewPCG(seed, 5))
		for i := 0; i < nrays; i++ {
			o := vec3{rng.Float32()*14 - 2, rng.Float32()*14 - 2, rng.Float32()*14 - 2}
			d := uniformSphere(rng.Float32(), rng.Float32())
			switch i % 8 {
			case 0: // along an axis, the other components ±0
				d = vec3{edgeFloats[rng.IntN(2)], edgeFloats[rng.IntN(2)], edgeFloats[rng.IntN(2)]}
				d[rng.IntN(3)] = []float32{1, -1}[rng.IntN(2)]
			case 1: // from a face of a node's box
				n := &s.Nodes[rng.IntN(len(s.Nodes))]
				a := rng.IntN(3)
				o[a] = []float32{n.Min[a], n.Max[a]}[rng.IntN(2)]
			case 2: // a −0 origin component
				o[rng.IntN(3)] = edgeFloats[1]
			case 3: // non-finite
				if rng.IntN(2) == 0 {
					o[rng.IntN(3)] = float32(math.NaN())
				} else {
					d[rng.IntN(3)] = float32(math.Inf(1))
				}
			}
			r := Ray{Origin: o, Dir: d, TMax: infinity}
			if i%3 == 0 {
				r.TMax = rng.Float32() * 5
			}
			vecTraversal = true
			vh, vocc := s.Intersect(r), s.Occluded(r)
			vecTraversal = false
			sh, socc := s.Intersect(r), s.Occluded(r)
			vecTraversal = true
			if !sameHit(vh, sh) || vocc != socc {
				t.Fatalf("seed %d ray %d %+v: vector %+v occluded %v, scalar %+v occluded %v", seed, i, r, vh, vocc, sh, socc)
			}
		}
	}
}
