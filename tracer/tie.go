package tracer

import "math"

// The tie rule: the nearest hit does not depend on the order in which a
// traversal meets the primitives. Of hits at the same distance t, the one
// with the smaller primitive reference wins: shapes (planes included)
// before triangles, and within each kind the smaller index in
// Scene.Shapes or Scene.Triangles. A traversal that has a hit at t keeps
// looking for hits at t, not only nearer ones: it tests primitives, and
// enters boxes, up to tieBound(t), the next float32 above t, so a tie
// anywhere in the tree is found whatever the order (docs/traversal.md).
// The kernel (kernels/intersect.h) keeps the same rule.

// tieBound returns the next float32 above t, for t > 0: a test for t' <
// tieBound(t) accepts t' ≤ t.
func tieBound(t float32) float32 { return math.Float32frombits(math.Float32bits(t) + 1) }

// takesTriangle reports whether a hit on triangle i at t, with t ≤ h.T,
// replaces h under the tie rule.
func (h *Hit) takesTriangle(t float32, i uint32) bool {
	return t < h.T || (h.Kind == HitTriangle && i < h.Index)
}

// takesShape reports whether a hit on shape i at t, with t ≤ h.T,
// replaces h under the tie rule.
func (h *Hit) takesShape(t float32, i uint32) bool {
	return t < h.T || h.Kind == HitTriangle || (h.Kind == HitShape && i < h.Index)
}
