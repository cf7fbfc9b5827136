package tracer

import (
	"math"
	"math/bits"
	"unsafe"
)

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

// rayBox is a ray prepared for slab tests against many boxes.
type rayBox struct {
	// o and inv are four wide, lane 3 zero, for enterPairSSE's loads.
	o   [4]float32
	inv [4]float32 // 1/Dir per component, clamped to ±maxInvDir
	// near holds, per axis, the index into a node's eight words (see
	// nodeWords) of the bound a ray enters the slab by: Min's (a) where
	// inv ≥ 0, Max's (a+4) where inv < 0; the far bound is near^4. Only
	// enterPairSigned reads it, so only builds without the SSE test fill
	// it in (setNear).
	near [3]uint8
	// finite is false for a ray with a non-finite origin or direction,
	// which takes enterPairGeneral.
	finite bool
}

// maxInvDir bounds the inverse direction components, so a ray parallel to
// a slab gets a huge finite slope instead of ±∞: the slab distances are then
// never NaN (no 0·∞), and plain min and max order them.
const maxInvDir = 1e30

func newRayBox(r *Ray) rayBox {
	o, d := &r.Origin, &r.Dir
	inv := vec3{
		max(min(1/d[0], maxInvDir), -maxInvDir),
		max(min(1/d[1], maxInvDir), -maxInvDir),
		max(min(1/d[2], maxInvDir), -maxInvDir),
	}
	// x−x is 0 for a finite x and NaN for an infinite or NaN one.
	finite := (o[0]-o[0])+(o[1]-o[1])+(o[2]-o[2])+(d[0]-d[0])+(d[1]-d[1])+(d[2]-d[2]) == 0
	rb := rayBox{o: [4]float32{o[0], o[1], o[2], 0}, inv: [4]float32{inv[0], inv[1], inv[2], 0}, finite: finite}
	if !slabSSE { // only enterPairSigned reads near
		rb.setNear()
	}
	return rb
}

// setNear fills rb.near from the signs of rb.inv, without a branch on the
// signs, which are random from ray to ray.
func (rb *rayBox) setNear() {
	rb.near = [3]uint8{
		uint8(math.Float32bits(rb.inv[0])>>31<<2 | 0),
		uint8(math.Float32bits(rb.inv[1])>>31<<2 | 1),
		uint8(math.Float32bits(rb.inv[2])>>31<<2 | 2),
	}
}

// nodeWords views a BVHNode as eight words: Min in 0-2, Max in 4-6.
func nodeWords(n *BVHNode) *[8]float32 { return (*[8]float32)(unsafe.Pointer(n)) }

// enterPair tests both children of an interior node: a pair of nodes at an
// even index (see BVHNode). One call per pair keeps the call overhead and
// the bounds checks to one per interior node. A finite ray takes
// enterPairSSE on amd64 and enterPairSigned elsewhere, others
// enterPairGeneral; all three return the same bits
// (TestEnterPairMatchesGeneral).
func (rb *rayBox) enterPair(p *[2]BVHNode, tMax float32) (ta, tb float32, hitA, hitB bool) {
	if slabSSE && rb.finite {
		ta, tb, hits := enterPairSSE(rb, p, tMax)
		return ta, tb, hits&1 != 0, hits&2 != 0
	}
	return rb.enterPairGo(p, tMax)
}

// enterPairGo is enterPair without SSE: enterPairSigned for a finite ray,
// enterPairGeneral for others.
func (rb *rayBox) enterPairGo(p *[2]BVHNode, tMax float32) (ta, tb float32, hitA, hitB bool) {
	if rb.finite {
		return rb.enterPairSigned(p, tMax)
	}
	return rb.enterPairGeneral(p, tMax)
}

// enterPairSigned is enterPair's slab test for a finite ray in Go. For
// boxes with Min ≤ Max (every BVH node), it takes on each axis only the
// product of the bound the ray enters by and the one it leaves by, chosen
// once per ray by the sign of inv: subtraction and multiplication round
// monotonically, so that bound's product is exactly the min (the other's
// the max) that enterPairGeneral computes, and the two return the same
// values (up to the sign of a zero, which no comparison sees, and Go's max
// with 0 returns +0) with half of Go's NaN-aware min and max, the dearest
// part of the general test.
func (rb *rayBox) enterPairSigned(p *[2]BVHNode, tMax float32) (ta, tb float32, hitA, hitB bool) {
	a, b := nodeWords(&p[0]), nodeWords(&p[1])
	nx, ny, nz := rb.near[0]&7, rb.near[1]&7, rb.near[2]&7
	fx, fy, fz := nx^4, ny^4, nz^4
	ax0 := (a[nx] - rb.o[0]) * rb.inv[0]
	ax1 := (a[fx] - rb.o[0]) * rb.inv[0]
	bx0 := (b[nx] - rb.o[0]) * rb.inv[0]
	bx1 := (b[fx] - rb.o[0]) * rb.inv[0]
	ay0 := (a[ny] - rb.o[1]) * rb.inv[1]
	ay1 := (a[fy] - rb.o[1]) * rb.inv[1]
	by0 := (b[ny] - rb.o[1]) * rb.inv[1]
	by1 := (b[fy] - rb.o[1]) * rb.inv[1]
	az0 := (a[nz] - rb.o[2]) * rb.inv[2]
	az1 := (a[fz] - rb.o[2]) * rb.inv[2]
	bz0 := (b[nz] - rb.o[2]) * rb.inv[2]
	bz1 := (b[fz] - rb.o[2]) * rb.inv[2]
	ta = max(max(ax0, ay0), max(az0, 0))
	ta1 := min(min(ax1, ay1), min(az1, tMax))
	tb = max(max(bx0, by0), max(bz0, 0))
	tb1 := min(min(bx1, by1), min(bz1, tMax))
	return ta, tb, ta <= ta1, tb <= tb1
}

// enterPairGeneral is enterPair for any ray: both products on each axis,
// ordered by min and max.
func (rb *rayBox) enterPairGeneral(p *[2]BVHNode, tMax float32) (ta, tb float32, hitA, hitB bool) {
	a, b := &p[0], &p[1]
	ax0 := (a.Min[0] - rb.o[0]) * rb.inv[0]
	ax1 := (a.Max[0] - rb.o[0]) * rb.inv[0]
	bx0 := (b.Min[0] - rb.o[0]) * rb.inv[0]
	bx1 := (b.Max[0] - rb.o[0]) * rb.inv[0]
	ay0 := (a.Min[1] - rb.o[1]) * rb.inv[1]
	ay1 := (a.Max[1] - rb.o[1]) * rb.inv[1]
	by0 := (b.Min[1] - rb.o[1]) * rb.inv[1]
	by1 := (b.Max[1] - rb.o[1]) * rb.inv[1]
	az0 := (a.Min[2] - rb.o[2]) * rb.inv[2]
	az1 := (a.Max[2] - rb.o[2]) * rb.inv[2]
	bz0 := (b.Min[2] - rb.o[2]) * rb.inv[2]
	bz1 := (b.Max[2] - rb.o[2]) * rb.inv[2]
	// Balanced trees of min and max, for shorter dependency chains; min
	// and max are exact, so the grouping does not change the values.
	ta = max(max(min(ax0, ax1), min(ay0, ay1)), max(min(az0, az1), 0))
	ta1 := min(min(max(ax0, ax1), max(ay0, ay1)), min(max(az0, az1), tMax))
	tb = max(max(min(bx0, bx1), min(by0, by1)), max(min(bz0, bz1), 0))
	tb1 := min(min(max(bx0, bx1), max(by0, by1)), min(max(bz0, bz1), tMax))
	return ta, tb, ta <= ta1, tb <= tb1
}

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
func (s *Scene) Intersect(r Ray) Hit { return s.intersect(r, nil) }

// IntersectCounted is Intersect, adding its traversal's work to c.
func (s *Scene) IntersectCounted(r Ray, c *TraversalCounts) Hit { return s.intersect(r, c) }

// Occluded reports whether anything lies along r within (0, r.TMax).
func (s *Scene) Occluded(r Ray) bool { return s.occluded(r, nil) }

// OccludedCounted is Occluded, adding its traversal's work to c.
func (s *Scene) OccludedCounted(r Ray, c *TraversalCounts) bool { return s.occluded(r, c) }

// intersect is Intersect, counting into c unless it is nil.
func (s *Scene) intersect(r Ray, c *TraversalCounts) Hit {
	h := Hit{T: r.TMax}
	for i := s.FirstPlane; i < len(s.Shapes); i++ {
		if t, b1, b2, ok := s.Shapes[i].intersect(&r); ok && h.takesShape(t, uint32(i)) {
			r.TMax = tieBound(t)
			h = Hit{T: t, Kind: HitShape, Index: uint32(i), HitCoords: HitCoords{B1: b1, B2: b2}}
		}
	}
	nodes := s.Nodes
	if len(nodes) == 0 {
		return h
	}
	// The vector traversal (intersect_simd.go), where built and supported:
	// the same hits, bit for bit.
	if vecTraversal {
		if rv, ok := newRayVec(&r); ok {
			return s.intersectVec(r, h, &rv, c)
		}
	}
	// The root's own box is not tested: its children's boxes, tested
	// next, lie inside it.
	rb := newRayBox(&r)
	if rb.finite && len(s.wide) > 0 && wideTraversal {
		return s.intersectWide(r, h, &rb, c)
	}
	var lr sseRay
	if slabSSE && len(s.Triangles) > 0 {
		lr.set(&r)
	}
	type entry struct {
		node uint32
		t    float32
	}
	var stack [bvhStackSize]entry
	sp := 0
	node := uint32(0)
	for {
		n := &nodes[node]
		if c != nil {
			c.count(n)
		}
		if n.Count == 0 {
			a, b := n.Index, n.Index+1
			// enterPair, by hand: the compiler does not inline it.
			var ta, tb float32
			var hitA, hitB bool
			if slabSSE && rb.finite {
				var hits uint32
				ta, tb, hits = enterPairSSE(&rb, (*[2]BVHNode)(nodes[a:b+1]), r.TMax)
				hitA, hitB = hits&1 != 0, hits&2 != 0
			} else {
				ta, tb, hitA, hitB = rb.enterPairGo((*[2]BVHNode)(nodes[a:b+1]), r.TMax)
			}
			if hitA && hitB {
				if tb < ta {
					a, b, ta, tb = b, a, tb, ta
				}
				stack[sp] = entry{b, tb}
				sp++
				node = a
				continue
			}
			if hitA {
				node = a
				continue
			}
			if hitB {
				node = b
				continue
			}
		} else {
			s.leafNearest(&r, &h, &lr, n.Info, n.Index, n.Index+uint32(n.Count))
		}
		// Pop the next subtree that may still hold a nearer hit.
		for {
			if sp == 0 {
				return h
			}
			sp--
			if stack[sp].t <= r.TMax {
				node = stack[sp].node
				break
			}
		}
	}
}

// occluded is Occluded, counting into c unless it is nil.
func (s *Scene) occluded(r Ray, c *TraversalCounts) bool {
	for i := s.FirstPlane; i < len(s.Shapes); i++ {
		if _, _, _, ok := s.Shapes[i].intersect(&r); ok {
			return true
		}
	}
	nodes := s.Nodes
	if len(nodes) == 0 {
		return false
	}
	if vecTraversal {
		if rv, ok := newRayVec(&r); ok {
			return s.occludedVec(r, &rv, c)
		}
	}
	rb := newRayBox(&r)
	if rb.finite && len(s.wide) > 0 && wideTraversal {
		return s.occludedWide(r, &rb, c)
	}
	var lr sseRay
	if slabSSE && len(s.Triangles) > 0 {
		lr.set(&r)
	}
	var stack [bvhStackSize]uint32
	sp := 0
	node := uint32(0)
	for {
		n := &nodes[node]
		if c != nil {
			c.count(n)
		}
		if n.Count == 0 {
			a, b := n.Index, n.Index+1
			var hitA, hitB bool
			if slabSSE && rb.finite {
				_, _, hits := enterPairSSE(&rb, (*[2]BVHNode)(nodes[a:b+1]), r.TMax)
				hitA, hitB = hits&1 != 0, hits&2 != 0
			} else {
				_, _, hitA, hitB = rb.enterPairGo((*[2]BVHNode)(nodes[a:b+1]), r.TMax)
			}
			if hitA && hitB {
				stack[sp] = b
				sp++
				node = a
				continue
			}
			if hitA {
				node = a
				continue
			}
			if hitB {
				node = b
				continue
			}
		} else if s.leafAny(&r, &lr, n.Info, n.Index, n.Index+uint32(n.Count)) {
			return true
		}
		if sp == 0 {
			return false
		}
		sp--
		node = stack[sp]
	}
}

// set fills lr with r's origin and direction, in place (a 96-byte
// struct returned by value would be copied once more).
func (lr *sseRay) set(r *Ray) {
	for a := 0; a < 3; a++ {
		o, d := r.Origin[a], r.Dir[a]
		lr[a] = [4]float32{o, o, o, o}
		lr[3+a] = [4]float32{d, d, d, d}
	}
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

// count counts a visit of node n: an interior node, or a leaf and its
// primitive tests.
func (c *TraversalCounts) count(n *BVHNode) {
	if n.Count == 0 {
		c.Nodes++
		return
	}
	c.Leaves++
	c.Tests += uint64(n.Count)
}
