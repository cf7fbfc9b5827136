package tracer

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestBinFillMatchesGo: fill (binFillSSE on amd64) gives fillGo's buckets,
// bit for bit, and the same bucket per primitive, in buckets left over
// from another fill, over random primitives
// with shared coordinates, zeros of both signs, centroids on bucket
// boundaries and outside the range, for every bucket count split uses.
func TestBinFillMatchesGo(t *testing.T) {
	// binFillSSE reads a primitive as 32 bytes, lo at 0 and hi at 12.
	if p := (bvhPrim{}); unsafe.Sizeof(p) != 32 || unsafe.Offsetof(p.lo) != 0 || unsafe.Offsetof(p.hi) != 12 {
		t.Fatalf("bvhPrim: %d bytes, lo at %d, hi at %d", unsafe.Sizeof(p), unsafe.Offsetof(p.lo), unsafe.Offsetof(p.hi))
	}
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
	var got binSet
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
		var want binSet
		got.fill(prims, ids, axis, lo, scale, nb) // over the last trial's buckets, as binSAH reuses them
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
			if !sameBinBox(&got.box[k], &want.box[k]) {
				t.Fatalf("trial %d: bucket %d is %v, want %v", trial, k, got.box[k], want.box[k])
			}
		}
	}
}

// sameBinBox reports whether a and b hold the same bits in the lanes a
// binBox's readers read.
func sameBinBox(a, b *binBox) bool {
	for i := range 6 {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// TestBinSweepMatchesGo: sweep (binSweepSSE on amd64) picks sweepGo's
// boundary, with the same cost and halves bit for bit, over buckets
// filled from random primitives and over made-up buckets: empty ones,
// zeros of both signs, flat boxes, equal costs, and sizes whose areas
// overflow to infinity or NaN.
func TestBinSweepMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 11))
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 2, 0.5, 3e38, -3e38, 1e-40}
	for trial := range 2000 {
		nb := []int{4, 8, 16}[rng.IntN(3)]
		var bs binSet
		for k := range nb {
			bs.box[k] = emptyBinBox()
			if rng.IntN(4) == 0 {
				continue // empty
			}
			var lo, hi vec3
			for a := range 3 {
				var x, y float32
				if trial%2 == 0 {
					x, y = vals[rng.IntN(len(vals))], vals[rng.IntN(len(vals))]
				} else {
					x, y = rng.Float32()*4-2, rng.Float32()*4-2
				}
				lo[a], hi[a] = min(x, y), max(x, y)
			}
			bs.box[k] = binBox{lo[0], lo[1], lo[2], -hi[0], -hi[1], -hi[2]}
			bs.count[k] = 1 + rng.IntN(3)
			if rng.IntN(3) == 0 {
				bs.count[k] = 1 << rng.IntN(40)
			}
		}
		var got, want [2]binBox
		gb, gc := bs.sweep(nb, &got)
		wb, wc := bs.sweepGo(nb, &want)
		if gb != wb || math.Float32bits(gc) != math.Float32bits(wc) {
			t.Fatalf("trial %d: boundary %d cost %v, want %d cost %v", trial, gb, gc, wb, wc)
		}
		if wb >= 0 && (!sameBinBox(&got[0], &want[0]) || !sameBinBox(&got[1], &want[1])) {
			t.Fatalf("trial %d: halves %v, want %v", trial, got, want)
		}
	}
}
