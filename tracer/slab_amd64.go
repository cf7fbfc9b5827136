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

// sseRay is a ray's origin and direction for hit4SSE, each component in all
// four lanes: ox, oy, oz, dx, dy, dz.
type sseRay [6][4]float32

// hit4SSE is Triangle.intersect on the triangles a, b, c and d, one per
// lane, operation for operation, so each lane holds the bits the scalar
// test computes (TestHit4MatchesScalar): out receives t, b1 and b2 of every
// lane, and bit k of bits is set when triangle k is hit within (0, tMax).
//
//go:noescape
func hit4SSE(lr *sseRay, a, b, c, d *Triangle, tMax float32, out *[3][4]float32) (bits uint32)
