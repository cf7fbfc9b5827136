package tracer

import (
	"errors"
	"math"
	"unsafe"
)

// wideBVH is the 4-wide BVH that the CPU traverses (Scene.wide).
type wideBVH struct {
	// nodes are the wide nodes, the root first and every node's subtree
	// after it (depth first, children in order); empty when the binary
	// tree is a lone leaf.
	nodes []bvh4Node
	// root is where a traversal starts: wide node 0, or, for a binary
	// tree that is a lone leaf, that leaf (a wide leaf reference), whose
	// box the traversal then does not test, as it never tests the root's.
	root uint32
}

// bvh4Node is a node of the 4-wide BVH that the CPU traverses: up to four
// children, their boxes stored plane by plane (structure of arrays), so
// that one 4-lane load fetches one bound of all four and one slab test
// (enter4) tests them together. 128 bytes, two cache lines.
//
// The 4-wide tree is the binary one (Scene.Nodes, which the GPU keeps)
// collapsed: each wide node's children are the nodes two or so levels
// down the binary tree, with the same boxes, and its leaves are the binary
// leaves, or a small subtree's leaves together (smallSubtree). So it finds
// the same hits (docs/traversal.md).
type bvh4Node struct {
	// bounds[p][k] is plane p of child k's box: p = 0, 1, 2 the Min x,
	// y, z; 3, 4, 5 the Max. A missing child has Min +∞ and Max −∞, which
	// no finite ray enters.
	bounds [6][4]float32
	// child[k] is child k: an interior child's index in Scene's wide
	// array, or a leaf (see wideLeaf).
	child [4]uint32
	// prefetch[k] is where the assembly traversal (trav4_amd64.s)
	// prefetches child k around (PREFETCH4: the cache line there and
	// the ones before and after it), as a signed offset from the first
	// wide node in units of 8 bytes: 16 times its index for an interior
	// child (collapseBVH4), 64 bytes past the address of its first
	// triangle for a leaf of triangles (prefetchLeaves, rounded down to 8
	// bytes, when it lies within 16 GiB), else 0, node 0, always in
	// cache.
	prefetch [4]uint32
}

// Wide child references: bit 31 set for a leaf, which holds count
// (bits 28-30, count−1: 1 to 8) primitives of kind bit 27 (LeafTriangles,
// LeafShapes) from index bits 0-26 in Scene.Triangles or Scene.Shapes.
const (
	wideLeaf      = 1 << 31
	wideKindShift = 27
	wideIndexMask = 1<<wideKindShift - 1
)

// wideLeafRef returns the reference to binary leaf n.
func wideLeafRef(n *BVHNode) uint32 {
	return wideLeaf | uint32(n.Count-1)<<28 | uint32(n.Info)<<wideKindShift | n.Index
}

// wideLeafOf returns the kind, first primitive and end of leaf ref.
func wideLeafOf(ref uint32) (kind uint16, first, end uint32) {
	first = ref & wideIndexMask
	return uint16(ref>>wideKindShift) & 1, first, first + (ref>>28)&7 + 1
}

// errWideRefs: a leaf that a wide reference cannot hold. Compile's limits
// (MaxTriangles, MaxShapes, bvhMaxLeaf) keep every leaf within them.
var errWideRefs = errors.New("bvh: a leaf beyond the 4-wide BVH's references")

// collapseBVH4 returns the 4-wide BVH of the binary one, nodes (not
// empty). Each wide node takes a
// binary node's two children and, while it has fewer than four, replaces
// the interior one with the largest surface area by its two children (the
// rule of Embree's and pbrt's collapses, which keeps the boxes that rays
// enter most often apart). A child whose subtree is small (smallSubtree)
// is one leaf, neither replaced nor descended into.
func collapseBVH4(nodes []BVHNode) (wideBVH, error) {
	for i := range nodes {
		if n := &nodes[i]; n.Count > 0 && (n.Index+uint32(n.Count) > wideIndexMask || n.Count > 8 || n.Info > 1) {
			return wideBVH{}, errWideRefs
		}
	}
	if nodes[0].Count > 0 {
		// A root leaf: tested without its box.
		return wideBVH{root: wideLeafRef(&nodes[0])}, nil
	}
	// Each wide node takes one to three of the binary tree's interior
	// nodes (half its nodes), and a small subtree's (smallSubtree) go
	// into a leaf: 3.2 a wide node on the 1.3M-triangle icosphere. A
	// quarter of the nodes is room for two each; a tree that needs more
	// grows the slice, which copies it.
	wide := make([]bvh4Node, 1, len(nodes)/4+1)
	adviseHugePages(wide)
	var fill func(w int, b uint32)
	fill = func(w int, b uint32) {
		// kids are the binary nodes below wide node w, leaf[k] whether
		// kid k is a wide leaf, refs[k] the reference to it.
		var kids, refs [4]uint32
		var leaf [4]bool
		kids[0], kids[1] = nodes[b].Index, nodes[b].Index+1
		refs[0], leaf[0] = smallSubtree(nodes, kids[0])
		refs[1], leaf[1] = smallSubtree(nodes, kids[1])
		nk := 2
		for nk < 4 {
			best, bestArea := -1, float32(-1)
			for k, c := range kids[:nk] {
				if !leaf[k] {
					box := bvhBox{nodes[c].Min, nodes[c].Max}
					if a := box.area(); a > bestArea {
						best, bestArea = k, a
					}
				}
			}
			if best < 0 {
				break
			}
			c := nodes[kids[best]].Index
			kids[best], kids[nk] = c, c+1
			refs[best], leaf[best] = smallSubtree(nodes, c)
			refs[nk], leaf[nk] = smallSubtree(nodes, c+1)
			nk++
		}
		for k, c := range kids[:nk] {
			if !leaf[k] {
				refs[k] = uint32(len(wide))
				wide = append(wide, bvh4Node{})
				fill(int(refs[k]), c)
			}
		}
		wide[w] = wideNodeOf(nodes, kids[:nk], refs[:nk])
	}
	fill(0, 0)
	if len(wide) > 1<<27 { // beyond the prefetch offsets (and any scene Compile accepts)
		return wideBVH{}, errWideRefs
	}
	return wideBVH{nodes: wide}, nil
}

// wideMergeMax is the most triangles of a binary subtree that the wide
// tree tests as one leaf.
const wideMergeMax = 4

// smallSubtree returns the wide leaf reference to the primitives under
// binary node b, when b is a leaf, or when its subtree holds at most
// wideMergeMax triangles in one range and testing them all costs the rays
// that enter b's box no more than entering its leaves' boxes does
// (wideNodeCost).
func smallSubtree(nodes []BVHNode, b uint32) (ref uint32, ok bool) {
	n := &nodes[b]
	if n.Count > 0 {
		return wideLeafRef(n), true
	}
	first, count, kind, cost, ok := subtreeRange(nodes, b, wideMergeMax)
	if !ok || kind != LeafTriangles {
		return 0, false
	}
	// float32() rounds each product, so that no architecture fuses one
	// into the sum and builds another tree (TestNoFusedMultiplyAdd).
	box := bvhBox{n.Min, n.Max}
	if float32(box.area()*float32((count+3)/4)) > cost+float32(wideNodeCost*box.area()) {
		return 0, false
	}
	return wideLeaf | (count-1)<<28 | uint32(kind)<<wideKindShift | first, true
}

// wideNodeCost is what a wide node test costs against a leaf's test of up
// to four triangles, for smallSubtree's choice. Merging a subtree's leaves
// saves the rays that enter it a node test at most (often none: its
// children take spare lanes of the node above) and makes each of them
// test every triangle. On a dense mesh sibling leaves fill their parent's
// box, and the two groups of two become one group of four at no cost; two
// walls of a room, a floor and a ceiling, have flat boxes far apart, and
// the rays that enter the room would test both.
const wideNodeCost = 0.25

// subtreeRange returns the range and kind of the primitives under binary
// node b, ok when they are at most most, of one kind and contiguous, and
// the sum over its leaves of their box's area times their groups of four.
func subtreeRange(nodes []BVHNode, b uint32, most uint32) (first, count uint32, kind uint16, cost float32, ok bool) {
	n := &nodes[b]
	if n.Count > 0 {
		box := bvhBox{n.Min, n.Max}
		return n.Index, uint32(n.Count), n.Info, float32(box.area() * float32((n.Count+3)/4)), uint32(n.Count) <= most
	}
	if most < 2 {
		return 0, 0, 0, 0, false
	}
	f1, c1, k1, a1, ok := subtreeRange(nodes, n.Index, most-1)
	if !ok {
		return 0, 0, 0, 0, false
	}
	f2, c2, k2, a2, ok := subtreeRange(nodes, n.Index+1, most-c1)
	if !ok || k1 != k2 || f2 != f1+c1 {
		return 0, 0, 0, 0, false
	}
	return f1, c1 + c2, k1, a1 + a2, true
}

// wideNodeOf returns the wide node whose children are the binary nodes
// kids, referred to as refs.
func wideNodeOf(nodes []BVHNode, kids, refs []uint32) bvh4Node {
	var w bvh4Node
	for k := 0; k < 4; k++ {
		lo, hi := vec3{infinity, infinity, infinity}, vec3{-infinity, -infinity, -infinity}
		if k < len(kids) {
			lo, hi = nodes[kids[k]].Min, nodes[kids[k]].Max
			w.child[k] = refs[k]
			if refs[k]&wideLeaf == 0 {
				w.prefetch[k] = refs[k] * 16
			}
		}
		for a := 0; a < 3; a++ {
			w.bounds[a][k], w.bounds[3+a][k] = lo[a], hi[a]
		}
	}
	return w
}

// wideBytes is the memory of the wide BVH.
func (s *Scene) wideBytes() int { return len(s.wide.nodes) * int(unsafe.Sizeof(bvh4Node{})) }

// ray4 is a ray prepared for the wide traversal's node and leaf tests:
// origin, direction and inverse direction per axis in all four lanes, and
// per axis the byte offset in a bvh4Node of the plane row the ray enters
// the slab by (Min's where inv ≥ 0, Max's where inv < 0) and of the one it
// leaves by. Its first 96 bytes, o and d, are the leaf test's sseRay. The
// layout is setRay4SSE's and enter4SSE's (slab4_amd64.s; TestRay4Layout).
type ray4 struct {
	o, d, inv [3][4]float32
	near, far [3]uint32
	// finite is false for a ray with a non-finite origin or direction,
	// which takes enter4General.
	finite bool
}

// leafRay returns r's origin and direction as hit4SSE reads them.
func (r *ray4) leafRay() *sseRay { return (*sseRay)(unsafe.Pointer(r)) }

// set prepares r for ray: setRay4SSE on amd64, setGo elsewhere.
func (r *ray4) set(ray *Ray) {
	if slabSSE {
		setRay4SSE(r, ray)
		return
	}
	r.setGo(ray)
}

// setGo is set in Go. The inverse direction is clamped to ±maxInvDir, so
// that a finite ray parallel to a slab gets a huge finite slope, never
// NaN distances.
func (r *ray4) setGo(ray *Ray) {
	o, d := &ray.Origin, &ray.Dir
	ox, oy, oz := o[0], o[1], o[2]
	dx, dy, dz := d[0], d[1], d[2]
	ix := max(min(1/dx, maxInvDir), -maxInvDir)
	iy := max(min(1/dy, maxInvDir), -maxInvDir)
	iz := max(min(1/dz, maxInvDir), -maxInvDir)
	// x−x is 0 for a finite x and NaN for an infinite or NaN one.
	r.finite = (ox-ox)+(oy-oy)+(oz-oz)+(dx-dx)+(dy-dy)+(dz-dz) == 0
	r.o = [3][4]float32{{ox, ox, ox, ox}, {oy, oy, oy, oy}, {oz, oz, oz, oz}}
	r.d = [3][4]float32{{dx, dx, dx, dx}, {dy, dy, dy, dy}, {dz, dz, dz, dz}}
	r.inv = [3][4]float32{{ix, ix, ix, ix}, {iy, iy, iy, iy}, {iz, iz, iz, iz}}
	// Row a (Min) where inv ≥ 0, a+3 (Max) where inv < 0, as byte offsets
	// (16 per row), from the sign bits, without a branch on them.
	sx, sy, sz := math.Float32bits(ix)>>31*48, math.Float32bits(iy)>>31*48, math.Float32bits(iz)>>31*48
	r.near = [3]uint32{sx, 16 + sy, 32 + sz}
	r.far = [3]uint32{48 - sx, 64 - sy, 80 - sz}
}

// enter4Go is enter4 in Go for a finite ray: the slab test of a wide
// node's four boxes. For boxes with Min ≤ Max it takes on each axis only
// the product of the plane the ray enters by and of the one it leaves by,
// chosen once per ray by the sign of inv: subtraction and multiplication
// round monotonically, so that plane's product is exactly the min (the
// other's the max) that enter4General computes, and the two return the
// same values (up to the sign of a zero, which only comparisons see) with
// none of Go's NaN-aware min and max of the two products: tnear[k] is
// where the ray enters box k, clamped to 0, and bit k of the result is set
// when it does so by tMax. A missing child (Min +∞, Max −∞) is entered at
// +∞: never.
func (r *ray4) enter4Go(n *bvh4Node, tMax float32, tnear *[4]float32) (mask uint32) {
	nx, ny, nz := &n.bounds[r.near[0]>>4], &n.bounds[r.near[1]>>4], &n.bounds[r.near[2]>>4]
	fx, fy, fz := &n.bounds[r.far[0]>>4], &n.bounds[r.far[1]>>4], &n.bounds[r.far[2]>>4]
	for k := 0; k < 4; k++ {
		x0 := (nx[k] - r.o[0][k]) * r.inv[0][k]
		x1 := (fx[k] - r.o[0][k]) * r.inv[0][k]
		y0 := (ny[k] - r.o[1][k]) * r.inv[1][k]
		y1 := (fy[k] - r.o[1][k]) * r.inv[1][k]
		z0 := (nz[k] - r.o[2][k]) * r.inv[2][k]
		z1 := (fz[k] - r.o[2][k]) * r.inv[2][k]
		t0 := max(max(x0, y0), max(z0, 0))
		t1 := min(min(x1, y1), min(z1, tMax))
		tnear[k] = t0
		if t0 <= t1 {
			mask |= 1 << k
		}
	}
	return mask
}

// enter4General is enter4 for any ray, finite or not: on each axis both
// products, ordered by Go's min and max, which carry a NaN through to a
// miss (the binary slab test the kernel runs, operation for operation, on
// each box). Missing children, whose products it would order into an
// entered box, are masked off.
func (r *ray4) enter4General(n *bvh4Node, tMax float32, tnear *[4]float32) (mask uint32) {
	for k := 0; k < 4; k++ {
		x0 := (n.bounds[0][k] - r.o[0][k]) * r.inv[0][k]
		x1 := (n.bounds[3][k] - r.o[0][k]) * r.inv[0][k]
		y0 := (n.bounds[1][k] - r.o[1][k]) * r.inv[1][k]
		y1 := (n.bounds[4][k] - r.o[1][k]) * r.inv[1][k]
		z0 := (n.bounds[2][k] - r.o[2][k]) * r.inv[2][k]
		z1 := (n.bounds[5][k] - r.o[2][k]) * r.inv[2][k]
		t0 := max(max(min(x0, x1), min(y0, y1)), max(min(z0, z1), 0))
		t1 := min(min(max(x0, x1), max(y0, y1)), min(max(z0, z1), tMax))
		tnear[k] = t0
		if t0 <= t1 && n.bounds[0][k] <= n.bounds[3][k] {
			mask |= 1 << k
		}
	}
	return mask
}

// prefetchLeaves sets the prefetch offsets (bvh4Node.prefetch) of the
// triangle leaves of w to a cache line past their first triangles in
// tris, the scene's Triangles, so that the traversal (PREFETCH4) fetches
// three lines from the first triangle's on. On the 1.3M-triangle
// icosphere, whose leaves hold about three triangles (108 bytes), random
// rays ran 4 % faster than with the first two lines (paired median of
// twelve alternating runs of BenchmarkTraceRandomRays13M). The offsets
// are addresses: a tree whose triangles move elsewhere afterwards (none
// does: Compile's array stays) only loses its prefetches, which never
// fault.
func (w *wideBVH) prefetchLeaves(tris []Triangle) {
	if len(w.nodes) == 0 || len(tris) == 0 {
		return
	}
	base := int64(uintptr(unsafe.Pointer(&w.nodes[0])))
	for i := range w.nodes {
		n := &w.nodes[i]
		for k, c := range n.child {
			if c&wideLeaf == 0 || n.bounds[0][k] > n.bounds[3][k] {
				continue
			}
			if kind, first, _ := wideLeafOf(c); kind == LeafTriangles {
				if d := (int64(uintptr(unsafe.Pointer(&tris[first]))) - base + 64) >> 3; d >= -1<<31 && d < 1<<31 {
					n.prefetch[k] = uint32(int32(d))
				}
			}
		}
	}
}
