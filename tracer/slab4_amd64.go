package tracer

// enter4SSE is enter4Go in SSE (slab4_amd64.s): the four boxes of a wide
// node in the four lanes, six loads of one plane each, the near and far
// distances of every axis with one SUBPS and one MULPS each, and their
// largest near and smallest far with three MAXPS and three MINPS. For a
// finite ray no lane is NaN, so MAXPS and MINPS give Go's max and min up
// to the sign of a zero: the same comparisons (TestEnter4MatchesGo).
//
//go:noescape
func enter4SSE(r *ray4, n *bvh4Node, tMax float32, tnear *[4]float32) (mask uint32)

// setRay4SSE is ray4.setGo in SSE: the same bytes, but for a non-finite
// ray, whose inverse direction may hold another NaN and whose plane
// offsets enter4General does not read (TestSetRay4MatchesGo). The
// inverse direction is one DIVPS, exact as Go's division, with the
// fourth lane's divisor 1 (TMax's reciprocal can be subnormal, which
// takes a slow microcode path), and the clamps MINPS and MAXPS with the
// quotient as the operand they return for a NaN.
//
//go:noescape
func setRay4SSE(r *ray4, ray *Ray)
