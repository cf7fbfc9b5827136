#include "textflag.h"

// The leaf test of the wide traversal in SSE (slab_amd64.go): four
// triangles at a time. SSE2 is in every amd64 CPU, and no AVX instruction
// is used, so no upper register state is left dirty.

#include "hit4_amd64.h"

// func hit4SSE(lr *sseRay, a, b, c, d *Triangle, tMax float32, out *[3][4]float32) (bits uint32)
//
// Triangle.intersect on four triangles, one per lane, operation for
// operation (no FMA, the same order of sums, products with the same
// operands: x·y and y·x are the same bits), so each lane holds the scalar
// test's t, b1 and b2 for its triangle; out receives them, and bit k of bits
// is set when triangle k is hit within (0, tMax).
TEXT ·hit4SSE(SB), NOSPLIT, $0-60
	MOVQ   a+8(FP), AX
	MOVQ   b+16(FP), BX
	MOVQ   c+24(FP), CX
	MOVQ   d+32(FP), DX
	MOVQ   lr+0(FP), SI

	MOVSS  tMax+40(FP), X15
	SHUFPS $0x00, X15, X15
	HIT4

	MOVMSKPS X13, AX
	MOVL     AX, bits+56(FP)
	MOVQ     out+48(FP), DI
	MOVUPS   X7, 0(DI)
	MOVUPS   X10, 16(DI)
	MOVUPS   X0, 32(DI)
	RET
