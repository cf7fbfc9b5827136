//go:build goexperiment.simd && amd64

package tracer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// leafTestCase returns a leaf of 1 to 8 triangles and a finite ray with
// its TMax: random triangles, and triangles the ray crosses near their
// edges and corners, degenerate ones (zero area, or in the ray's plane),
// equal triangles (equal distances), and edge floats in the coordinates.
func leafTestCase(rng *rand.Rand) ([]Triangle, Ray) {
	coord := func() float32 {
		if rng.IntN(8) == 0 {
			return edgeFloats[rng.IntN(len(edgeFloats))]
		}
		return rng.Float32()*4 - 2
	}
	vec := func() vec3 { return vec3{coord(), coord(), coord()} }
	r := Ray{Origin: vec(), Dir: uniformSphere(rng.Float32(), rng.Float32()), TMax: infinity}
	if rng.IntN(3) == 0 {
		r.TMax = rng.Float32() * 4
	}
	tris := make([]Triangle, 1+rng.IntN(8))
	for i := range tris {
		tr := &tris[i]
		switch rng.IntN(6) {
		case 0: // around a point on the ray, which it crosses near an edge or a corner
			p := r.At(rng.Float32() * 3)
			e1, e2 := vec(), vec()
			b1 := []float32{0, 1, rng.Float32(), 0.5}[rng.IntN(4)]
			b2 := []float32{0, 1 - b1, rng.Float32() * (1 - b1)}[rng.IntN(3)]
			tr.P0 = p.Sub(e1.Mul(b1)).Sub(e2.Mul(b2))
			tr.E1, tr.E2 = e1, e2
		case 1: // degenerate
			tr.P0, tr.E1 = vec(), vec()
			tr.E2 = tr.E1.Mul(2)
		case 2: // in a plane holding the ray's direction
			tr.P0, tr.E1 = vec(), r.Dir
			tr.E2 = vec()
		case 3: // a copy of an earlier one: equal distances
			if i > 0 {
				*tr = tris[rng.IntN(i)]
				break
			}
			fallthrough
		default:
			tr.P0, tr.E1, tr.E2 = vec(), vec(), vec()
		}
	}
	return tris, r
}

// TestLeafVecMatchesScalar: a leaf's triangles tested four at a time give
// the hit the scalar loop keeps, bit for bit (distance, triangle,
// barycentrics), and the same answer to "any hit?", on random leaves.
func TestLeafVecMatchesScalar(t *testing.T) {
	requireAVX2(t)
	rng := rand.New(rand.NewPCG(11, 12))
	hits, ties := 0, 0
	for trial := 0; trial < 300000; trial++ {
		tris, r := leafTestCase(rng)
		s := &Scene{Triangles: tris}
		end := uint32(len(tris))

		want, wr := Hit{T: r.TMax}, r
		seen := map[float32]int{}
		for i := range tris {
			if tt, b1, b2, ok := tris[i].intersect(&wr); ok && want.takesTriangle(tt, uint32(i)) {
				wr.TMax = tieBound(tt)
				want = Hit{T: tt, Kind: HitTriangle, Index: uint32(i), HitCoords: HitCoords{B1: b1, B2: b2}}
			}
			if tt, _, _, ok := tris[i].intersect(&r); ok {
				seen[tt]++
			}
		}
		got, gr := Hit{T: r.TMax}, r
		lr := newLeafRay(&gr)
		s.leafVec(&gr, &got, &lr, 0, end)
		if got.Kind != want.Kind || got.Index != want.Index || math.Float32bits(got.T) != math.Float32bits(want.T) ||
			math.Float32bits(got.B1) != math.Float32bits(want.B1) || math.Float32bits(got.B2) != math.Float32bits(want.B2) ||
			math.Float32bits(gr.TMax) != math.Float32bits(wr.TMax) {
			t.Fatalf("trial %d, %d triangles, ray %+v:\nvector %+v\nscalar %+v", trial, len(tris), r, got, want)
		}
		if anyHit := s.occludedLeafVec(&r, &lr, 0, end); anyHit != (want.Kind != HitNone) {
			t.Fatalf("trial %d: occludedLeafVec = %v, scalar hit %+v", trial, anyHit, want)
		}
		if want.Kind != HitNone {
			hits++
			if seen[want.T] > 1 {
				ties++
			}
		}
	}
	// What the comparison is about: many hits, and hits at equal distances.
	if hits < 10000 || ties < 100 {
		t.Fatalf("%d hits, %d at a distance two triangles share: the cases no longer cover the leaf", hits, ties)
	}
	t.Logf("%d hits, %d at a distance two triangles share", hits, ties)
}
