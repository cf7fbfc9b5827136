package tracer

import (
	"math"
	"math/bits"
)

// IntersectPacket sets hits[i] to Intersect(rays[i]) for every ray, bit
// for bit, tracing coherent rays four at a time: the camera rays of
// neighbouring pixels, say, which share an origin and point almost the
// same way. Four rays whose directions agree in sign on every axis go
// through the wide BVH together (on amd64: one node test for the four, by
// interval arithmetic, and every triangle of a leaf tested against the
// four at once) for up to packetBudget steps, then on one by one from
// where they are; others, and rays that are not finite, are traced one
// by one. hits must be at least as long as rays.
func (s *Scene) IntersectPacket(rays []Ray, hits []Hit) {
	hits = hits[:len(rays)]
	if !trav4Asm || len(s.wide.nodes) == 0 {
		s.intersectEach(rays, hits)
		return
	}
	var scratch [4]Ray
	i := 0
	if s.FirstPlane == len(s.Shapes) {
		// No planes: every whole packet in the assembly loop, which
		// stops at a packet it leaves to Intersect.
		for n := len(rays) &^ 3; i < n; {
			i += s.packetsAsm(rays[i:n], hits[i:n], &scratch, true, packetBudget)
			if i < n {
				s.intersectEach(rays[i:i+4], hits[i:i+4])
				i += 4
			}
		}
	}
	// The planes first, ray by ray, as intersect does; then the rest of
	// the traversal for the packet, padded to four.
	for ; i < len(rays); i += 4 {
		end := min(i+4, len(rays))
		var rs [4]Ray
		var hs [4]Hit
		if s.packetOf(rays[i:end], &rs, &hs) < 2 || s.packetsAsm(rs[:], hs[:], &scratch, false, packetBudget) < 4 {
			s.intersectEach(rays[i:end], hits[i:end])
			continue
		}
		copy(hits[i:end], hs[:])
	}
}

// packetBudget bounds the steps a packet of four rays takes together: the
// nodes and leaves it visits plus the triangles it tests (each against the
// four rays at once). Past it the packet's rays go on one by one from what
// is left of its traversal: where a mesh's triangles are small beside the
// spread of four neighbouring camera rays (a dense mesh far away, a small
// image), the packet's interval test lets it into far more of the tree
// than its rays enter on their own, while the steps it took until then,
// near the root, served all four. Camera rays of 2×2 pixels on the 1.3M
// triangle icosphere of trace bench, one thread, rays/s one by one →
// in packets without a budget → with this one: 8.7 → 15.7 → 14.8 M at
// 1024², 5.5 → 3.9 → 6.1 M at 256², 8.7 → 0.4 → 8.0 M at 64² (a pixel
// over some 300 triangles); on the 50k one at 1024², 9.9 → 22.6 → 21.5 M.
const packetBudget = 32

// intersectEach sets hits[k] to Intersect(rays[k]) for every ray.
func (s *Scene) intersectEach(rays []Ray, hits []Hit) {
	for k := range rays {
		hits[k] = s.Intersect(rays[k])
	}
}

// IntersectPacketCounted is IntersectPacket, adding its traversal's work
// to c: the nodes and leaves each packet of four visits once for its
// rays, and every primitive test of a ray, and after a packet's budget
// the work of its rays one by one. It runs the packet traversal in Go
// (intersectPacketGo), which finds the same hits.
func (s *Scene) IntersectPacketCounted(rays []Ray, hits []Hit, c *TraversalCounts) {
	hits = hits[:len(rays)]
	for i := 0; i < len(rays); i += 4 {
		end := min(i+4, len(rays))
		var rs [4]Ray
		var hs [4]Hit
		n := s.packetOf(rays[i:end], &rs, &hs)
		if len(s.Nodes) == 0 || n < 2 || !s.intersectPacketGo(&rs, &hs, packetBudget, c) {
			for k := i; k < end; k++ {
				hits[k] = s.IntersectCounted(rays[k], c)
			}
			continue
		}
		copy(hits[i:end], hs[:n])
	}
}

// packetOf fills the packet rs, hs from one to four rays: each ray with
// TMax and the hit held once the planes are tested, as intersect does,
// then padded with copies of the first ray that take no hit (TMax 0). A
// ray whose TMax is zero, negative or NaN takes no hit in any test (t > 0
// is never below it): its TMax becomes 0 too, which keeps the packet's
// greatest TMax a number. It returns len(rays).
func (s *Scene) packetOf(rays []Ray, rs *[4]Ray, hs *[4]Hit) int {
	for k := range rs {
		if k >= len(rays) {
			rs[k] = rs[0]
			rs[k].TMax = 0
			continue
		}
		r := rays[k]
		h := Hit{T: r.TMax}
		for i := s.FirstPlane; i < len(s.Shapes); i++ {
			if t, b1, b2, ok := s.Shapes[i].intersect(&r); ok && h.takesShape(t, uint32(i)) {
				r.TMax = tieBound(t)
				h = Hit{T: t, Kind: HitShape, Index: uint32(i), HitCoords: HitCoords{B1: b1, B2: b2}}
			}
		}
		if !(r.TMax > 0) {
			r.TMax = 0
		}
		rs[k], hs[k] = r, h
	}
	return len(rays)
}

// packetBounds bounds, axis by axis, what the four rays of a packet
// compute in their own slab tests (ray4.enter4Go): for rays whose
// directions agree in sign on the axis, the near plane's distance is
// (plane − origin)·inverse, least at the greatest origin (the least, for
// rays going down the axis) and at one end of the inverse directions;
// the far one greatest at the other origin. Subtraction and
// multiplication round monotonically, so the bounds computed from these
// hold for the rounded distances too.
type packetBounds struct {
	near, far [3]int     // the plane rows rays enter and leave a slab by (bvh4Node.bounds)
	no, fo    [3]float32 // the origins the near and far distances are taken from
	ilo, ihi  [3]float32 // the least and greatest inverse direction
}

// set prepares b for the packet rs, and rw for its rays' own tests,
// false when its rays are not all finite or disagree in the sign of their
// inverse direction on an axis (Intersect must then trace them one by
// one).
func (b *packetBounds) set(rs *[4]Ray, rw *[4]ray4) bool {
	for k := range rs {
		rw[k].setGo(&rs[k])
		if !rw[k].finite {
			return false
		}
	}
	for a := 0; a < 3; a++ {
		down := math.Float32bits(rw[0].inv[a][0])>>31 != 0
		lo, hi := rs[0].Origin[a], rs[0].Origin[a]
		b.ilo[a], b.ihi[a] = rw[0].inv[a][0], rw[0].inv[a][0]
		for k := 1; k < 4; k++ {
			inv := rw[k].inv[a][0]
			if (math.Float32bits(inv)>>31 != 0) != down {
				return false
			}
			lo, hi = min(lo, rs[k].Origin[a]), max(hi, rs[k].Origin[a])
			b.ilo[a], b.ihi[a] = min(b.ilo[a], inv), max(b.ihi[a], inv)
		}
		b.near[a], b.far[a] = a, a+3
		b.no[a], b.fo[a] = hi, lo
		if down {
			b.near[a], b.far[a] = a+3, a
			b.no[a], b.fo[a] = lo, hi
		}
	}
	return true
}

// enter is the packet's node test: tnear[k] is the least distance at
// which a ray of the packet may enter box k of n (at least 0), and bit k
// of the mask is set when one may enter it by tMax, the greatest TMax of
// the rays: every box that any ray's own test enters, and perhaps more.
func (b *packetBounds) enter(n *bvh4Node, tMax float32, tnear *[4]float32) (mask uint32) {
	for k := 0; k < 4; k++ {
		t0, t1 := float32(0), tMax
		for a := 0; a < 3; a++ {
			d := n.bounds[b.near[a]][k] - b.no[a]
			e := n.bounds[b.far[a]][k] - b.fo[a]
			t0 = max(t0, min(float32(d*b.ilo[a]), float32(d*b.ihi[a])))
			t1 = min(t1, max(float32(e*b.ilo[a]), float32(e*b.ihi[a])))
		}
		tnear[k] = t0
		if t0 <= t1 {
			mask |= 1 << k
		}
	}
	return mask
}

// intersectPacketGo is the packet traversal in Go, the reference of
// trav4PacketsSSE (the same hits): the wide tree's nodes tested once for
// the four rays (packetBounds.enter), nearest first, and every primitive
// of a leaf against each ray that may still take a hit, under the tie
// rule, for up to budget steps (node and leaf visits and triangle tests,
// counted as trav4PacketsSSE counts them), then each ray on its own
// (intersectWideFrom) from the packet's stack. It counts into c unless c
// is nil, and returns false, having changed nothing, for a packet
// Intersect must trace ray by ray.
func (s *Scene) intersectPacketGo(rs *[4]Ray, hs *[4]Hit, budget int, c *TraversalCounts) bool {
	var b packetBounds
	var rw [4]ray4
	if !b.set(rs, &rw) {
		return false
	}
	wide := s.wide.nodes
	tMax := func() float32 { return max(rs[0].TMax, rs[1].TMax, rs[2].TMax, rs[3].TMax) }
	var inline [wideStackInline]wideEntry
	stack := inline[:]
	sp := 0
	ref := s.wide.root
	far := tMax()
	work := 0
	for {
		if work++; work > budget {
			// On one by one, from the reference to visit on top of
			// what is left.
			if sp+1 > len(stack) {
				stack = growStack(stack)
			}
			stack[sp] = wideEntry{ref, 0}
			for k := range rs {
				if rs[k].TMax > 0 {
					hs[k] = s.intersectWideFrom(rs[k], hs[k], c, stack[:sp+1])
				}
			}
			return true
		}
		if ref&wideLeaf == 0 {
			n := &wide[ref]
			if c != nil {
				c.Nodes++
			}
			var tn [4]float32
			mask := b.enter(n, far, &tn)
			if mask != 0 {
				// The nearest child entered is visited, the others
				// pushed farthest first.
				var ks [4]int
				m := 0
				for ; mask != 0; m++ {
					ks[m] = bits.TrailingZeros32(mask)
					mask &= mask - 1
				}
				for i := 1; i < m; i++ {
					for j := i; j > 0 && tn[ks[j]] < tn[ks[j-1]]; j-- {
						ks[j], ks[j-1] = ks[j-1], ks[j]
					}
				}
				if sp+3 > len(stack) {
					stack = growStack(stack)
				}
				for i := m - 1; i > 0; i-- {
					stack[sp] = wideEntry{n.child[ks[i]], tn[ks[i]]}
					sp++
				}
				ref = n.child[ks[0]]
				continue
			}
		} else {
			kind, first, end := wideLeafOf(ref)
			if kind == LeafTriangles {
				work += int(end - first)
			}
			if c != nil {
				c.Leaves++
			}
			for k := range rs {
				if rs[k].TMax > 0 {
					if c != nil {
						c.Tests += uint64(end - first)
					}
					s.leafNearest(&rs[k], &hs[k], rw[k].leafRay(), kind, first, end)
				}
			}
			far = tMax()
		}
		for {
			if sp == 0 {
				return true
			}
			sp--
			if stack[sp].t <= far {
				ref = stack[sp].ref
				break
			}
		}
	}
}
