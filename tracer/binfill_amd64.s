#include "textflag.h"

// The sign bits that negate a primitive's hi, laid out as the bins hold
// it: (lo0, lo1, lo2, -hi0) then (-hi1, -hi2, index, kind).
DATA binSigns0<>+0(SB)/4, $0
DATA binSigns0<>+4(SB)/4, $0
DATA binSigns0<>+8(SB)/4, $0
DATA binSigns0<>+12(SB)/4, $0x80000000
GLOBL binSigns0<>(SB), RODATA|NOPTR, $16
DATA binSigns1<>+0(SB)/4, $0x80000000
DATA binSigns1<>+4(SB)/4, $0x80000000
DATA binSigns1<>+8(SB)/4, $0
DATA binSigns1<>+12(SB)/4, $0
GLOBL binSigns1<>(SB), RODATA|NOPTR, $16

// BINMIN sets v to Go's min of bin and v, lane by lane, for finite
// lanes: MINPS returns its source operand on equal inputs, so the two
// orders ORed give -0 where either is -0, and otherwise the smaller.
// The result is in v; clobbers X7.
#define BINMIN(bin, v) \
	MOVAPS bin, X7 \
	MINPS v, X7 \
	MINPS bin, v \
	ORPS X7, v

// func binFillSSE(prims *bvhPrim, n int, ids *uint8, bins *[bvhBins][8]float32, counts *[bvhBins]int, axis int, lo, scale float32, nb int)
TEXT ·binFillSSE(SB), NOSPLIT, $0-64
	MOVQ prims+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ ids+16(FP), DI
	MOVQ bins+24(FP), R8
	MOVQ counts+32(FP), R9
	MOVQ axis+40(FP), R10
	MOVSS lo+48(FP), X0
	MOVSS scale+52(FP), X1
	MOVQ nb+56(FP), R11
	DECQ R11
	SHLQ $2, R10
	MOVUPS binSigns0<>(SB), X14
	MOVUPS binSigns1<>(SB), X15
	XORQ BX, BX
	XORQ DX, DX
	TESTQ CX, CX
	JLE done

loop:
	// The bucket: int(float32(lo[axis]+hi[axis]-lo)*scale), clamped to
	// [0, nb-1], as fill computes it.
	MOVSS (SI)(R10*1), X2
	ADDSS 12(SI)(R10*1), X2
	SUBSS X0, X2
	MULSS X1, X2
	CVTTSS2SQ X2, AX
	TESTQ AX, AX
	CMOVQLT DX, AX
	CMPQ AX, R11
	CMOVQGT R11, AX
	MOVB AL, (DI)(BX*1)
	INCQ (R9)(AX*8)
	SHLQ $5, AX
	MOVUPS (SI), X3
	XORPS X14, X3
	MOVUPS 16(SI), X4
	XORPS X15, X4
	MOVUPS (R8)(AX*1), X5
	MOVUPS 16(R8)(AX*1), X6
	BINMIN(X5, X3)
	BINMIN(X6, X4)
	MOVUPS X3, (R8)(AX*1)
	MOVUPS X4, 16(R8)(AX*1)
	ADDQ $32, SI
	INCQ BX
	CMPQ BX, CX
	JLT loop

done:
	RET
