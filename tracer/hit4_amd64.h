// The four-lane triangle test of hit4SSE (slab_amd64.s) as a macro, so
// that the wide traversal (trav4_amd64.s) runs it inline and both are one
// copy of the arithmetic: Triangle.intersect on four triangles, one per
// lane, operation for operation (no FMA, the same order of sums, products
// with the same operands: x·y and y·x are the same bits).
//
// In: AX, BX, CX, DX the four triangles, SI the ray (sseRay: ox, oy, oz,
// dx, dy, dz at 0, 16, ..., 80), X15 tMax in all four lanes.
// Out: X7 t, X10 b1, X0 b2, and X13 all ones in the lanes of the triangles
// hit within (0, tMax). Clobbers X0-X14.

DATA hit4ones<>+0(SB)/4, $1.0
DATA hit4ones<>+4(SB)/4, $1.0
DATA hit4ones<>+8(SB)/4, $1.0
DATA hit4ones<>+12(SB)/4, $1.0
GLOBL hit4ones<>(SB), RODATA|NOPTR, $16

// HIT4 is HIT4LOAD, then HIT4MATH.
#define HIT4 \
	HIT4LOAD \
	HIT4MATH

// HIT4LOAD loads the four triangles AX, BX, CX, DX, one per lane, and
// the origin rows of the ray SI, for HIT4MATH: tv = Origin − P0 in X0,
// X4, X1 (x, y, z), E1 in X2, X5, X9, E2 in X7, X6, X3. Clobbers X0-X10.
#define HIT4LOAD \
	/* Words 0-3 of each triangle (P0, E1.x), transposed into lanes. */ \
	MOVUPS 0(AX), X0 \
	MOVUPS 0(BX), X1 \
	MOVUPS 0(CX), X2 \
	MOVUPS 0(DX), X3 \
	MOVAPS   X0, X4 \
	UNPCKLPS X1, X4 /* [a0 b0 a1 b1] */ \
	MOVAPS   X2, X5 \
	UNPCKLPS X3, X5 /* [c0 d0 c1 d1] */ \
	UNPCKHPS X1, X0 /* [a2 b2 a3 b3] */ \
	UNPCKHPS X3, X2 /* [c2 d2 c3 d3] */ \
	MOVAPS   X4, X1 \
	MOVLHPS  X5, X1 /* P0.x */ \
	MOVHLPS  X4, X5 /* P0.y */ \
	MOVAPS   X0, X3 \
	MOVLHPS  X2, X3 /* P0.z */ \
	MOVHLPS  X0, X2 /* E1.x */ \
	/* tv = Origin − P0 */ \
	MOVUPS 0(SI), X0 \
	SUBPS  X1, X0 /* tx */ \
	MOVUPS 16(SI), X4 \
	SUBPS  X5, X4 /* ty */ \
	MOVUPS 32(SI), X1 \
	SUBPS  X3, X1 /* tz */ \
	/* Words 4-7 (E1.y, E1.z, E2.x, E2.y), transposed. */ \
	MOVUPS 16(AX), X3 \
	MOVUPS 16(BX), X5 \
	MOVUPS 16(CX), X6 \
	MOVUPS 16(DX), X7 \
	MOVAPS   X3, X8 \
	UNPCKLPS X5, X8 \
	MOVAPS   X6, X9 \
	UNPCKLPS X7, X9 \
	UNPCKHPS X5, X3 \
	UNPCKHPS X7, X6 \
	MOVAPS   X8, X5 \
	MOVLHPS  X9, X5 /* E1.y */ \
	MOVHLPS  X8, X9 /* E1.z */ \
	MOVAPS   X3, X7 \
	MOVLHPS  X6, X7 /* E2.x */ \
	MOVHLPS  X3, X6 /* E2.y */ \
	/* Word 8 (E2.z). */ \
	MOVSS    32(AX), X3 \
	MOVSS    32(BX), X8 \
	UNPCKLPS X8, X3 \
	MOVSS    32(CX), X8 \
	MOVSS    32(DX), X10 \
	UNPCKLPS X10, X8 \
	MOVLHPS  X8, X3 /* E2.z */

// HIT4MATH is the arithmetic of the test, on what HIT4LOAD (or HIT1LOAD)
// leaves: the ray SI's direction rows, X15 tMax; out as HIT4's.
#define HIT4MATH \
	/* p = cross(Dir, E2) */ \
	MOVUPS 64(SI), X10 \
	MULPS  X3, X10 /* dy·e2z */ \
	MOVUPS 80(SI), X11 \
	MULPS  X6, X11 /* dz·e2y */ \
	SUBPS  X11, X10 /* px */ \
	MOVUPS 80(SI), X11 \
	MULPS  X7, X11 /* dz·e2x */ \
	MOVUPS 48(SI), X12 \
	MULPS  X3, X12 /* dx·e2z */ \
	SUBPS  X12, X11 /* py */ \
	MOVUPS 48(SI), X12 \
	MULPS  X6, X12 /* dx·e2y */ \
	MOVUPS 64(SI), X13 \
	MULPS  X7, X13 /* dy·e2x */ \
	SUBPS  X13, X12 /* pz */ \
	/* det = e1·p */ \
	MOVAPS X2, X13 \
	MULPS  X10, X13 \
	MOVAPS X5, X14 \
	MULPS  X11, X14 \
	ADDPS  X14, X13 \
	MOVAPS X9, X14 \
	MULPS  X12, X14 \
	ADDPS  X14, X13 /* det */ \
	/* b1 = (tv·p)·inv */ \
	MULPS X0, X10 \
	MULPS X4, X11 \
	ADDPS X11, X10 \
	MULPS X1, X12 \
	ADDPS X12, X10 \
	MOVUPS hit4ones<>(SB), X8 \
	DIVPS  X13, X8 /* inv */ \
	MULPS  X8, X10 /* b1 */ \
	/* reject = det == 0 | b1 < 0 | b1 > 1 */ \
	XORPS  X14, X14 \
	CMPPS  X14, X13, $0 \
	MOVAPS X10, X11 \
	CMPPS  X14, X11, $1 \
	ORPS   X11, X13 \
	MOVUPS hit4ones<>(SB), X11 \
	CMPPS  X10, X11, $1 \
	ORPS   X11, X13 \
	/* q = cross(tv, E1) */ \
	MOVAPS X4, X11 \
	MULPS  X9, X11 /* ty·e1z */ \
	MOVAPS X1, X12 \
	MULPS  X5, X12 /* tz·e1y */ \
	SUBPS  X12, X11 /* qx */ \
	MULPS  X2, X1 /* tz·e1x */ \
	MULPS  X0, X9 /* tx·e1z */ \
	SUBPS  X9, X1 /* qy */ \
	MULPS  X0, X5 /* tx·e1y */ \
	MULPS  X4, X2 /* ty·e1x */ \
	SUBPS  X2, X5 /* qz */ \
	/* b2 = (Dir·q)·inv */ \
	MOVUPS 48(SI), X0 \
	MULPS  X11, X0 \
	MOVUPS 64(SI), X2 \
	MULPS  X1, X2 \
	ADDPS  X2, X0 \
	MOVUPS 80(SI), X2 \
	MULPS  X5, X2 \
	ADDPS  X2, X0 \
	MULPS  X8, X0 /* b2 */ \
	/* t = (E2·q)·inv */ \
	MULPS X11, X7 \
	MULPS X1, X6 \
	ADDPS X6, X7 \
	MULPS X5, X3 \
	ADDPS X3, X7 \
	MULPS X8, X7 /* t */ \
	/* reject |= b2 < 0 | b1 + b2 > 1 */ \
	MOVAPS X0, X2 \
	CMPPS  X14, X2, $1 \
	ORPS   X2, X13 \
	MOVAPS X10, X2 \
	ADDPS  X0, X2 \
	MOVUPS hit4ones<>(SB), X4 \
	CMPPS  X2, X4, $1 \
	ORPS   X4, X13 \
	/* accept = 0 < t & t < tMax */ \
	MOVAPS X14, X2 \
	CMPPS  X7, X2, $1 \
	MOVAPS X7, X9 \
	CMPPS  X15, X9, $1 \
	ANDPS  X9, X2 \
	ANDNPS X2, X13 /* accept and not reject */

// HIT1LOAD is HIT4LOAD for the one triangle AX in every lane, against
// the four rays of SI, one per lane: the same values in the same
// registers, each word of the triangle loaded once and broadcast, for a
// packet of rays (packet_amd64.s). Clobbers X0-X9.
#define HIT1LOAD \
	MOVSS  0(AX), X1 \
	SHUFPS $0x00, X1, X1 /* P0.x */ \
	MOVSS  4(AX), X5 \
	SHUFPS $0x00, X5, X5 /* P0.y */ \
	MOVSS  8(AX), X3 \
	SHUFPS $0x00, X3, X3 /* P0.z */ \
	/* tv = Origin − P0 */ \
	MOVUPS 0(SI), X0 \
	SUBPS  X1, X0 /* tx */ \
	MOVUPS 16(SI), X4 \
	SUBPS  X5, X4 /* ty */ \
	MOVUPS 32(SI), X1 \
	SUBPS  X3, X1 /* tz */ \
	MOVSS  12(AX), X2 \
	SHUFPS $0x00, X2, X2 /* E1.x */ \
	MOVSS  16(AX), X5 \
	SHUFPS $0x00, X5, X5 /* E1.y */ \
	MOVSS  20(AX), X9 \
	SHUFPS $0x00, X9, X9 /* E1.z */ \
	MOVSS  24(AX), X7 \
	SHUFPS $0x00, X7, X7 /* E2.x */ \
	MOVSS  28(AX), X6 \
	SHUFPS $0x00, X6, X6 /* E2.y */ \
	MOVSS  32(AX), X3 \
	SHUFPS $0x00, X3, X3 /* E2.z */
