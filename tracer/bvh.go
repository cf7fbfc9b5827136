package tracer

// BVHNode is one node of the bounding volume hierarchy, 32 bytes, in
// depth-first order: an interior node's first child follows it, its second
// child is at Index. A leaf (Count > 0) holds Shapes[Index : Index+Count].
// Axis is the split axis of an interior node, used to visit the nearer child
// first.
type BVHNode struct {
	Min   vec3
	Index uint32
	Max   vec3
	Count uint16
	Axis  uint16
}

// bvhLeafSize is the most shapes a leaf holds.
const bvhLeafSize = 4

// bvhBins is the number of buckets of the binned SAH build.
const bvhBins = 16

type bvhPrim struct {
	lo, hi, centroid vec3
	shape            Shape
}

// buildBVH builds a BVH over finite shapes with the surface area heuristic
// evaluated over bvhBins buckets per node (Wald, "On fast Construction of
// SAH-based Bounding Volume Hierarchies", 2007). It returns the nodes and
// the shapes reordered so that every leaf is a contiguous run.
func buildBVH(shapes []Shape) ([]BVHNode, []Shape) {
	if len(shapes) == 0 {
		return nil, nil
	}
	prims := make([]bvhPrim, len(shapes))
	for i := range shapes {
		lo, hi := shapes[i].bounds()
		prims[i] = bvhPrim{lo: lo, hi: hi, centroid: lo.Add(hi).Mul(0.5), shape: shapes[i]}
	}
	b := &bvhBuilder{prims: prims}
	b.build(0, len(prims), 0)
	out := make([]Shape, len(prims))
	for i := range prims {
		out[i] = prims[i].shape
	}
	return b.nodes, out
}

type bvhBuilder struct {
	prims []bvhPrim
	nodes []BVHNode
}

func surfaceArea(lo, hi vec3) float32 {
	d := hi.Sub(lo)
	return 2 * (float32(d[0]*d[1]) + float32(d[1]*d[2]) + float32(d[2]*d[0]))
}

// bvhMaxSAHDepth is the depth past which nodes are split in the middle of
// their list instead of by SAH, so that no tree is deeper than
// bvhMaxSAHDepth + log2(MaxShapes) < bvhStackSize, whatever the input.
const bvhMaxSAHDepth = 40

// build makes the node for prims[first:last] at the given depth and returns
// its index.
func (b *bvhBuilder) build(first, last, depth int) uint32 {
	idx := uint32(len(b.nodes))
	b.nodes = append(b.nodes, BVHNode{})
	lo, hi := b.prims[first].lo, b.prims[first].hi
	clo, chi := b.prims[first].centroid, b.prims[first].centroid
	for i := first + 1; i < last; i++ {
		p := &b.prims[i]
		lo, hi = vmin(lo, p.lo), vmax(hi, p.hi)
		clo, chi = vmin(clo, p.centroid), vmax(chi, p.centroid)
	}
	n := last - first
	leaf := BVHNode{Min: lo, Max: hi, Index: uint32(first), Count: uint16(n)}
	if n <= bvhLeafSize {
		b.nodes[idx] = leaf
		return idx
	}
	axis, mid := 0, first+n/2
	if depth < bvhMaxSAHDepth {
		axis, mid = b.split(first, last, clo, chi, lo, hi)
	}
	if mid < 0 {
		b.nodes[idx] = leaf
		return idx
	}
	b.build(first, mid, depth+1)
	right := b.build(mid, last, depth+1)
	b.nodes[idx] = BVHNode{Min: lo, Max: hi, Index: right, Axis: uint16(axis)}
	return idx
}

// split partitions prims[first:last] by the cheapest binned SAH plane and
// returns the axis and the index of the first primitive of the second half,
// or mid < 0 when a leaf is cheaper (and holds at most 255 shapes).
func (b *bvhBuilder) split(first, last int, clo, chi, lo, hi vec3) (axis, mid int) {
	n := last - first
	ext := chi.Sub(clo)
	axis = 0
	if ext[1] > ext[axis] {
		axis = 1
	}
	if ext[2] > ext[axis] {
		axis = 2
	}
	if ext[axis] <= 0 {
		// All centroids coincide: split in the middle of the list.
		return axis, first + n/2
	}
	type bin struct {
		lo, hi vec3
		count  int
	}
	var bins [bvhBins]bin
	scale := float32(bvhBins) / ext[axis]
	binOf := func(p *bvhPrim) int {
		k := int((p.centroid[axis] - clo[axis]) * scale)
		return min(max(k, 0), bvhBins-1)
	}
	for i := first; i < last; i++ {
		p := &b.prims[i]
		k := binOf(p)
		if bins[k].count == 0 {
			bins[k].lo, bins[k].hi = p.lo, p.hi
		} else {
			bins[k].lo, bins[k].hi = vmin(bins[k].lo, p.lo), vmax(bins[k].hi, p.hi)
		}
		bins[k].count++
	}
	// Sweep from the right to get the area and count of every right part.
	var rightArea [bvhBins]float32
	var rightCount [bvhBins]int
	var rlo, rhi vec3
	cnt := 0
	for k := bvhBins - 1; k > 0; k-- {
		if bins[k].count > 0 {
			if cnt == 0 {
				rlo, rhi = bins[k].lo, bins[k].hi
			} else {
				rlo, rhi = vmin(rlo, bins[k].lo), vmax(rhi, bins[k].hi)
			}
			cnt += bins[k].count
		}
		rightCount[k] = cnt
		if cnt > 0 {
			rightArea[k] = surfaceArea(rlo, rhi)
		}
	}
	best, bestCost := -1, float32(0)
	var llo, lhi vec3
	cnt = 0
	for k := 0; k < bvhBins-1; k++ {
		if bins[k].count > 0 {
			if cnt == 0 {
				llo, lhi = bins[k].lo, bins[k].hi
			} else {
				llo, lhi = vmin(llo, bins[k].lo), vmax(lhi, bins[k].hi)
			}
			cnt += bins[k].count
		}
		if cnt == 0 || rightCount[k+1] == 0 {
			continue
		}
		cost := float32(surfaceArea(llo, lhi)*float32(cnt)) + float32(rightArea[k+1]*float32(rightCount[k+1]))
		if best < 0 || cost < bestCost {
			best, bestCost = k, cost
		}
	}
	// Cost of a leaf versus a split, with traversal ≈ one intersection.
	area := surfaceArea(lo, hi)
	if best < 0 || (n <= 255 && area > 0 && 1+bestCost/area >= float32(n)) {
		if n <= 255 {
			return axis, -1
		}
		if best < 0 {
			return axis, first + n/2
		}
	}
	// Stable partition: the left part first, each part in its old order.
	part := b.prims[first:last]
	tmp := make([]bvhPrim, 0, n)
	for i := range part {
		if binOf(&part[i]) <= best {
			tmp = append(tmp, part[i])
		}
	}
	mid = first + len(tmp)
	for i := range part {
		if binOf(&part[i]) > best {
			tmp = append(tmp, part[i])
		}
	}
	copy(part, tmp)
	return axis, mid
}
