//go:build goexperiment.simd && amd64

package tracer

import (
	"simd/archsimd"
	"unsafe"
)

// The binned SAH build's bucket bounds in AVX2 vectors: a box is one 8-lane
// vector [lo x, lo y, lo z, −hi x, −hi y, −hi z, ·, ·], so that growing a
// box over another is one lane-wise min instead of three min and three max
// (each of which Go compiles to MINSS or MAXSS and fix-ups for NaN and
// zeros). A bvhPrim's first 24 bytes are its lo and hi: a load and an XOR
// of the sign bits of lanes 3-5 (an exact negation) make it such a box.
// Lanes 6 and 7 hold a primitive's index and kind and are never read.
//
// How it stays exact. The inputs are finite (Compile checks), so no lane
// that is read is NaN, and negation is exact, so −max(x, y) = min(−x, −y)
// for every pair, zeros included: the vectors hold the same values as
// binSAH's scalars. The one difference is the sign of a zero: Go's min
// orders −0 below +0, VMINPS returns its second operand of two equal
// values; minLanes sets the sign bit where either operand has it, which
// gives Go's −0 and changes no other value. The areas are computed with
// area's operations in area's order (laneArea, products rounded on their
// own: VMULPS, no FMA) and the costs in scalars as in binSAH, so
// binSAHVec picks the same split with the same bounds, and the tree is the
// same byte for byte (TestVecBuildMatchesScalar, TestVecBinSAHMatchesScalar).

// vecBuild reports whether the CPU runs the vector binning.
var vecBuild = archsimd.X86.AVX2()

// vecHiSigns negates lanes 3-5 of a primitive: its hi.
var vecHiSigns = [8]uint32{0, 0, 0, 1 << 31, 1 << 31, 1 << 31, 0, 0}

// primLanes returns a primitive's 32 bytes as 8 float32 lanes: lo in 0-2,
// hi in 3-5.
func primLanes(p *bvhPrim) *[8]float32 { return (*[8]float32)(unsafe.Pointer(p)) }

// minLanes is the lane-wise min of a and b with Go's sign of zero: −0 if
// either is −0 and the other +0; signs is 1<<31 in every lane. Of two
// equal values VMINPS returns one operand, and taking it in both orders
// does not help, as the compiler treats Min as commutative and computes
// it once. But the min of a and b has its sign bit set if and only if one
// of them has (it is at most both, and one of them), so setting the sign
// bit where a or b has it gives Go's min, and changes nothing else.
func minLanes(a, b archsimd.Float32x8, signs archsimd.Uint32x8) archsimd.Float32x8 {
	ua, ub := a.AsUint32x8(), b.AsUint32x8()
	return a.Min(b).AsUint32x8().Or(ua.Or(ub).And(signs)).AsFloat32x8()
}

// laneBox returns the box v holds.
func laneBox(v archsimd.Float32x8) bvhBox {
	var l [8]float32
	v.Store(&l)
	return bvhBox{vec3{l[0], l[1], l[2]}, vec3{-l[3], -l[4], -l[5]}}
}

// vecHiLanes moves lanes 3-5 (−hi) to 0-2.
var vecHiLanes = [8]uint32{3, 4, 5, 3, 3, 4, 5, 3}

// laneArea is bvhBox.area of the box v holds, with the same arithmetic in
// lanes: d = hi − lo, then 2·((d0·d1 + d1·d2) + d2·d0). hiLanes is
// vecHiLanes and signs is 1<<31 in every lane.
func laneArea(v archsimd.Float32x8, hiLanes, signs archsimd.Uint32x8) float32 {
	hi := v.Permute(hiLanes).AsUint32x8().Xor(signs).AsFloat32x8().GetLo()
	d := hi.Sub(v.GetLo())
	p := d.Mul(d.SelectFromPair(1, 2, 0, 3, d))
	if d.GetElem(0) < 0 {
		return 0
	}
	return 2 * (float32(p.GetElem(0)+p.GetElem(1)) + p.GetElem(2))
}

// binVec sorts prims into nb buckets along axis as binSAH does, recording
// each one's bucket in ids, and returns the buckets' bounds (in lanes, see
// above) and counts.
func binVec(prims []bvhPrim, ids []uint8, axis int, lo, scale float32, nb int, bins *[bvhBins]archsimd.Float32x8, binCount *[bvhBins]int) {
	// Two sets of buckets, for the even and the odd primitives: a
	// bucket's update waits for its last one (the store and the load of
	// the vector, the min), and neighbours in a mesh are often in the same
	// bucket. Two chains hide half the wait.
	empty := archsimd.BroadcastFloat32x8(infinity)
	var odd [bvhBins]archsimd.Float32x8
	var oddCount [bvhBins]int
	for k := 0; k < nb; k++ {
		bins[k], odd[k] = empty, empty
	}
	hiSigns, signs := archsimd.LoadUint32x8(&vecHiSigns), archsimd.BroadcastUint32x8(1<<31)
	bucket := func(p *bvhPrim) int {
		return min(max(int(float32(p.centroid2(axis)-lo)*scale), 0), nb-1) & (bvhBins - 1)
	}
	i := 0
	if len(prims) >= 512 {
		// Two more sets for large ranges, where the zeroing is cheap
		// beside the binning.
		var bins2, bins3 [bvhBins]archsimd.Float32x8
		var count2, count3 [bvhBins]int
		for k := 0; k < nb; k++ {
			bins2[k], bins3[k] = empty, empty
		}
		// The four buckets in one vector: bucket's arithmetic lane by
		// lane (the product rounded on its own, the conversion
		// truncating, the clamps exact).
		lov, scalev := archsimd.BroadcastFloat32x4(lo), archsimd.BroadcastFloat32x4(scale)
		first, last := archsimd.BroadcastInt32x4(0), archsimd.BroadcastInt32x4(int32(nb-1))
		for ; i+3 < len(prims); i += 4 {
			p, q, u, v := &prims[i], &prims[i+1], &prims[i+2], &prims[i+3]
			var c archsimd.Float32x4
			c = c.SetElem(0, p.centroid2(axis)).SetElem(1, q.centroid2(axis)).SetElem(2, u.centroid2(axis)).SetElem(3, v.centroid2(axis))
			kv := c.Sub(lov).Mul(scalev).ConvertToInt32().Max(first).Min(last)
			k, m := int(kv.GetElem(0))&(bvhBins-1), int(kv.GetElem(1))&(bvhBins-1)
			k2, k3 := int(kv.GetElem(2))&(bvhBins-1), int(kv.GetElem(3))&(bvhBins-1)
			ids[i], ids[i+1], ids[i+2], ids[i+3] = uint8(k), uint8(m), uint8(k2), uint8(k3)
			pb := archsimd.LoadFloat32x8(primLanes(p)).AsUint32x8().Xor(hiSigns).AsFloat32x8()
			qb := archsimd.LoadFloat32x8(primLanes(q)).AsUint32x8().Xor(hiSigns).AsFloat32x8()
			ub := archsimd.LoadFloat32x8(primLanes(u)).AsUint32x8().Xor(hiSigns).AsFloat32x8()
			vb := archsimd.LoadFloat32x8(primLanes(v)).AsUint32x8().Xor(hiSigns).AsFloat32x8()
			bins[k] = minLanes(bins[k], pb, signs)
			odd[m] = minLanes(odd[m], qb, signs)
			bins2[k2] = minLanes(bins2[k2], ub, signs)
			bins3[k3] = minLanes(bins3[k3], vb, signs)
			binCount[k]++
			oddCount[m]++
			count2[k2]++
			count3[k3]++
		}
		for k := 0; k < nb; k++ {
			bins[k] = minLanes(bins[k], bins2[k], signs)
			odd[k] = minLanes(odd[k], bins3[k], signs)
			binCount[k] += count2[k]
			oddCount[k] += count3[k]
		}
	}
	for ; i+1 < len(prims); i += 2 {
		p, q := &prims[i], &prims[i+1]
		k, m := bucket(p), bucket(q)
		ids[i], ids[i+1] = uint8(k), uint8(m)
		pb := archsimd.LoadFloat32x8(primLanes(p)).AsUint32x8().Xor(hiSigns).AsFloat32x8()
		qb := archsimd.LoadFloat32x8(primLanes(q)).AsUint32x8().Xor(hiSigns).AsFloat32x8()
		bins[k] = minLanes(bins[k], pb, signs)
		odd[m] = minLanes(odd[m], qb, signs)
		binCount[k]++
		oddCount[m]++
	}
	if i < len(prims) {
		p := &prims[i]
		k := bucket(p)
		ids[i] = uint8(k)
		bins[k] = minLanes(bins[k], archsimd.LoadFloat32x8(primLanes(p)).AsUint32x8().Xor(hiSigns).AsFloat32x8(), signs)
		binCount[k]++
	}
	for k := 0; k < nb; k++ {
		bins[k] = minLanes(bins[k], odd[k], signs)
		binCount[k] += oddCount[k]
	}
}

// binSAHVec is binSAH with the bucket bounds in vectors.
func (b *bvhBuilder) binSAHVec(r *bvhRange, axis int, lo, scale float32, nb int) (best int, bestCost float32, left, right bvhRange) {
	empty := archsimd.BroadcastFloat32x8(infinity)
	signs := archsimd.BroadcastUint32x8(1 << 31)
	prims, ids := b.prims[r.first:r.last], b.bin[r.first:r.last]
	var bins [bvhBins]archsimd.Float32x8
	var binCount [bvhBins]int
	if w := b.binWorkers(len(prims)); w == 0 {
		binVec(prims, ids, axis, lo, scale, nb, &bins, &binCount)
	} else {
		// On every core; min and sums are exact in any order.
		type part struct {
			bins  [bvhBins]archsimd.Float32x8
			count [bvhBins]int
		}
		parts := make([]part, w)
		eachChunk(len(prims), w, func(c, first, last int) {
			binVec(prims[first:last], ids[first:last], axis, lo, scale, nb, &parts[c].bins, &parts[c].count)
		})
		bins, binCount = parts[0].bins, parts[0].count
		for _, p := range parts[1:] {
			for k := 0; k < nb; k++ {
				bins[k] = minLanes(bins[k], p.bins[k], signs)
				binCount[k] += p.count[k]
			}
		}
	}
	// Sweep from the right for the area and count of every right part.
	hiLanes := archsimd.LoadUint32x8(&vecHiLanes)
	var rightArea [bvhBins]float32
	var rightCount [bvhBins]int
	acc, cnt := empty, 0
	for k := nb - 1; k > 0; k-- {
		acc = minLanes(acc, bins[k], signs)
		cnt += binCount[k]
		rightArea[k], rightCount[k] = laneArea(acc, hiLanes, signs), cnt
	}
	best, bestCost = -1, 0
	var leftBox archsimd.Float32x8
	acc, cnt = empty, 0
	for k := 0; k < nb-1; k++ {
		acc = minLanes(acc, bins[k], signs)
		cnt += binCount[k]
		if cnt == 0 || rightCount[k+1] == 0 {
			continue
		}
		cost := float32(laneArea(acc, hiLanes, signs)*float32(cnt)) + float32(rightArea[k+1]*float32(rightCount[k+1]))
		if best < 0 || cost < bestCost {
			best, bestCost, leftBox = k, cost, acc
		}
	}
	if best < 0 {
		return best, bestCost, left, right
	}
	// The halves' bounds: the left sweep's at best, and the right part's
	// again (the min is exact, so its order does not matter).
	binTris := b.binTriangles(r, &binCount)
	rightBox := empty
	for k := 0; k < nb; k++ {
		h := &right
		if k <= best {
			h = &left
		} else {
			rightBox = minLanes(rightBox, bins[k], signs)
		}
		h.tris += binTris[k]
		h.last += binCount[k]
	}
	left.box, right.box = laneBox(leftBox), laneBox(rightBox)
	return best, bestCost, left, right
}
