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
// which the scene's planes give as intersect does).
//
//go:noescape
func trav4PacketsSSE(nodes *bvh4Node, tris *Triangle, root uint32, s *Scene, rays *Ray, hits *Hit, n int, scratch *[4]Ray, fresh bool) (done int)

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
// as there), as many as it can of the first len(rays)/4*4: it returns how
// many. The scene has a wide tree of nodes.
func (s *Scene) packetsAsm(rays []Ray, hits []Hit, scratch *[4]Ray, fresh bool) int {
	return trav4PacketsSSE(unsafe.SliceData(s.wide.nodes), unsafe.SliceData(s.Triangles), s.wide.root, s,
		unsafe.SliceData(rays), unsafe.SliceData(hits), len(rays)&^3, scratch, fresh)
}
