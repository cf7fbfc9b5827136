package tracer

// trav4Asm is true where the wide traversal's loops run in assembly
// (trav4_amd64.s): the whole loop of a query, nearest hit or any hit, in
// one function, with the ray setup (setRay4SSE), the node test (enter4SSE's
// arithmetic), the child ordering and the stack in its own frame, and the
// triangle leaves (hit4SSE's arithmetic, the HIT4 macro, and the tie rule).
// Leaves of shapes call back into Go (trav4ShapeLeaf, trav4ShapeLeafAny);
// a ray that is not finite, and a counted query, run the Go loops
// (intersectWideGo, occludedWideGo), which stay the reference.
const trav4Asm = true

// Results of trav4NearestSSE and trav4AnySSE.
const (
	trav4Miss     = 0 // no hit (any hit), or done (nearest hit: *h holds it)
	trav4Hit      = 1 // any hit: a primitive is hit
	trav4Fallback = 2 // a ray that is not finite, or a full stack: run the Go loop
)

// trav4NearestSSE is intersectWideGo's loop in SSE assembly: it traverses
// the wide tree (nodes, which is nil for a tree that is one leaf, from
// root) for the nearest hit along *r nearer than *h, which it updates, as
// it updates r.TMax (the tie bound of the hit held). tris is
// s.Triangles's first element (nil when there is none); s is for the
// shape leaves, which it hands to trav4ShapeLeaf. It returns trav4Miss, or
// trav4Fallback before it has changed anything, for a ray that is not
// finite, or having changed *h and r.TMax, for a stack that would
// overflow (which Compile's depth limits exclude).
//
//go:noescape
func trav4NearestSSE(nodes *bvh4Node, tris *Triangle, root uint32, s *Scene, r *Ray, h *Hit) (status uint32)

// trav4AnySSE is occludedWideGo's loop in SSE assembly: trav4Hit when
// *r hits a primitive of the wide tree, trav4Miss when it hits none, and
// trav4Fallback (without an answer) for a ray that is not finite or a
// stack that would overflow.
//
//go:noescape
func trav4AnySSE(nodes *bvh4Node, tris *Triangle, root uint32, s *Scene, r *Ray) (status uint32)

// trav4ShapeLeaf tests the shapes of wide leaf ref for trav4NearestSSE,
// which calls it, as intersectWideGo's loop does.
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

// intersectWideAsm is intersectWideGo in assembly: the nearest hit, and
// true, or false for a query that the Go loop must answer.
func (s *Scene) intersectWideAsm(r Ray, h Hit) (Hit, bool) {
	var nodes *bvh4Node
	if len(s.wide.nodes) > 0 {
		nodes = &s.wide.nodes[0]
	}
	var tris *Triangle
	if len(s.Triangles) > 0 {
		tris = &s.Triangles[0]
	}
	if trav4NearestSSE(nodes, tris, s.wide.root, s, &r, &h) != trav4Miss {
		return Hit{}, false
	}
	return h, true
}

// occludedWideAsm is occludedWideGo in assembly: whether r is occluded,
// and true, or false for a query that the Go loop must answer.
func (s *Scene) occludedWideAsm(r Ray) (occluded, ok bool) {
	var nodes *bvh4Node
	if len(s.wide.nodes) > 0 {
		nodes = &s.wide.nodes[0]
	}
	var tris *Triangle
	if len(s.Triangles) > 0 {
		tris = &s.Triangles[0]
	}
	switch trav4AnySSE(nodes, tris, s.wide.root, s, &r) {
	case trav4Hit:
		return true, true
	case trav4Miss:
		return false, true
	}
	return false, false
}
