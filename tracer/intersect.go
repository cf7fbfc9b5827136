package tracer

import "math/bits"

// HitKind tells what a ray hit.
type HitKind uint32

const (
	HitNone     HitKind = iota
	HitTriangle         // Hit.Index indexes Scene.Triangles
	HitShape            // Hit.Index indexes Scene.Shapes
)

// Hit is the nearest intersection along a ray.
type Hit struct {
	T     float32
	Kind  HitKind
	Index uint32
	HitCoords
}

// HitCoords locate a hit on its primitive: the barycentric weights of a
// triangle's vertices 1 and 2, or a quad's edge fractions. They are a
// struct of their own so that Hit has four fields, the most Go keeps in
// registers: a Hit of five goes through memory on every return.
type HitCoords struct {
	B1, B2 float32
}

// bvhStackSize bounds the traversal stack; see bvhMaxSAHDepth.
const bvhStackSize = 64

// maxInvDir bounds the inverse direction components, so a ray parallel to
// a slab gets a huge finite slope instead of ±∞: the slab distances are then
// never NaN (no 0·∞), and plain min and max order them.
const maxInvDir = 1e30

// TraversalCounts counts the work of BVH traversals, for `trace bench`.
type TraversalCounts struct {
	// Nodes is the interior nodes visited: each is one fetch of its
	// children's boxes and one slab test of them.
	Nodes uint64
	// Leaves is the leaves visited, Tests the primitives tested in them.
	Leaves, Tests uint64
}

// Add adds o to c.
func (c *TraversalCounts) Add(o TraversalCounts) {
	c.Nodes += o.Nodes
	c.Leaves += o.Leaves
	c.Tests += o.Tests
}

// Intersect returns the nearest hit along r within (0, r.TMax), Kind
// HitNone when there is none.
func (s *Scene) Intersect(r Ray) Hit {
	if trav4Asm && s.FirstPlane == len(s.Shapes) && len(s.Nodes) > 0 {
		// No planes: the assembly loop from the start (intersect's
		// work less its call and its plane loop).
		h := Hit{T: r.TMax}
		if s.intersectAsm(&r, &h) {
			return h
		}
		return s.intersectWide(r, h, nil)
	}
	return s.intersect(r, nil)
}

// IntersectCounted is Intersect, adding its traversal's work to c.
func (s *Scene) IntersectCounted(r Ray, c *TraversalCounts) Hit { return s.intersect(r, c) }

// Occluded reports whether anything lies along r within (0, r.TMax).
func (s *Scene) Occluded(r Ray) bool {
	if trav4Asm && s.FirstPlane == len(s.Shapes) && len(s.Nodes) > 0 {
		// No planes: occluded's work less its call and its plane loop.
		if st := s.occludedAsm(&r); st != trav4Fallback {
			return st == trav4Hit
		}
		return s.occludedWide(r, nil)
	}
	return s.occluded(r, nil)
}

// OccludedCounted is Occluded, adding its traversal's work to c.
func (s *Scene) OccludedCounted(r Ray, c *TraversalCounts) bool { return s.occluded(r, c) }

// intersect is Intersect, counting into c unless it is nil: the planes,
// then the BVH (intersectAsm, else intersectWide).
func (s *Scene) intersect(r Ray, c *TraversalCounts) Hit {
	h := Hit{T: r.TMax}
	for i := s.FirstPlane; i < len(s.Shapes); i++ {
		if t, b1, b2, ok := s.Shapes[i].intersect(&r); ok && h.takesShape(t, uint32(i)) {
			r.TMax = tieBound(t)
			h = Hit{T: t, Kind: HitShape, Index: uint32(i), HitCoords: HitCoords{B1: b1, B2: b2}}
		}
	}
	if len(s.Nodes) == 0 {
		return h
	}
	if trav4Asm && c == nil && s.intersectAsm(&r, &h) {
		return h
	}
	return s.intersectWide(r, h, c)
}

// occluded is Occluded, counting into c unless it is nil.
func (s *Scene) occluded(r Ray, c *TraversalCounts) bool {
	for i := s.FirstPlane; i < len(s.Shapes); i++ {
		if _, _, _, ok := s.Shapes[i].intersect(&r); ok {
			return true
		}
	}
	if len(s.Nodes) == 0 {
		return false
	}
	if trav4Asm && c == nil {
		if st := s.occludedAsm(&r); st != trav4Fallback {
			return st == trav4Hit
		}
	}
	return s.occludedWide(r, c)
}

// group4SSE returns the four triangles from tris[i] on, of which n = min(4,
// len(tris)−i) are real: the spare lanes repeat tris[i], and the caller
// masks them off. The AVX2 leaf test (leaf_simd.go) groups them so too.
func group4SSE(tris []Triangle, i int) (a, b, c, d *Triangle, n int) {
	n = min(len(tris)-i, 4)
	a = &tris[i]
	b, c, d = a, a, a
	if n > 1 {
		b = &tris[i+1]
	}
	if n > 2 {
		c = &tris[i+2]
	}
	if n > 3 {
		d = &tris[i+3]
	}
	return a, b, c, d, n
}

// leafSSE is Intersect's loop over the leaf's triangles Triangles[first:end]
// with hit4SSE, four at a time, for a ray with nearest hit *h so far
// (r.TMax its tieBound). The hits are taken in the leaf's order with the
// scalar loop's rule, t < TMax as it shrinks and the tie rule, so the hit
// the scalar loop keeps.
func (s *Scene) leafSSE(r *Ray, h *Hit, lr *sseRay, first, end uint32) {
	tris := s.Triangles[first:end]
	for i := 0; i < len(tris); i += 4 {
		a, b, c, d, n := group4SSE(tris, i)
		var out [3][4]float32
		hits := hit4SSE(lr, a, b, c, d, r.TMax, &out) & (1<<n - 1)
		for hits != 0 {
			k := bits.TrailingZeros32(hits)
			hits &= hits - 1
			if t := out[0][k&3]; t < r.TMax && h.takesTriangle(t, first+uint32(i+k)) {
				r.TMax = tieBound(t)
				*h = Hit{T: t, Kind: HitTriangle, Index: first + uint32(i+k), HitCoords: HitCoords{B1: out[1][k&3], B2: out[2][k&3]}}
			}
		}
	}
}

// occludedLeafSSE reports whether r hits any of Triangles[first:end].
func (s *Scene) occludedLeafSSE(r *Ray, lr *sseRay, first, end uint32) bool {
	tris := s.Triangles[first:end]
	for i := 0; i < len(tris); i += 4 {
		a, b, c, d, n := group4SSE(tris, i)
		var out [3][4]float32
		if hit4SSE(lr, a, b, c, d, r.TMax, &out)&(1<<n-1) != 0 {
			return true
		}
	}
	return false
}
