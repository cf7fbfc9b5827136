package tracer

// The reference the wide traversal is tested against: a traversal of the
// binary tree (Scene.Nodes) as the kernel runs it (kernels/intersect.h):
// the root's box untested, both children of a node tested with the general
// slab test, the nearer entered first, the leaves' primitives tested one by
// one with the tie rule.

// refRay is a ray prepared for enterPairGeneral.
type refRay struct {
	o, inv vec3
}

func newRefRay(r *Ray) refRay {
	d := &r.Dir
	return refRay{o: r.Origin, inv: vec3{
		max(min(1/d[0], maxInvDir), -maxInvDir),
		max(min(1/d[1], maxInvDir), -maxInvDir),
		max(min(1/d[2], maxInvDir), -maxInvDir),
	}}
}

// enterPairGeneral is the binary slab test of a sibling pair, for any ray:
// both products on each axis, ordered by min and max.
func (rb *refRay) enterPairGeneral(p *[2]BVHNode, tMax float32) (ta, tb float32, hitA, hitB bool) {
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
	ta = max(max(min(ax0, ax1), min(ay0, ay1)), max(min(az0, az1), 0))
	ta1 := min(min(max(ax0, ax1), max(ay0, ay1)), min(max(az0, az1), tMax))
	tb = max(max(min(bx0, bx1), min(by0, by1)), max(min(bz0, bz1), 0))
	tb1 := min(min(max(bx0, bx1), max(by0, by1)), min(max(bz0, bz1), tMax))
	return ta, tb, ta <= ta1, tb <= tb1
}

// refLeaf tests a leaf's primitives for a nearer hit than *h; with any, it
// stops at the first hit.
func (s *Scene) refLeaf(r *Ray, h *Hit, n *BVHNode, any bool) bool {
	end := n.Index + uint32(n.Count)
	for i := n.Index; i < end; i++ {
		var t, b1, b2 float32
		var ok bool
		if n.Info == LeafTriangles {
			t, b1, b2, ok = s.Triangles[i].intersect(r)
			if ok && any {
				return true
			}
			if ok && h.takesTriangle(t, i) {
				r.TMax = tieBound(t)
				*h = Hit{T: t, Kind: HitTriangle, Index: i, HitCoords: HitCoords{B1: b1, B2: b2}}
			}
			continue
		}
		t, b1, b2, ok = s.Shapes[i].intersect(r)
		if ok && any {
			return true
		}
		if ok && h.takesShape(t, i) {
			r.TMax = tieBound(t)
			*h = Hit{T: t, Kind: HitShape, Index: i, HitCoords: HitCoords{B1: b1, B2: b2}}
		}
	}
	return false
}

// binaryQuery is Intersect (any false) or Occluded (any true, the answer
// in the Hit's Kind) by the binary tree.
func (s *Scene) binaryQuery(r Ray, any bool) Hit {
	h := Hit{T: r.TMax}
	for i := s.FirstPlane; i < len(s.Shapes); i++ {
		if t, b1, b2, ok := s.Shapes[i].intersect(&r); ok && h.takesShape(t, uint32(i)) {
			if any {
				return Hit{Kind: HitShape}
			}
			r.TMax = tieBound(t)
			h = Hit{T: t, Kind: HitShape, Index: uint32(i), HitCoords: HitCoords{B1: b1, B2: b2}}
		}
	}
	nodes := s.Nodes
	if len(nodes) == 0 {
		return h
	}
	rb := newRefRay(&r)
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
			ta, tb, hitA, hitB := rb.enterPairGeneral((*[2]BVHNode)(nodes[a:b+1]), r.TMax)
			switch {
			case hitA && hitB:
				if tb < ta {
					a, b, ta, tb = b, a, tb, ta
				}
				stack[sp] = entry{b, tb}
				sp++
				node = a
				continue
			case hitA:
				node = a
				continue
			case hitB:
				node = b
				continue
			}
		} else if s.refLeaf(&r, &h, n, any) {
			return Hit{Kind: HitTriangle}
		}
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
