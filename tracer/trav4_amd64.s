#include "textflag.h"
#include "funcdata.h"
#include "hit4_amd64.h"
#include "ray4_amd64.h"
#include "trav4_amd64.h"

// The wide traversal's loops in SSE (trav4_amd64.go): one function per
// query, nearest hit and any hit, each holding the whole loop. SSE2 only,
// no AVX instruction, so no upper register state is left dirty.
//
// The frame (offsets from the hardware SP): the arguments of the calls it
// makes at 0-31; the ray4 at RAY (setRay4SSE's, filled by SETRAY4); scratch
// rows ENT (four stack entries) and OUT (t, b1, b2 of four triangles);
// the stack depth across a call at SPS; the pop bound at TKEY; the index
// of a leaf's next triangle at LIDX; the stack at STK, room for
// wideStackSize entries. It holds no Go pointer across a call.
//
// A stack entry of the nearest-hit loop is 8 bytes, the child reference
// in the low half and its entry distance's bits in the high one: entry
// distances are never negative nor NaN (enter4SSE clamps them to 0), so
// the entries order as unsigned integers as (distance, reference) do, and
// one comparison with TKEY, TMax's bits over 32 ones, culls an entry
// beyond TMax. The any-hit loop's entries are bare references, 4 bytes.
//
// Registers in the node loop: R8 the wide nodes, R10 the stack depth,
// R11, R12, R13 the plane offsets the ray enters the x, y, z slabs by
// (ray4.near), R14 and R9 those it leaves x and y by (z's is read from
// the frame), X8 zero, X9 TMax, X10-X12 the origin, X13-X15 the inverse
// direction, each in all four lanes. Triangle leaves and calls clobber
// them; the loops reload them from the frame (RELOAD, RELOADLEAF).

#define RAY 32
#define ENT 208
#define OUT 240
#define SPS 288
#define TKEY 296
#define LIDX 304
#define STK 320
// The frame is 1856 bytes (written out in the TEXT lines, for go vet).
// The most entries on the stack before a node pushes up to three:
// the frame holds (1856 − STK)/8 = 192 = wideStackSize.
#define STKMAX 189

// SETRAY fills the frame's ray4 for the ray at r (SETRAY4, setRay4SSE's
// code), jumps to notfinite for a ray that is not finite, and loads the
// node loop's registers (RELOAD's) from the values it computed.
#define SETRAY(notfinite) \
	MOVQ   r+32(FP), SI \
	LEAQ   RAY(SP), DI \
	SETRAY4 \
	JNE    notfinite \
	PSHUFD $0xff, X1, X9 \
	XORPS  X8, X8 \
	MOVL   RAY+144(SP), R11 \
	MOVL   RAY+148(SP), R12 \
	MOVL   RAY+152(SP), R13 \
	MOVL   RAY+160(SP), R9 \
	MOVL   RAY+156(SP), R14 \
	MOVQ   nodes+0(FP), R8

// RELOAD loads the node loop's registers from the frame and the ray at
// r: its TMax into X9. A triangle leaf leaves R8 and R14 as they are and
// reloads the rest (RELOADLEAF).
#define RELOAD \
	RELOADLEAF \
	MOVL   RAY+156(SP), R14 \
	MOVQ   nodes+0(FP), R8

#define RELOADLEAF \
	MOVQ   r+32(FP), SI \
	MOVSS  24(SI), X9 \
	SHUFPS $0x00, X9, X9 \
	MOVUPS RAY+0(SP), X10 \
	MOVUPS RAY+16(SP), X11 \
	MOVUPS RAY+32(SP), X12 \
	MOVUPS RAY+96(SP), X13 \
	MOVUPS RAY+112(SP), X14 \
	MOVUPS RAY+128(SP), X15 \
	XORPS  X8, X8 \
	MOVL   RAY+144(SP), R11 \
	MOVL   RAY+148(SP), R12 \
	MOVL   RAY+152(SP), R13 \
	MOVL   RAY+160(SP), R9

// NODE4 is enter4SSE's slab test of node BX's four boxes, the same
// operations on the same operands: X0 the entry distances, CX the mask of
// the boxes entered by TMax.
#define NODE4 \
	MOVUPS (BX)(R11*1), X0 \
	MOVUPS (BX)(R14*1), X1 \
	SUBPS  X10, X0 \
	MULPS  X13, X0 /* near x */ \
	SUBPS  X10, X1 \
	MULPS  X13, X1 /* far x */ \
	MOVUPS (BX)(R12*1), X2 \
	MOVUPS (BX)(R9*1), X3 \
	SUBPS  X11, X2 \
	MULPS  X14, X2 /* near y */ \
	SUBPS  X11, X3 \
	MULPS  X14, X3 /* far y */ \
	MOVL   RAY+164(SP), CX \
	MOVUPS (BX)(R13*1), X4 \
	MOVUPS (BX)(CX*1), X5 \
	SUBPS  X12, X4 \
	MULPS  X15, X4 /* near z */ \
	SUBPS  X12, X5 \
	MULPS  X15, X5 /* far z */ \
	MAXPS  X2, X0 \
	MAXPS  X8, X4 \
	MAXPS  X4, X0 /* tnear = max(near x, near y, near z, 0) */ \
	MINPS  X3, X1 \
	MINPS  X9, X5 \
	MINPS  X5, X1 /* tfar = min(far x, far y, far z, TMax) */ \
	MOVAPS X0, X2 \
	CMPPS  X1, X2, $2 /* tnear <= tfar */ \
	MOVMSKPS X2, CX

// LEAF4 points AX, BX, CX, DX at the four triangles from DI, of which R9
// (≥ 1) are the leaf's: the spare lanes repeat DI's (group4SSE's rule),
// SI at the frame's ray, and X15 holds the ray's TMax; R11 is the ray.
#define LEAF4 \
	MOVQ    DI, AX \
	LEAQ    36(DI), BX \
	CMPL    R9, $2 \
	CMOVQLT DI, BX \
	LEAQ    72(DI), CX \
	CMPL    R9, $3 \
	CMOVQLT DI, CX \
	LEAQ    108(DI), DX \
	CMPL    R9, $4 \
	CMOVQLT DI, DX \
	MOVQ    r+32(FP), R11 \
	MOVSS   24(R11), X15 \
	SHUFPS  $0x00, X15, X15 \
	LEAQ    RAY(SP), SI

// LANES ands AX with the lanes of the R9 triangles left (all four when R9 ≥ 4).
#define LANES(full) \
	MOVL $15, BX \
	CMPL R9, $4 \
	JGE  full \
	MOVL R9, CX \
	MOVL $1, BX \
	SHLL CX, BX \
	DECL BX \
full: \
	ANDL BX, AX

// LEAFSTART sets DI at the first triangle of leaf DX, LIDX to its index
// and R9 to its count.
#define LEAFSTART \
	MOVL DX, AX \
	ANDL $0x7ffffff, AX \
	MOVL AX, LIDX(SP) \
	SHRL $28, DX \
	ANDL $7, DX \
	LEAL 1(DX), R9 \
	LEAQ (AX)(AX*8), DI \
	SHLQ $2, DI \
	ADDQ tris+8(FP), DI

// func trav4NearestSSE(nodes *bvh4Node, tris *Triangle, root uint32, s *Scene, r *Ray, h *Hit, stack *uint64, n int) (status uint32)
//
// Ray: TMax at 24. Hit: T at 0, Kind at 4, Index at 8, B1 at 12, B2 at 16.
TEXT ·trav4NearestSSE(SB), 0, $1856-68
	NO_LOCAL_POINTERS
	SETRAY(nfallback)
	MOVL  24(SI), AX
	SETKEY(AX)
	MOVQ  n+56(FP), R10
	TESTQ R10, R10
	JNZ   nstack
	MOVL  root+16(FP), DX
	JMP   nvisit

nstack:
	// From the n entries at stack (a packet's, trav4PacketsSSE's).
	MOVQ stack+48(FP), DI
	XORQ CX, CX

ncopy:
	MOVQ (DI)(CX*8), AX
	MOVQ AX, STK(SP)(CX*8)
	INCQ CX
	CMPQ CX, R10
	JLT  ncopy
	JMP  npop

nreload:
	RELOAD
	MOVL  24(SI), AX
	SETKEY(AX)

npop:
	TESTQ R10, R10
	JZ    ndone
	DECQ  R10
	MOVQ  STK(SP)(R10*8), DX
	CMPQ  DX, TKEY(SP)
	JHI   npop                 // entered beyond TMax
	MOVL  DX, DX

nvisit:
	// DX: the reference to visit.
	TESTL DX, DX
	JMI   nleaf
	SHLQ  $7, DX
	LEAQ  (R8)(DX*1), BX
	PREFETCH4
	NODE4
	ORDER4(npop, nvisit, nfull, ntwo, nthree, nfour)

nleaf:
	BTL $27, DX
	JCS nshapes
	LEAFSTART

ngroup:
	LEAF4
	HIT4
	MOVMSKPS X13, AX
	LANES(nlanes)
	JZ     nnext
	MOVUPS X7, OUT(SP)
	MOVUPS X10, OUT+16(SP)
	MOVUPS X0, OUT+32(SP)
	MOVQ   h+40(FP), BX

nhit:
	// Lane CX's hit, taken as leafSSE takes it: t < TMax (as it
	// shrinks) and the tie rule (Hit.takesTriangle). t and TMax are
	// positive here, so they compare as unsigned integers.
	BSFL AX, CX
	MOVL OUT(SP)(CX*4), DX
	CMPL DX, 24(R11)
	JCC  nskip
	MOVL LIDX(SP), R12
	ADDL CX, R12
	TAKE(BX, R12, R13, nskip, ntake)
	MOVL DX, 24(R11)           // TMax = tieBound(t)
	MOVL DX, R13
	SETKEY(R13)

nskip:
	LEAL -1(AX), CX
	ANDL CX, AX
	JNZ  nhit

nnext:
	ADDQ $144, DI
	ADDL $4, LIDX(SP)
	SUBL $4, R9
	JGT  ngroup
	RELOADLEAF
	JMP  npop

nshapes:
	MOVQ R10, SPS(SP)
	MOVQ s+24(FP), AX
	MOVQ AX, 0(SP)
	MOVQ r+32(FP), AX
	MOVQ AX, 8(SP)
	MOVQ h+40(FP), AX
	MOVQ AX, 16(SP)
	MOVL DX, 24(SP)
	CALL ·trav4ShapeLeaf(SB)
	MOVQ SPS(SP), R10
	JMP  nreload

ndone:
	MOVL $0, status+64(FP)     // trav4Miss: done
	RET

nfull:
nfallback:
	MOVL $2, status+64(FP)     // trav4Fallback
	RET

// func trav4AnySSE(nodes *bvh4Node, tris *Triangle, root uint32, s *Scene, r *Ray) (status uint32)
TEXT ·trav4AnySSE(SB), 0, $1856-44
	NO_LOCAL_POINTERS
	SETRAY(afallback)
	XORQ  R10, R10
	MOVL  root+16(FP), DX
	JMP   avisit

areload:
	RELOAD

apop:
	TESTQ R10, R10
	JZ    amiss
	DECQ  R10
	MOVL  STK(SP)(R10*4), DX

avisit:
	TESTL DX, DX
	JMI   aleaf
	SHLQ  $7, DX
	LEAQ  (R8)(DX*1), BX
	PREFETCH4
	NODE4
	TESTL CX, CX
	JZ    apop
	BSFL  CX, AX
	LEAL  -1(CX), DX
	ANDL  DX, CX
	JZ    aone
	CMPQ  R10, $STKMAX
	JHI   afull

apush:
	// The first child entered is visited, the others pushed in order,
	// as occludedWideGo does.
	BSFL CX, DX
	MOVL 96(BX)(DX*4), SI
	MOVL SI, STK(SP)(R10*4)
	INCQ R10
	LEAL -1(CX), DX
	ANDL DX, CX
	JNZ  apush

aone:
	MOVL 96(BX)(AX*4), DX
	JMP  avisit

aleaf:
	BTL $27, DX
	JCS ashapes
	LEAFSTART

agroup:
	LEAF4
	HIT4
	MOVMSKPS X13, AX
	LANES(alanes)
	JNZ  ahit
	ADDQ $144, DI
	SUBL $4, R9
	JGT  agroup
	RELOADLEAF
	JMP  apop

ashapes:
	MOVQ R10, SPS(SP)
	MOVQ s+24(FP), AX
	MOVQ AX, 0(SP)
	MOVQ r+32(FP), AX
	MOVQ AX, 8(SP)
	MOVL DX, 16(SP)
	CALL ·trav4ShapeLeafAny(SB)
	CMPB 24(SP), $0
	JNE  ahit
	MOVQ SPS(SP), R10
	JMP  areload

amiss:
	MOVL $0, status+40(FP)     // trav4Miss
	RET

ahit:
	MOVL $1, status+40(FP)     // trav4Hit
	RET

afull:
afallback:
	MOVL $2, status+40(FP)     // trav4Fallback
	RET
