package tracer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestHit4MatchesScalar: the four-lane triangle test returns, in every lane,
// the bits of Triangle.intersect's t, b1 and b2 and its verdict, on random
// triangles (some degenerate, some tiny, some huge) and rays (some parallel
// to the triangle's plane, some with a short TMax, some non-finite).
func TestHit4MatchesScalar(t *testing.T) {
	if !slabSSE {
		t.Skip("no SSE leaf test on this architecture: Triangle.intersect runs alone")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	rv := func() vec3 {
		v := vec3{rng.Float32()*4 - 2, rng.Float32()*4 - 2, rng.Float32()*4 - 2}
		switch rng.IntN(8) {
		case 0:
			v = scale(v, 1e-20)
		case 1:
			v = scale(v, 1e20)
		case 2:
			v[rng.IntN(3)] = 0
		}
		return v
	}
	b := math.Float32bits
	n := 400_000
	if testing.Short() {
		n = 40_000
	}
	hits := 0
	for i := 0; i < n; i++ {
		var tris [4]Triangle
		for k := range tris {
			tris[k] = Triangle{P0: rv(), E1: rv(), E2: rv()}
			switch rng.IntN(10) {
			case 0:
				tris[k].E2 = tris[k].E1 // degenerate: det = 0
			case 1:
				tris[k].E2 = scale(tris[k].E1, 2)
			}
		}
		r := Ray{Origin: rv(), Dir: normalize(rv()), TMax: infinity}
		if rng.IntN(2) == 0 { // at a point inside one of the triangles
			tr := &tris[rng.IntN(4)]
			u, v := rng.Float32()*0.5, rng.Float32()*0.5
			r.Dir = normalize(madd(madd(tr.P0, tr.E1, u), tr.E2, v).Sub(r.Origin))
		}
		switch rng.IntN(8) {
		case 0:
			r.TMax = rng.Float32() * 3
		case 1: // in the plane of triangle 0
			r.Dir = normalize(tris[0].E1)
		case 2:
			r.Origin[rng.IntN(3)] = float32(math.NaN())
		case 3:
			r.Dir[rng.IntN(3)] = float32(math.Inf(1))
		}
		rw := newRay4(&r)
		var out [3][4]float32
		bits := hit4SSE(rw.leafRay(), &tris[0], &tris[1], &tris[2], &tris[3], r.TMax, &out)
		for k := range tris {
			tt, b1, b2, ok := tris[k].intersect(&r)
			if ok != (bits&(1<<k) != 0) {
				t.Fatalf("case %d lane %d: triangle %+v ray %+v: scalar hit %v, SSE bits %04b", i, k, tris[k], r, ok, bits)
			}
			if ok && (b(tt) != b(out[0][k]) || b(b1) != b(out[1][k]) || b(b2) != b(out[2][k])) {
				t.Fatalf("case %d lane %d: triangle %+v ray %+v: scalar (%v, %v, %v), SSE (%v, %v, %v)",
					i, k, tris[k], r, tt, b1, b2, out[0][k], out[1][k], out[2][k])
			}
			if ok {
				hits++
			}
		}
	}
	if hits < n/10 {
		t.Errorf("%d hits in %d tests: the cases hardly exercise hits", hits, 4*n)
	}
}
