package tracer

import "math/bits"

// The CPU's traversal of the 4-wide BVH (bvh4.go): one loop per query,
// nearest hit (intersectWide) and any hit (occludedWide), the same hits as
// a traversal of the binary tree (the kernel's), bit for bit, under the
// tie rule (docs/traversal.md; TestWideMatchesBinary). Only its leaf
// functions differ between builds: the node test (enter4: SSE assembly on
// amd64, Go elsewhere) and the leaf test (leafNearest, leafAny: four
// triangles at a time in SSE assembly on amd64, Triangle.intersect
// elsewhere). On amd64 the same loops run in assembly (trav4_amd64.s,
// intersectAsm, occludedAsm), and these are their reference
// (TestTrav4MatchesGo) and the path for counted queries and rays that
// are not finite.

// wideStackSize bounds the wide traversal's stack: a node pushes at most
// three children, and the wide tree is no deeper than the binary one.
const wideStackSize = 3 * bvhStackSize

// wideStackInline is the room for the traversal stack in the loop's own
// frame, which Go zeroes on every query: a full wideStackSize array took
// 196 of a random ray's 1,270 traversal instructions on the 50k-triangle
// icosphere (valgrind --tool=cachegrind). A traversal that needs more
// (three pushes per node over sixteen levels, which the benchmarks' rays
// do not reach) moves the stack to the heap (growStack).
const wideStackInline = 48

// growStack returns a stack twice as large holding s's entries.
func growStack[T any](s []T) []T {
	g := make([]T, 2*len(s))
	copy(g, s)
	return g
}

// Traversal names the BVH traversal this build runs: "bvh4-sse" with the
// SSE node and leaf tests (amd64), "bvh4" with the Go ones.
func Traversal() string {
	if slabSSE {
		return "bvh4-sse"
	}
	return "bvh4"
}

// The slab test of wide node n's four boxes, the node test, is for a
// finite ray enter4SSE on amd64, enter4Go elsewhere, and enter4General
// for others: written out in each loop as
//
//	if slabSSE && rw.finite {
//		mask = enter4SSE(&rw, n, tMax, &tn)
//	} else {
//		mask = rw.enter4Portable(n, tMax, &tn)
//	}
//
// as a function of its own with two calls in it is too large for the
// compiler to inline, and would cost a third call per node.

// enter4Portable is the node test in Go.
func (r *ray4) enter4Portable(n *bvh4Node, tMax float32, tnear *[4]float32) uint32 {
	if r.finite {
		return r.enter4Go(n, tMax, tnear)
	}
	return r.enter4General(n, tMax, tnear)
}

// wideEntry is an entry of a traversal's stack: a reference to visit,
// and the distance its box is entered at (or a bound below it).
type wideEntry struct {
	ref uint32
	t   float32
}

// intersectWide is Intersect's traversal of the wide BVH, h the nearest
// hit so far (the planes'). It visits the children a ray enters nearest
// first (of equal entries, the first child first).
func (s *Scene) intersectWide(r Ray, h Hit, c *TraversalCounts) Hit {
	return s.intersectWideFrom(r, h, c, nil)
}

// intersectWideFrom is intersectWide from the stack entries from, when
// there are any (a packet's, intersectPacketGo's, whose entry distances
// bound the ray's from below), instead of the root.
func (s *Scene) intersectWideFrom(r Ray, h Hit, c *TraversalCounts, from []wideEntry) Hit {
	wide := s.wide.nodes
	var rw ray4
	rw.set(&r)
	lr := rw.leafRay()
	var inline [wideStackInline]wideEntry
	stack := inline[:]
	sp := 0
	ref := s.wide.root
	if len(from) > 0 {
		for len(stack) < len(from) {
			stack = growStack(stack)
		}
		sp = copy(stack, from) - 1
		ref = stack[sp].ref
	}
	for {
		if ref&wideLeaf == 0 {
			n := &wide[ref]
			if c != nil {
				c.Nodes++
			}
			var tn [4]float32
			var mask uint32
			if slabSSE && rw.finite {
				mask = enter4SSE(&rw, n, r.TMax, &tn)
			} else {
				mask = rw.enter4Portable(n, r.TMax, &tn)
			}
			if mask != 0 {
				k0 := bits.TrailingZeros32(mask)
				mask &= mask - 1
				if mask == 0 {
					ref = n.child[k0&3]
					continue
				}
				if sp+3 > len(stack) {
					stack = growStack(stack)
				}
				k1 := bits.TrailingZeros32(mask)
				mask &= mask - 1
				if mask == 0 {
					if tn[k1&3] < tn[k0&3] {
						k0, k1 = k1, k0
					}
					stack[sp] = wideEntry{n.child[k1&3], tn[k1&3]}
					sp++
					ref = n.child[k0&3]
					continue
				}
				// Three or four: sorted by entry (insertion, stable), the
				// farther ones pushed farthest first.
				ks := [4]int{k0, k1}
				m := 2
				for ; mask != 0; m++ {
					ks[m&3] = bits.TrailingZeros32(mask)
					mask &= mask - 1
				}
				for i := 1; i < m; i++ {
					for j := i; j > 0 && tn[ks[j]&3] < tn[ks[j-1]&3]; j-- {
						ks[j], ks[j-1] = ks[j-1], ks[j]
					}
				}
				for i := m - 1; i > 0; i-- {
					stack[sp] = wideEntry{n.child[ks[i]&3], tn[ks[i]&3]}
					sp++
				}
				ref = n.child[ks[0]&3]
				continue
			}
		} else {
			kind, first, end := wideLeafOf(ref)
			if c != nil {
				c.Leaves++
				c.Tests += uint64(end - first)
			}
			s.leafNearest(&r, &h, lr, kind, first, end)
		}
		// Pop the next subtree that may still hold a nearer hit.
		for {
			if sp == 0 {
				return h
			}
			sp--
			if stack[sp].t <= r.TMax {
				ref = stack[sp].ref
				break
			}
		}
	}
}

// occludedWide is Occluded's traversal of the wide BVH.
func (s *Scene) occludedWide(r Ray, c *TraversalCounts) bool {
	wide := s.wide.nodes
	var rw ray4
	rw.set(&r)
	lr := rw.leafRay()
	var inline [wideStackInline]uint32
	stack := inline[:]
	sp := 0
	ref := s.wide.root
	for {
		if ref&wideLeaf == 0 {
			n := &wide[ref]
			if c != nil {
				c.Nodes++
			}
			var tn [4]float32
			var mask uint32
			if slabSSE && rw.finite {
				mask = enter4SSE(&rw, n, r.TMax, &tn)
			} else {
				mask = rw.enter4Portable(n, r.TMax, &tn)
			}
			if mask != 0 {
				k := bits.TrailingZeros32(mask)
				mask &= mask - 1
				if sp+3 > len(stack) {
					stack = growStack(stack)
				}
				for mask != 0 {
					stack[sp] = n.child[bits.TrailingZeros32(mask)&3]
					sp++
					mask &= mask - 1
				}
				ref = n.child[k&3]
				continue
			}
		} else {
			kind, first, end := wideLeafOf(ref)
			if c != nil {
				c.Leaves++
				c.Tests += uint64(end - first)
			}
			if s.leafAny(&r, lr, kind, first, end) {
				return true
			}
		}
		if sp == 0 {
			return false
		}
		sp--
		ref = stack[sp]
	}
}

// leafNearest tests the leaf's primitives of kind, first to end, for a
// nearer hit than *h, under the tie rule.
func (s *Scene) leafNearest(r *Ray, h *Hit, lr *sseRay, kind uint16, first, end uint32) {
	if kind == LeafTriangles {
		if slabSSE {
			s.leafSSE(r, h, lr, first, end)
			return
		}
		for i := first; i < end; i++ {
			if t, b1, b2, ok := s.Triangles[i].intersect(r); ok && h.takesTriangle(t, i) {
				r.TMax = tieBound(t)
				*h = Hit{T: t, Kind: HitTriangle, Index: i, HitCoords: HitCoords{B1: b1, B2: b2}}
			}
		}
		return
	}
	for i := first; i < end; i++ {
		if t, b1, b2, ok := s.Shapes[i].intersect(r); ok && h.takesShape(t, i) {
			r.TMax = tieBound(t)
			*h = Hit{T: t, Kind: HitShape, Index: i, HitCoords: HitCoords{B1: b1, B2: b2}}
		}
	}
}

// leafAny reports whether r hits any of the leaf's primitives.
func (s *Scene) leafAny(r *Ray, lr *sseRay, kind uint16, first, end uint32) bool {
	if kind == LeafTriangles {
		if slabSSE {
			return s.occludedLeafSSE(r, lr, first, end)
		}
		for i := first; i < end; i++ {
			if _, _, _, ok := s.Triangles[i].intersect(r); ok {
				return true
			}
		}
		return false
	}
	for i := first; i < end; i++ {
		if _, _, _, ok := s.Shapes[i].intersect(r); ok {
			return true
		}
	}
	return false
}
