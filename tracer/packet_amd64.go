package tracer

import "unsafe"

// trav4PacketsSSE traces rays[:n] (n a multiple of 4) four at a time
// through the wide tree (nodes, from root; tris the first of
// s.Triangles), writing the nearest hit of each into hits: a packet of
// four rays, finite and agreeing in the sign of their directions on
// every axis, goes through the tree together. It returns how many rays
// it has traced: n, or the index of the first ray of a packet that
// Intersect must trace ray by ray (rays that are not finite or disagree
// in sign, or a stack that would overflow, which Compile's depth limits
// exclude). scratch is room for the packet's rays when a leaf of shapes
// is tested (trav4PacketShapeLeaf). With fresh, the hits start as none
// at the rays' TMax; without, from the hits held in hits (the planes',
// which the scene's planes give as intersect does). A packet whose node
// and leaf visits and triangle tests come to more than budget stops it
// too, at the packet's next visit, with split the number of entries of
// its traversal's stack that it leaves in stack (the reference it was to
// visit on top, at distance 0) and its rays with their TMax now in
// scratch, to go on one by one from there (trav4NearestSSE).
//
//go:noescape
func trav4PacketsSSE(nodes *bvh4Node, tris *Triangle, root uint32, s *Scene, rays *Ray, hits *Hit, n int, scratch *[4]Ray, fresh bool, budget int, stack *uint64) (done int, split int)

// trav4PacketShapeLeaf tests the shapes of wide leaf ref against each ray
// of the packet that may still take a hit, for trav4PacketSSE.
func trav4PacketShapeLeaf(s *Scene, rs *[4]Ray, hs *[4]Hit, ref uint32) {
	kind, first, end := wideLeafOf(ref)
	for k := range rs {
		if rs[k].TMax > 0 {
			s.leafNearest(&rs[k], &hs[k], nil, kind, first, end)
		}
	}
}

// packetsAsm traces rays with trav4PacketsSSE into hits (as long, fresh
// as there), as many as it can of the first len(rays)/4*4, finishing a
// packet that ran out of budget ray by ray from its stack (finishSplit):
// it returns how many, and whether it stopped at a packet that Intersect
// must trace ray by ray. The scene has a wide tree of nodes.
func (s *Scene) packetsAsm(rays []Ray, hits []Hit, scratch *[4]Ray, fresh bool, budget int) int {
	var stack [wideStackSize + 1]uint64
	n := len(rays) &^ 3
	i := 0
	for i < n {
		done, split := trav4PacketsSSE(unsafe.SliceData(s.wide.nodes), unsafe.SliceData(s.Triangles), s.wide.root, s,
			unsafe.SliceData(rays[i:]), unsafe.SliceData(hits[i:]), n-i, scratch, fresh, budget, &stack[0])
		if i += done; split == 0 {
			return i
		}
		for k := range scratch {
			r, h := &scratch[k], &hits[i+k]
			if r.TMax > 0 && (split > wideStackSize-3 || trav4NearestSSE(unsafe.SliceData(s.wide.nodes), unsafe.SliceData(s.Triangles), 0, s, r, h, &stack[0], split) != trav4Miss) {
				// A stack the single-ray loop cannot hold (which
				// Compile's depth limits exclude): the Go loop, from
				// the root, keeps or improves on the hits taken.
				*h = s.intersectWide(*r, *h, nil)
			}
		}
		i += 4
	}
	return i
}
