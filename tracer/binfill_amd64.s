#include "textflag.h"

// Every lane's sign bit, and every lane +Inf (an empty binBox).
DATA binSignsAll<>+0(SB)/8, $0x8000000080000000
DATA binSignsAll<>+8(SB)/8, $0x8000000080000000
GLOBL binSignsAll<>(SB), RODATA|NOPTR, $16
DATA binInf<>+0(SB)/8, $0x7f8000007f800000
DATA binInf<>+8(SB)/8, $0x7f8000007f800000
GLOBL binInf<>(SB), RODATA|NOPTR, $16

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

// func binFillSSE(prims *bvhPrim, n int, ids *uint8, bins *[bvhBins]binBox, counts *[bvhBins]int, axis int, lo, scale float32, nb int)
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

// BINAREA sets X8's lane 0 to binBox.area of the box in lo and hi (lanes
// 0-3 and 4-7), with area's operations: d = hi - lo per axis, then
// 2·((d.x·d.y + d.y·d.z) + d.z·d.x), each product rounded on its own
// (MULPS) and the sums in scalars. area's 0 for an empty box (d.x < 0)
// is left out: the sweep reads the areas of parts that hold primitives
// only. Needs X13 = binSignsAll; clobbers X5 and X6.
#define BINAREA(lo, hi) \
	MOVAPS lo, X5 \
	SHUFPS $0x4F, hi, X5 /* -hi.x, -hi.x, -hi.y, -hi.z */ \
	SHUFPS $0xF8, X5, X5 /* -hi.x, -hi.y, -hi.z, -hi.z */ \
	XORPS X13, X5 \
	SUBPS lo, X5 /* d; lane 3 unused */ \
	MOVAPS X5, X6 \
	SHUFPS $0xC9, X6, X6 /* d.y, d.z, d.x */ \
	MULPS X5, X6 /* d.x·d.y, d.y·d.z, d.z·d.x */ \
	MOVAPS X6, X8 \
	SHUFPS $0x55, X8, X8 \
	ADDSS X6, X8 \
	MOVHLPS X6, X5 \
	ADDSS X5, X8 \
	ADDSS X8, X8

// BINACC grows the box in X0 and X1 over bucket BX of the buckets at SI.
// Clobbers AX, X2, X3 and X7.
#define BINACC \
	MOVQ BX, AX \
	SHLQ $5, AX \
	MOVUPS (SI)(AX*1), X2 \
	MOVUPS 16(SI)(AX*1), X3 \
	BINMIN(X0, X2) \
	MOVAPS X2, X0 \
	BINMIN(X1, X3) \
	MOVAPS X3, X1

// func binSweepSSE(bins *[bvhBins]binBox, counts *[bvhBins]int, nb int, halves *[2]binBox) (best int, cost float32)
//
// sweepGo in SSE. The frame holds rightArea (0-63) and rightCount
// (64-191).
TEXT ·binSweepSSE(SB), NOSPLIT, $192-44
	MOVQ bins+0(FP), SI
	MOVQ counts+8(FP), R9
	MOVQ nb+16(FP), CX
	MOVQ halves+24(FP), DI
	MOVUPS binInf<>(SB), X12
	MOVUPS binSignsAll<>(SB), X13

	// From the right: the area and count of every right part.
	MOVAPS X12, X0
	MOVAPS X12, X1
	XORQ DX, DX
	LEAQ -1(CX), BX

right:
	CMPQ BX, $0
	JLE rightdone
	BINACC
	ADDQ (R9)(BX*8), DX
	BINAREA(X0, X1)
	MOVSS X8, 0(SP)(BX*4)
	MOVQ DX, 64(SP)(BX*8)
	DECQ BX
	JMP right

rightdone:
	// From the left: the cheapest boundary, and its left part's box in
	// X14, X15.
	MOVAPS X12, X0
	MOVAPS X12, X1
	XORQ DX, DX
	MOVQ $-1, R10
	XORPS X9, X9
	XORQ BX, BX
	LEAQ -1(CX), R11

left:
	CMPQ BX, R11
	JGE leftdone
	BINACC
	ADDQ (R9)(BX*8), DX
	TESTQ DX, DX
	JEQ next
	MOVQ 72(SP)(BX*8), R12 // rightCount[k+1]
	TESTQ R12, R12
	JEQ next
	BINAREA(X0, X1)
	CVTSQ2SS DX, X10
	MULSS X10, X8
	CVTSQ2SS R12, X10
	MULSS 4(SP)(BX*4), X10 // rightArea[k+1]
	ADDSS X10, X8
	TESTQ R10, R10
	JLT take
	UCOMISS X9, X8
	JPS next // unordered: not cheaper
	JCS take
	JMP next

take:
	MOVQ BX, R10
	MOVSS X8, X9
	MOVAPS X0, X14
	MOVAPS X1, X15

next:
	INCQ BX
	JMP left

leftdone:
	MOVQ R10, best+32(FP)
	MOVSS X9, cost+40(FP)
	TESTQ R10, R10
	JLT swept
	// The right part's box: the buckets after the boundary.
	MOVAPS X12, X0
	MOVAPS X12, X1
	LEAQ 1(R10), BX

rightbox:
	CMPQ BX, CX
	JGE store
	BINACC
	INCQ BX
	JMP rightbox

store:
	MOVUPS X14, 0(DI)
	MOVUPS X15, 16(DI)
	MOVUPS X0, 32(DI)
	MOVUPS X1, 48(DI)

swept:
	RET
