package tracer

import (
	"runtime"
	"sync"
)

// BVHNode is one node of the bounding volume hierarchy over the scene's
// bounded primitives (triangles and the analytic shapes other than planes),
// 32 bytes. Node 0 is the root and node 1 is unused, so that every pair of
// siblings starts at an even index and shares one 64-byte cache line. An
// interior node (Count == 0) has its two
// children at Index and Index+1, and Info is the split axis. A leaf
// (Count > 0) holds Count primitives of one kind, Info (LeafTriangles or
// LeafShapes), starting at Index in Scene.Triangles or Scene.Shapes.
type BVHNode struct {
	Min   vec3
	Index uint32
	Max   vec3
	Count uint16
	Info  uint16
}

// Leaf kinds, in BVHNode.Info.
const (
	LeafTriangles uint16 = 0
	LeafShapes    uint16 = 1
)

const (
	// bvhMaxLeaf is the most primitives a leaf holds.
	bvhMaxLeaf = 8
	// bvhBins is the number of buckets of the binned SAH build.
	bvhBins = 16
	// bvhMaxSAHDepth is the depth past which nodes are split in the middle
	// of their list instead of by SAH, so that no tree is deeper than
	// bvhMaxSAHDepth + log2(MaxTriangles) < bvhStackSize, whatever the input.
	bvhMaxSAHDepth = 32
	// bvhTraversalCost is the cost of visiting a node relative to one
	// primitive intersection, for the SAH. 1, the textbook value: with the
	// SSE slab and leaf tests (slab_amd64.s) a node pair costs about as
	// much as a triangle. Against 3, which makes leaves of about 4
	// triangles instead of 2, it runs the Cornell box (large, overlapping
	// triangles) with 6 % fewer instructions and a sixth fewer mispredicted
	// branches (2 is half-way), and the 50,000-triangle icosphere's rays
	// and the materials and mesh scenes within 1 % either way (valgrind
	// --tool=cachegrind), for twice the nodes (15 bytes more per triangle).
	bvhTraversalCost = 1.0
	// bvhParallelMin is the smallest subtree built on a goroutine of its own.
	bvhParallelMin = 1 << 14
	// bvhParallelBin is the smallest range binned on every core.
	bvhParallelBin = 1 << 16
)

// bvhPrim is a primitive being sorted into the tree: its bounds, its kind
// (LeafTriangles or LeafShapes) and its index in its own array. 32 bytes, so
// partitioning moves little memory.
type bvhPrim struct {
	lo, hi vec3
	index  uint32
	kind   uint16
	_      uint16
}

// setTriangle makes p triangle i, bounded by tr.bounds(). In scalars, not
// vec3: Go keeps arrays in memory, and copying one right after writing
// its elements one by one stalls on store forwarding.
func (p *bvhPrim) setTriangle(tr *Triangle, i uint32) {
	x0, y0, z0 := tr.P0[0], tr.P0[1], tr.P0[2]
	x1, y1, z1 := x0+tr.E1[0], y0+tr.E1[1], z0+tr.E1[2]
	x2, y2, z2 := x0+tr.E2[0], y0+tr.E2[1], z0+tr.E2[2]
	*p = bvhPrim{
		lo:    vec3{min(x0, x1, x2), min(y0, y1, y2), min(z0, z1, z2)},
		hi:    vec3{max(x0, x1, x2), max(y0, y1, y2), max(z0, z1, z2)},
		index: i, kind: LeafTriangles,
	}
}

// centroid2 returns twice the centroid on axis a (lo + hi, no halving).
func (p *bvhPrim) centroid2(a int) float32 { return p.lo[a] + p.hi[a] }

type bvhBox struct{ lo, hi vec3 }

func emptyBox() bvhBox {
	return bvhBox{vec3{infinity, infinity, infinity}, vec3{-infinity, -infinity, -infinity}}
}

// grow extends the box over [lo, hi]. Plain comparisons, cheaper than
// Go's NaN-aware min and max: the build's inputs are finite (Compile
// checks), and after the first few primitives the branches are predictable.
func (b *bvhBox) grow(lo, hi *vec3) {
	if lo[0] < b.lo[0] {
		b.lo[0] = lo[0]
	}
	if lo[1] < b.lo[1] {
		b.lo[1] = lo[1]
	}
	if lo[2] < b.lo[2] {
		b.lo[2] = lo[2]
	}
	if hi[0] > b.hi[0] {
		b.hi[0] = hi[0]
	}
	if hi[1] > b.hi[1] {
		b.hi[1] = hi[1]
	}
	if hi[2] > b.hi[2] {
		b.hi[2] = hi[2]
	}
}

func (b *bvhBox) area() float32 {
	d := b.hi.Sub(b.lo)
	if d[0] < 0 {
		return 0
	}
	return 2 * (float32(d[0]*d[1]) + float32(d[1]*d[2]) + float32(d[2]*d[0]))
}

// bvhRange is a run of primitives with its bounds, the bounds of their
// doubled centroids and how many are triangles.
type bvhRange struct {
	first, last int
	box, cbox   bvhBox
	tris        int
}

func (r *bvhRange) mixed() bool { return r.tris != 0 && r.tris != r.last-r.first }

// buildBVH builds the hierarchy over prims with the surface area heuristic
// evaluated over bvhBins buckets per node (Wald, "On fast Construction of
// SAH-based Bounding Volume Hierarchies", 2007), subtrees on every core. It
// reorders prims so every leaf is a contiguous run, and returns the nodes.
// The result depends only on the input, never on scheduling: the upper
// levels are built first, the subtrees below them independently, and the
// subtrees' nodes are appended in a fixed order.
func buildBVH(prims []bvhPrim) []BVHNode {
	if len(prims) == 0 {
		return nil
	}
	// The upper levels: split until subtrees are small enough to share out.
	cutoff := max(bvhParallelMin, len(prims)/(8*runtime.GOMAXPROCS(0)))
	bins := make([]uint8, len(prims))
	b := &bvhBuilder{prims: prims, bin: bins, cutoff: cutoff}
	if runtime.GOMAXPROCS(0) == 1 {
		b.nodes = make([]BVHNode, 2, nodeEstimate(len(prims))) // the root and the pad
	} else {
		b.nodes = make([]BVHNode, 2, 64) // the upper levels only
	}
	adviseHugePages(b.nodes)
	b.build(0, measure(prims, 0, len(prims)), 0)
	if len(b.tasks) == 0 {
		return b.nodes
	}
	if runtime.GOMAXPROCS(0) == 1 {
		// One core: build the subtrees in place, one after the other. Each
		// appends its nodes where the stitch below would put them, so the
		// tree is the same, without a second copy of the nodes.
		b.cutoff = 0
		for _, t := range b.tasks {
			b.build(t.node, t.r, t.depth)
		}
		return b.nodes
	}
	// The subtrees, in parallel.
	sub := make([]*bvhBuilder, len(b.tasks))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, t := range b.tasks {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			sb := &bvhBuilder{prims: prims, bin: bins} // cutoff 0: no further tasks; disjoint ranges
			sb.nodes = make([]BVHNode, 2, nodeEstimate(t.r.last-t.r.first))
			sb.build(0, t.r, t.depth)
			sub[i] = sb
		}()
	}
	wg.Wait()
	total := len(b.nodes)
	for _, sb := range sub {
		total += len(sb.nodes) - 2
	}
	// The tree's array, allocated once at its size: the subtrees' arrays
	// are scratch, dropped as they are copied in.
	nodes := make([]BVHNode, len(b.nodes), total)
	adviseHugePages(nodes)
	copy(nodes, b.nodes)
	b.nodes = nodes
	// Stitch: each subtree's root goes to its reserved slot, the rest
	// (less the pad) is appended with its child indices shifted by an even
	// amount, keeping sibling pairs aligned.
	for i, t := range b.tasks {
		nodes := sub[i].nodes
		sub[i] = nil
		off := uint32(len(b.nodes)) - 2 // local index j ≥ 2 goes to off + j
		for j := range nodes {
			n := nodes[j]
			if n.Count == 0 {
				n.Index += off
			}
			switch {
			case j == 0:
				b.nodes[t.node] = n
			case j >= 2:
				b.nodes = append(b.nodes, n)
			}
		}
	}
	return b.nodes
}

// nodeEstimate returns the capacity to allocate for the nodes over n
// primitives: one per primitive. With bvhTraversalCost 1 the SAH makes
// leaves of about two primitives on dense meshes (a subdivided scan: 0.97
// nodes per primitive), fewer on sparse ones (0.37 to 0.45 on smooth,
// random and lattice meshes); a tree that needs more grows the slice, and
// each growth leaves a copy of the nodes behind until the collector runs.
func nodeEstimate(n int) int { return n + 64 }

// binWorkers returns how many goroutines bin a range of n primitives: 0
// (the caller's alone) but for the large ranges at the top of the tree,
// which are built before there are subtrees to share out, on a machine
// with more than one core. The buckets are merged with min, max and sums,
// which are exact, so the tree is the same however many there are.
func (b *bvhBuilder) binWorkers(n int) int {
	if b.cutoff == 0 || n < bvhParallelBin {
		return 0
	}
	if w := min(runtime.GOMAXPROCS(0), n/(bvhParallelBin/2)); w > 1 {
		return w
	}
	return 0
}

// eachChunk calls f(c, first, last) for the w chunks c of [0, n) at once,
// and waits.
func eachChunk(n, w int, f func(c, first, last int)) {
	var wg sync.WaitGroup
	for c := range w {
		wg.Add(1)
		go func() { defer wg.Done(); f(c, n*c/w, n*(c+1)/w) }()
	}
	wg.Wait()
}

// bvhTask is a subtree left for a goroutine: the node slot of its root and
// its primitives.
type bvhTask struct {
	node  uint32
	r     bvhRange
	depth int
}

type bvhBuilder struct {
	prims   []bvhPrim
	bin     []uint8 // scratch: each primitive's bucket in the current split
	buckets binSet  // scratch: the current split's buckets (binSAH)
	nodes   []BVHNode
	cutoff  int // subtrees with fewer primitives become tasks
	tasks   []bvhTask
}

// measure returns the range prims[first:last] with its bounds.
func measure(prims []bvhPrim, first, last int) bvhRange {
	r := bvhRange{first: first, last: last, box: emptyBox(), cbox: emptyBox()}
	box, cbox := &r.box, &r.cbox
	for i := first; i < last; i++ {
		p := &prims[i]
		box.grow(&p.lo, &p.hi)
		for a := range 3 {
			c := p.lo[a] + p.hi[a]
			if c < cbox.lo[a] {
				cbox.lo[a] = c
			}
			if c > cbox.hi[a] {
				cbox.hi[a] = c
			}
		}
		if p.kind == LeafTriangles {
			r.tris++
		}
	}
	return r
}

// build fills node idx for the range r at the given depth.
func (b *bvhBuilder) build(idx uint32, r bvhRange, depth int) {
	n := r.last - r.first
	if n < b.cutoff && depth > 0 {
		b.tasks = append(b.tasks, bvhTask{node: idx, r: r, depth: depth})
		return
	}
	mixed := r.mixed()
	leaf := BVHNode{Min: r.box.lo, Max: r.box.hi, Index: uint32(r.first), Count: uint16(n)}
	if !mixed {
		leaf.Info = uint16(b.prims[r.first].kind)
	}
	var axis int
	var left, right bvhRange
	ok := false
	switch {
	case n <= 2 && !mixed:
		b.nodes[idx] = leaf
		return
	case mixed && n <= bvhMaxLeaf:
		// A mixed leaf is not allowed: split by kind instead.
	case depth < bvhMaxSAHDepth:
		axis, left, right, ok = b.split(r)
		if !ok && !mixed && n <= bvhMaxLeaf {
			b.nodes[idx] = leaf // cheaper as a leaf
			return
		}
	}
	if !ok {
		mid := r.first + n/2
		if mixed {
			mid = r.first + partitionKind(b.prims[r.first:r.last])
		}
		left, right = measure(b.prims, r.first, mid), measure(b.prims, mid, r.last)
	}
	child := uint32(len(b.nodes))
	b.nodes = append(b.nodes, BVHNode{}, BVHNode{})
	b.nodes[idx] = BVHNode{Min: r.box.lo, Max: r.box.hi, Index: child, Info: uint16(axis)}
	b.build(child, left, depth+1)
	b.build(child+1, right, depth+1)
}

// partitionKind moves triangles before shapes and returns the number of
// triangles.
func partitionKind(p []bvhPrim) int {
	i, j := 0, len(p)-1
	for {
		for i <= j && p[i].kind == LeafTriangles {
			i++
		}
		for i <= j && p[j].kind != LeafTriangles {
			j--
		}
		if i >= j {
			return i
		}
		p[i], p[j] = p[j], p[i]
	}
}

// split picks the cheapest binned SAH plane for the range and partitions
// its primitives about it, returning the two halves with their bounds. It
// returns ok = false when no plane separates the centroids, or when a leaf
// would cost less than any split and the primitives fit one; the range is
// then left as it was.
func (b *bvhBuilder) split(r bvhRange) (axis int, left, right bvhRange, ok bool) {
	n := r.last - r.first
	ext := r.cbox.hi.Sub(r.cbox.lo)
	axis = 0
	if ext[1] > ext[axis] {
		axis = 1
	}
	if ext[2] > ext[axis] {
		axis = 2
	}
	if !(ext[axis] > 0) {
		return axis, left, right, false
	}
	// Fewer buckets for small nodes, whose per-node cost dominates.
	nb := bvhBins
	if n < 64 {
		nb = 8
	}
	if n < 12 {
		nb = 4
	}
	lo := r.cbox.lo[axis]
	scale := float32(nb) / ext[axis] * (1 - 1e-6)
	best, bestCost, left, right := b.binSAH(&r, axis, lo, scale, nb)
	if best < 0 {
		return axis, left, right, false
	}
	if area := r.box.area(); n <= bvhMaxLeaf && area > 0 && float32(bvhTraversalCost)+bestCost/area >= float32(n) {
		return axis, left, right, false
	}
	// The halves' centroid bounds are the parent's cut at the bucket
	// boundary: a little loose, which costs nothing but some binning
	// resolution, and saves tracking them.
	left.cbox, right.cbox = r.cbox, r.cbox
	cut := lo + float32(best+1)/scale
	left.cbox.hi[axis], right.cbox.lo[axis] = min(cut, r.cbox.hi[axis]), max(cut, r.cbox.lo[axis])
	prims, ids := b.prims[r.first:r.last], b.bin[r.first:r.last]
	// Partition in place about the chosen bucket boundary.
	cutBin := uint8(best)
	i, j := 0, len(prims)-1
	for {
		for i <= j && ids[i] <= cutBin {
			i++
		}
		for i <= j && ids[j] > cutBin {
			j--
		}
		if i >= j {
			break
		}
		prims[i], prims[j] = prims[j], prims[i]
		ids[i], ids[j] = ids[j], ids[i]
	}
	left.first, left.last = r.first, r.first+i
	right.first, right.last = r.first+i, r.last
	return axis, left, right, true
}

// binSAH sorts the range's primitives into nb buckets along axis (bucket k
// holds the doubled centroids in [lo + k/scale, lo + (k+1)/scale)),
// recording each one's bucket in b.bin, and sweeps the buckets for the
// cheapest SAH split. It returns the last bucket of the left half (−1 if
// no boundary has primitives on both sides), the split's cost, and the
// halves' bounds, triangle counts and sizes (in last; split sets first and
// cbox).
func (b *bvhBuilder) binSAH(r *bvhRange, axis int, lo, scale float32, nb int) (best int, bestCost float32, left, right bvhRange) {
	all := &b.buckets
	prims, ids := b.prims[r.first:r.last], b.bin[r.first:r.last]
	// The large ranges at the top on every core (see binWorkers); the
	// buckets are merged with min and sums, which are exact in any order.
	if w := b.binWorkers(len(prims)); w == 0 {
		all.fill(prims, ids, axis, lo, scale, nb)
	} else {
		parts := make([]binSet, w)
		eachChunk(len(prims), len(parts), func(c, first, last int) {
			parts[c].fill(prims[first:last], ids[first:last], axis, lo, scale, nb)
		})
		all = &parts[0]
		for i := 1; i < w; i++ {
			for k := 0; k < nb; k++ {
				all.box[k].include(&parts[i].box[k])
				all.count[k] += parts[i].count[k]
			}
		}
	}
	var halves [2]binBox
	if best, bestCost = all.sweep(nb, &halves); best < 0 {
		return best, bestCost, left, right
	}
	binTris := b.binTriangles(r, &all.count)
	for k := 0; k < nb; k++ {
		h := &right
		if k <= best {
			h = &left
		}
		h.tris += binTris[k]
		h.last += all.count[k]
	}
	left.box, right.box = halves[0].bounds(), halves[1].bounds()
	return best, bestCost, left, right
}

// binBox is a box as the binning holds it: lo in lanes 0-2 and −hi in
// lanes 3-5, so that growing it is one lane-wise min, which the assembly
// does in two SSE vectors (lanes 6 and 7 are never read: they receive a
// primitive's index and kind). Negation is exact, and −max(x, y) =
// min(−x, −y) for Go's min and max, which order −0 below +0, so every
// lane read holds exactly what a bvhBox's would, the sign of a zero
// included.
type binBox [8]float32

// emptyBinBox is a box that include grows to exactly the box included.
func emptyBinBox() binBox {
	return binBox{infinity, infinity, infinity, infinity, infinity, infinity}
}

// include grows the box over o, with Go's min: the builds' inputs are
// finite, and for finite values the min does not depend on the order of
// the boxes.
func (b *binBox) include(o *binBox) {
	b[0], b[1], b[2] = min(b[0], o[0]), min(b[1], o[1]), min(b[2], o[2])
	b[3], b[4], b[5] = min(b[3], o[3]), min(b[4], o[4]), min(b[5], o[5])
}

// area is bvhBox.area with bvhBox's operations in its order: the same
// value.
func (b *binBox) area() float32 {
	d := vec3{-b[3] - b[0], -b[4] - b[1], -b[5] - b[2]}
	if d[0] < 0 {
		return 0
	}
	return 2 * (float32(d[0]*d[1]) + float32(d[1]*d[2]) + float32(d[2]*d[0]))
}

// bounds returns the box as a bvhBox.
func (b *binBox) bounds() bvhBox {
	return bvhBox{vec3{b[0], b[1], b[2]}, vec3{-b[3], -b[4], -b[5]}}
}

// binSet is binSAH's buckets: bounds and counts. fill sets the first nb
// and leaves the others as they were.
type binSet struct {
	box   [bvhBins]binBox
	count [bvhBins]int
}

// reset empties the first nb buckets.
func (bs *binSet) reset(nb int) {
	for k := 0; k < nb; k++ {
		bs.box[k], bs.count[k] = emptyBinBox(), 0
	}
}

// fillGo sorts prims into nb buckets along axis (see binSAH), recording
// each one's bucket in ids: fill's Go code, which binFillSSE
// (binfill_amd64.s) runs in vectors on amd64. Which bucket a primitive
// falls in is close to random, so the bounds grow with branch-free min.
func (bs *binSet) fillGo(prims []bvhPrim, ids []uint8, axis int, lo, scale float32, nb int) {
	bs.reset(nb)
	for i := range prims {
		p := &prims[i]
		k := min(max(int(float32(p.centroid2(axis)-lo)*scale), 0), nb-1)
		ids[i] = uint8(k)
		pb := binBox{p.lo[0], p.lo[1], p.lo[2], -p.hi[0], -p.hi[1], -p.hi[2]}
		bs.box[k].include(&pb)
		bs.count[k]++
	}
}

// sweepGo returns the last bucket of the cheapest split's left half among
// the first nb (−1 if no boundary has buckets with primitives on both
// sides) and its cost, the sum over the halves of area × primitives, and
// sets halves to the halves' bounds: sweep's Go code, which binSweepSSE
// (binfill_amd64.s) runs in vectors on amd64.
func (bs *binSet) sweepGo(nb int, halves *[2]binBox) (best int, bestCost float32) {
	// Sweep from the right for the area and count of every right part.
	var rightArea [bvhBins]float32
	var rightCount [bvhBins]int
	acc, cnt := emptyBinBox(), 0
	for k := nb - 1; k > 0; k-- {
		acc.include(&bs.box[k])
		cnt += bs.count[k]
		rightArea[k], rightCount[k] = acc.area(), cnt
	}
	best, bestCost = -1, 0
	acc, cnt = emptyBinBox(), 0
	for k := 0; k < nb-1; k++ {
		acc.include(&bs.box[k])
		cnt += bs.count[k]
		if cnt == 0 || rightCount[k+1] == 0 {
			continue
		}
		cost := float32(acc.area()*float32(cnt)) + float32(rightArea[k+1]*float32(rightCount[k+1]))
		if best < 0 || cost < bestCost {
			best, bestCost, halves[0] = k, cost, acc
		}
	}
	if best >= 0 {
		halves[1] = emptyBinBox()
		for k := best + 1; k < nb; k++ {
			halves[1].include(&bs.box[k])
		}
	}
	return best, bestCost
}

// binTriangles returns how many triangles each bucket of the range holds,
// given how many primitives (binCount) and b.bin.
func (b *bvhBuilder) binTriangles(r *bvhRange, binCount *[bvhBins]int) (binTris [bvhBins]int) {
	switch {
	case r.mixed():
		prims, ids := b.prims[r.first:r.last], b.bin[r.first:r.last]
		for i := range prims {
			if prims[i].kind == LeafTriangles {
				binTris[ids[i]]++
			}
		}
	case r.tris != 0:
		binTris = *binCount
	}
	return binTris
}
