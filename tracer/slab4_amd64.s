#include "textflag.h"

// The slab test of a wide BVH node in SSE (slab4_amd64.go). SSE2 only, no
// AVX instruction: no upper register state is left dirty.

// func enter4SSE(r *ray4, n *bvh4Node, tMax float32, tnear *[4]float32) (mask uint32)
//
// ray4: o at 0, 16, 32; inv at 48, 64, 80; near plane offsets at 96, 100,
// 104; far at 108, 112, 116.
TEXT ·enter4SSE(SB), NOSPLIT, $0-36
	MOVQ r+0(FP), AX
	MOVQ n+8(FP), BX

	// x
	MOVL   96(AX), CX
	MOVL   108(AX), DX
	MOVUPS (BX)(CX*1), X0
	MOVUPS (BX)(DX*1), X1
	MOVUPS 0(AX), X6
	MOVUPS 48(AX), X7
	SUBPS  X6, X0
	MULPS  X7, X0              // near x
	SUBPS  X6, X1
	MULPS  X7, X1              // far x

	// y
	MOVL   100(AX), CX
	MOVL   112(AX), DX
	MOVUPS (BX)(CX*1), X2
	MOVUPS (BX)(DX*1), X3
	MOVUPS 16(AX), X6
	MOVUPS 64(AX), X7
	SUBPS  X6, X2
	MULPS  X7, X2              // near y
	SUBPS  X6, X3
	MULPS  X7, X3              // far y

	// z
	MOVL   104(AX), CX
	MOVL   116(AX), DX
	MOVUPS (BX)(CX*1), X4
	MOVUPS (BX)(DX*1), X5
	MOVUPS 32(AX), X6
	MOVUPS 80(AX), X7
	SUBPS  X6, X4
	MULPS  X7, X4              // near z
	SUBPS  X6, X5
	MULPS  X7, X5              // far z

	// tnear = max(near x, near y, near z, 0), tfar = min(far x, far y,
	// far z, tMax), as enter4Go groups them.
	MAXPS  X2, X0
	XORPS  X8, X8
	MAXPS  X8, X4
	MAXPS  X4, X0
	MOVSS  tMax+16(FP), X9
	SHUFPS $0x00, X9, X9
	MINPS  X3, X1
	MINPS  X9, X5
	MINPS  X5, X1

	MOVQ     tnear+24(FP), DI
	MOVUPS   X0, 0(DI)
	CMPPS    X1, X0, $2        // tnear <= tfar
	MOVMSKPS X0, CX
	MOVL     CX, mask+32(FP)
	RET
