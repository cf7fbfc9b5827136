package tracer

import "unsafe"

// trav4Asm is true where the wide traversal's loops run in assembly
// (trav4_amd64.s): the whole loop of a query, nearest hit or any hit, in
// one function, with the ray setup (setRay4SSE), the node test (enter4SSE's
// arithmetic), the child ordering and the stack in its own frame, and the
// triangle leaves (hit4SSE's arithmetic, the HIT4 macro, and the tie rule).
// Leaves of shapes call back into Go (trav4ShapeLeaf, trav4ShapeLeafAny);
// a ray that is not finite, and a counted query, run the Go loops
// (intersectWide, occludedWide), which stay the reference.
const trav4Asm = true

// Results of trav4NearestSSE and trav4AnySSE.
const (
	trav4Miss     = 0 // no hit (any hit), or done (nearest hit: *h holds it)
	trav4Hit      = 1 // any hit: a primitive is hit
	trav4Fallback = 2 // a ray that is not finite, or a full stack: run the Go loop
)

// trav4NearestSSE is intersectWide's loop in SSE assembly: it traverses
// the wide tree (nodes, its first node, for a tree that is not one leaf;
// from root, or, when n > 0, from the n stack entries at stack, a packet's
// that trav4PacketsSSE handed over) for the nearest hit along *r nearer
// than *h, which it updates, as it updates r.TMax (the tie bound of the
// hit held). tris is s.Triangles's first element; s is for the shape
// leaves, which it hands to trav4ShapeLeaf. It returns trav4Miss when
// done, or trav4Fallback: before it has changed anything for a ray that
// is not finite, or having taken some hits for a stack that would
// overflow (which Compile's depth limits exclude).
//
//go:noescape
func trav4NearestSSE(nodes *bvh4Node, tris *Triangle, root uint32, s *Scene, r *Ray, h *Hit, stack *uint64, n int) (status uint32)

// trav4AnySSE is occludedWide's loop in SSE assembly: trav4Hit when
// *r hits a primitive of the wide tree, trav4Miss when it hits none, and
// trav4Fallback (without an answer) for a ray that is not finite or a
// stack that would overflow.
//
//go:noescape
func trav4AnySSE(nodes *bvh4Node, tris *Triangle, root uint32, s *Scene, r *Ray) (status uint32)

// trav4ShapeLeaf tests the shapes of wide leaf ref for trav4NearestSSE,
// which calls it, as intersectWide's loop does.
func trav4ShapeLeaf(s *Scene, r *Ray, h *Hit, ref uint32) {
	kind, first, end := wideLeafOf(ref)
	s.leafNearest(r, h, nil, kind, first, end)
}

// trav4ShapeLeafAny reports for trav4AnySSE, which calls it, whether r
// hits a shape of wide leaf ref.
func trav4ShapeLeafAny(s *Scene, r *Ray, ref uint32) bool {
	kind, first, end := wideLeafOf(ref)
	return s.leafAny(r, nil, kind, first, end)
}

// intersectAsm is intersectWide in assembly (trav4NearestSSE) for the ray
// *r and the nearest hit so far *h: true when *h is then the nearest hit,
// false for a query that intersectWide must answer, which the assembly
// hands over before it has changed *r or *h for a ray that is not finite,
// and for a full stack (which the tree's depth bound excludes) with the
// hits it has taken, which the Go loop then keeps or improves on under
// the tie rule.
func (s *Scene) intersectAsm(r *Ray, h *Hit) bool {
	return trav4NearestSSE(unsafe.SliceData(s.wide.nodes), unsafe.SliceData(s.Triangles), s.wide.root, s, r, h, nil, 0) == trav4Miss
}

// occludedAsm is occludedWide in assembly (trav4AnySSE): trav4Hit or
// trav4Miss, the answer, or trav4Fallback for a query that occludedWide
// must answer.
func (s *Scene) occludedAsm(r *Ray) uint32 {
	return trav4AnySSE(unsafe.SliceData(s.wide.nodes), unsafe.SliceData(s.Triangles), s.wide.root, s, r)
}
