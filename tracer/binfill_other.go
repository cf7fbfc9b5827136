//go:build !amd64

package tracer

// fill sorts prims into nb buckets along axis (see binSAH), recording each
// one's bucket in ids.
func (bs *binSet) fill(prims []bvhPrim, ids []uint8, axis int, lo, scale float32, nb int) {
	bs.fillGo(prims, ids, axis, lo, scale, nb)
}

// sweep is sweepGo.
func (bs *binSet) sweep(nb int, halves *[2]binBox) (best int, bestCost float32) {
	return bs.sweepGo(nb, halves)
}
