package tracer

// slabSSE is true where enterPairSSE (slab_amd64.s) runs the slab test.
const slabSSE = true

// enterPairSSE is enterPair's slab test for a finite ray in SSE: both boxes
// of a pair as four 4-lane vectors, the near and far distance of all three
// axes with one MINPS and one MAXPS, and the largest near and smallest far
// distance of both boxes with three more of each. For a finite ray no lane
// is NaN, so MINPS and MAXPS give Go's min and max up to the sign of a zero,
// which it normalises in ta and tb: the same bits as enterPairGeneral
// (TestEnterPairMatchesGeneral). Bit 0 of hits is hitA, bit 1 hitB.
//
//go:noescape
func enterPairSSE(rb *rayBox, p *[2]BVHNode, tMax float32) (ta, tb float32, hits uint32)
