package tracer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBinFillMatchesGo: fill (binFillSSE on amd64) gives fillGo's buckets,
// bit for bit, and the same bucket per primitive, over random primitives
// with shared coordinates, zeros of both signs, centroids on bucket
// boundaries and outside the range, for every bucket count split uses.
func TestBinFillMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 19))
	coord := func() float32 {
		switch rng.IntN(8) {
		case 0:
			return 0
		case 1:
			return float32(math.Copysign(0, -1))
		case 2:
			return float32(rng.IntN(5)) // shared values, exact bucket edges
		case 3:
			return -float32(rng.IntN(5))
		}
		return (rng.Float32() - 0.3) * 8
	}
	for trial := range 300 {
		n := rng.IntN(70)
		if trial%50 == 0 {
			n = 0
		}
		prims := make([]bvhPrim, n)
		for i := range prims {
			var lo, hi vec3
			for a := range 3 {
				x, y := coord(), coord()
				lo[a], hi[a] = min(x, y), max(x, y)
			}
			prims[i] = bvhPrim{lo: lo, hi: hi, index: rng.Uint32(), kind: uint16(rng.IntN(2))}
			if rng.IntN(10) == 0 {
				prims[i].index = math.Float32bits(float32(math.NaN())) // NaN bits in the spare lanes
			}
		}
		axis := rng.IntN(3)
		nb := []int{4, 8, 16}[rng.IntN(3)]
		lo := float32(rng.IntN(3)) - 2
		scale := float32(nb) / (float32(rng.IntN(16)) + 0.5) * (1 - 1e-6)
		ids, idsGo := make([]uint8, n), make([]uint8, n)
		var got, want scalarBins
		got.fill(prims, ids, axis, lo, scale, nb)
		want.fillGo(prims, idsGo, axis, lo, scale, nb)
		for i := range ids {
			if ids[i] != idsGo[i] {
				t.Fatalf("trial %d: primitive %d in bucket %d, want %d", trial, i, ids[i], idsGo[i])
			}
		}
		for k := range nb {
			if got.count[k] != want.count[k] {
				t.Fatalf("trial %d: bucket %d counts %d, want %d", trial, k, got.count[k], want.count[k])
			}
			for a := range 3 {
				if math.Float32bits(got.lo[k][a]) != math.Float32bits(want.lo[k][a]) || math.Float32bits(got.hi[k][a]) != math.Float32bits(want.hi[k][a]) {
					t.Fatalf("trial %d: bucket %d is %v..%v, want %v..%v", trial, k, got.lo[k], got.hi[k], want.lo[k], want.hi[k])
				}
			}
		}
	}
}
