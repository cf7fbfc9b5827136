package tracer

// binFillSSE is fillGo's loop in SSE: each primitive's 32 bytes in two
// vectors, its hi negated so that one lane-wise min grows both of its
// bucket's bounds, held in bins as (lo, -hi, two spare lanes). The bucket
// index is computed with fillGo's operations in its order, and the min
// is Go's, sign of zero included, so the buckets are the same bits
// (TestBinFillMatchesGo).
//
//go:noescape
func binFillSSE(prims *bvhPrim, n int, ids *uint8, bins *[bvhBins][8]float32, counts *[bvhBins]int, axis int, lo, scale float32, nb int)

// fill sorts prims into nb buckets along axis (see binSAH), recording each
// one's bucket in ids, with binFillSSE.
func (bs *scalarBins) fill(prims []bvhPrim, ids []uint8, axis int, lo, scale float32, nb int) {
	var v [bvhBins][8]float32
	for k := range nb {
		v[k] = [8]float32{infinity, infinity, infinity, infinity, infinity, infinity}
	}
	if n := len(prims); n > 0 {
		_ = ids[n-1]
		binFillSSE(&prims[0], n, &ids[0], &v, &bs.count, axis, lo, scale, nb)
	}
	for k := range nb {
		bs.lo[k] = vec3{v[k][0], v[k][1], v[k][2]}
		bs.hi[k] = vec3{-v[k][3], -v[k][4], -v[k][5]}
	}
}
