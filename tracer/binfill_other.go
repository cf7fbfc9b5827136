//go:build !amd64

package tracer

// fill sorts prims into nb buckets along axis (see binSAH), recording each
// one's bucket in ids.
func (bs *scalarBins) fill(prims []bvhPrim, ids []uint8, axis int, lo, scale float32, nb int) {
	bs.fillGo(prims, ids, axis, lo, scale, nb)
}
