package tracer

// binFillSSE is fillGo's loop in SSE: each primitive's 32 bytes in two
// vectors, its hi negated (binBox), so that two lane-wise mins grow its
// bucket's bounds. The bucket index is computed with fillGo's operations
// in its order, and the min is Go's, sign of zero included (MINPS in both
// orders, ORed), so the buckets are the same bits (TestBinFillMatchesGo).
//
//go:noescape
func binFillSSE(prims *bvhPrim, n int, ids *uint8, bins *[bvhBins]binBox, counts *[bvhBins]int, axis int, lo, scale float32, nb int)

// binSweepSSE is sweepGo in SSE, with its operations in its order: the
// same boundary, cost and halves, bit for bit (TestBinSweepMatchesGo).
//
//go:noescape
func binSweepSSE(bins *[bvhBins]binBox, counts *[bvhBins]int, nb int, halves *[2]binBox) (best int, cost float32)

// fill sorts prims into nb buckets along axis (see binSAH), recording each
// one's bucket in ids, with binFillSSE.
func (bs *binSet) fill(prims []bvhPrim, ids []uint8, axis int, lo, scale float32, nb int) {
	bs.reset(nb)
	if n := len(prims); n > 0 {
		_ = ids[n-1]
		binFillSSE(&prims[0], n, &ids[0], &bs.box, &bs.count, axis, lo, scale, nb)
	}
}

// sweep is sweepGo (see there) with binSweepSSE.
func (bs *binSet) sweep(nb int, halves *[2]binBox) (best int, bestCost float32) {
	return binSweepSSE(&bs.box, &bs.count, nb, halves)
}
