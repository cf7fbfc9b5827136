package tracer

// slabSSE is true where the wide traversal's node and leaf tests run in
// SSE: enter4SSE (slab4_amd64.s) and hit4SSE (slab_amd64.s).
const slabSSE = true

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
