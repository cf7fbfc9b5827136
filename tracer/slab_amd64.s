#include "textflag.h"

// The slab test of enterPair in SSE (slab_amd64.go); SSE2 is in every
// amd64 CPU, and no AVX instruction is used, so no upper register state is
// left dirty.

// lane3Mask keeps lanes 0-2 and clears lane 3 (a node's Index or Count and
// Info words).
DATA lane3Mask<>+0(SB)/4, $0xffffffff
DATA lane3Mask<>+4(SB)/4, $0xffffffff
DATA lane3Mask<>+8(SB)/4, $0xffffffff
DATA lane3Mask<>+12(SB)/4, $0
GLOBL lane3Mask<>(SB), RODATA|NOPTR, $16

// func enterPairSSE(rb *rayBox, p *[2]BVHNode, tMax float32) (ta, tb float32, hits uint32)
TEXT ·enterPairSSE(SB), NOSPLIT, $0-36
	MOVQ   rb+0(FP), AX
	MOVQ   p+8(FP), BX
	MOVUPS 0(AX), X12          // o, lane 3 zero
	MOVUPS 16(AX), X11         // inv, lane 3 zero
	MOVUPS lane3Mask<>(SB), X13
	MOVUPS 0(BX), X0           // a.Min
	MOVUPS 16(BX), X1          // a.Max
	MOVUPS 32(BX), X2          // b.Min
	MOVUPS 48(BX), X3          // b.Max
	ANDPS  X13, X0
	ANDPS  X13, X1
	ANDPS  X13, X2
	ANDPS  X13, X3
	SUBPS  X12, X0
	SUBPS  X12, X1
	SUBPS  X12, X2
	SUBPS  X12, X3
	MULPS  X11, X0
	MULPS  X11, X1
	MULPS  X11, X2
	MULPS  X11, X3

	// Per axis the nearer and the farther slab distance; lane 3 is +0 in
	// both, the near side's clamp at 0.
	MOVAPS X0, X4
	MINPS  X1, X4              // a near
	MAXPS  X0, X1              // a far
	MOVAPS X2, X5
	MINPS  X3, X5              // b near
	MAXPS  X2, X3              // b far

	// The far sides' lane 3 becomes tMax, their clamp.
	MOVSS  tMax+16(FP), X6     // [tMax, 0, 0, 0]
	PSHUFD $0x15, X6, X6       // [0, 0, 0, tMax]
	ORPS   X6, X1
	ORPS   X6, X3

	// ta, tb: the largest near distance of a and of b, in lanes 0 and 1.
	MOVAPS   X4, X7
	UNPCKLPS X5, X7            // [an0, bn0, an1, bn1]
	UNPCKHPS X5, X4            // [an2, bn2, an3, bn3]
	MAXPS    X7, X4
	MOVHLPS  X4, X7
	MAXPS    X7, X4
	XORPS    X9, X9
	ADDPS    X9, X4            // −0 + 0 = +0: the zero Go's max returns

	// ta1, tb1: the smallest far distance, in lanes 0 and 1.
	MOVAPS   X1, X8
	UNPCKLPS X3, X8
	UNPCKHPS X3, X1
	MINPS    X8, X1
	MOVHLPS  X1, X8
	MINPS    X8, X1

	MOVAPS   X4, X10
	CMPPS    X1, X10, $2       // ta <= ta1, tb <= tb1
	MOVMSKPS X10, CX
	ANDL     $3, CX
	MOVSS    X4, ta+24(FP)
	PSHUFD   $0x55, X4, X4
	MOVSS    X4, tb+28(FP)
	MOVL     CX, hits+32(FP)
	RET
