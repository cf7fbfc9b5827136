package tracer

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
	o   vec3
	inv vec3 // 1/Dir per component, clamped to ±maxInvDir
}

// maxInvDir bounds the inverse direction components, so a ray parallel to
// a slab gets a huge finite slope instead of ±∞: the slab distances are then
// never NaN (no 0·∞), and plain min and max order them.
const maxInvDir = 1e30

func newRayBox(r *Ray) rayBox {
	var inv vec3
	for a := 0; a < 3; a++ {
		inv[a] = max(min(1/r.Dir[a], maxInvDir), -maxInvDir)
	}
	return rayBox{o: r.Origin, inv: inv}
}

// enterPair tests both children of an interior node: a pair of nodes at an
// even index (see BVHNode). One call per pair keeps the call overhead and
// the bounds checks to one per interior node.
func (rb *rayBox) enterPair(p *[2]BVHNode, tMax float32) (ta, tb float32, hitA, hitB bool) {
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

// Intersect returns the nearest hit along r within (0, r.TMax), Kind
// HitNone when there is none.
func (s *Scene) Intersect(r Ray) Hit {
	h := Hit{T: r.TMax}
	for i := s.FirstPlane; i < len(s.Shapes); i++ {
		if t, b1, b2, ok := s.Shapes[i].intersect(&r); ok {
			r.TMax = t
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
			return s.intersectVec(r, h, &rv)
		}
	}
	// The root's own box is not tested: its children's boxes, tested
	// next, lie inside it.
	rb := newRayBox(&r)
	type entry struct {
		node uint32
		t    float32
	}
	var stack [bvhStackSize]entry
	sp := 0
	node := uint32(0)
	for {
		n := &nodes[node]
		if n.Count == 0 {
			a, b := n.Index, n.Index+1
			ta, tb, hitA, hitB := rb.enterPair((*[2]BVHNode)(nodes[a:b+1]), r.TMax)
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
		} else if n.Info == LeafTriangles {
			end := n.Index + uint32(n.Count)
			for i := n.Index; i < end; i++ {
				if t, b1, b2, ok := s.Triangles[i].intersect(&r); ok {
					r.TMax = t
					h = Hit{T: t, Kind: HitTriangle, Index: i, HitCoords: HitCoords{B1: b1, B2: b2}}
				}
			}
		} else {
			end := n.Index + uint32(n.Count)
			for i := n.Index; i < end; i++ {
				if t, b1, b2, ok := s.Shapes[i].intersect(&r); ok {
					r.TMax = t
					h = Hit{T: t, Kind: HitShape, Index: i, HitCoords: HitCoords{B1: b1, B2: b2}}
				}
			}
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

// Occluded reports whether anything lies along r within (0, r.TMax).
func (s *Scene) Occluded(r Ray) bool {
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
			return s.occludedVec(r, &rv)
		}
	}
	rb := newRayBox(&r)
	var stack [bvhStackSize]uint32
	sp := 0
	node := uint32(0)
	for {
		n := &nodes[node]
		if n.Count == 0 {
			a, b := n.Index, n.Index+1
			_, _, hitA, hitB := rb.enterPair((*[2]BVHNode)(nodes[a:b+1]), r.TMax)
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
		} else if n.Info == LeafTriangles {
			end := n.Index + uint32(n.Count)
			for i := n.Index; i < end; i++ {
				if _, _, _, ok := s.Triangles[i].intersect(&r); ok {
					return true
				}
			}
		} else {
			end := n.Index + uint32(n.Count)
			for i := n.Index; i < end; i++ {
				if _, _, _, ok := s.Shapes[i].intersect(&r); ok {
					return true
				}
			}
		}
		if sp == 0 {
			return false
		}
		sp--
		node = stack[sp]
	}
}
