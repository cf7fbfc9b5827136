#include "textflag.h"
#include "funcdata.h"
#include "hit4_amd64.h"
#include "ray4_amd64.h"
#include "trav4_amd64.h"

// The packet traversal in SSE (packet_amd64.go): four coherent rays
// through the wide BVH together, one node test for all four by interval
// arithmetic, and each triangle of a leaf tested against the four rays
// at once, one ray per lane (HIT4 with one triangle in every lane). SSE2
// only, no AVX instruction.
//
// The frame (offsets from the hardware SP): the arguments of the calls it
// makes at 0-31; the packet at PKT, 16-byte aligned (SI points at it, so
// the node test can take its rows as memory operands), holding
//
//	  0  the rays' origins and directions, one ray per lane: ox, oy, oz,
//	     dx, dy, dz (an sseRay, what HIT4 reads)
//	 96  the rays' TMax, one per lane (0 for a padding lane)
//	112  per axis, the origin the near planes are taken from, in all lanes
//	160  per axis, the origin the far planes are taken from
//	208  per axis, the least inverse direction of the four rays
//	256  per axis, the greatest
//	304  the plane offsets the rays enter the x, y, z slabs by (as ray4's
//	     near), then those they leave by (ray4's far)
//
// scratch rows ENT (four stack entries) and OUT (t, b1, b2 of four rays);
// the stack depth across a call at SPS; the pop bound at TKEY; the index
// of the leaf's triangle at LIDX; the index of the packet's first ray at
// PIDX; the packet's work so far (nodes visited and triangles tested) at
// WORK; the stack at STK, as trav4NearestSSE's.
#define PKT 32
#define ENT 384
#define OUT 416
#define SPS 464
#define TKEY 472
#define LIDX 480
#define PIDX 488
#define WORK 496
#define STK 512
// The frame is 2048 bytes: (2048 − STK)/8 = 192 = wideStackSize entries.
#define STKMAX 189

// TRANSPOSE4 transposes the rows a, b, c, d (four lanes each) through
// the scratch registers t and u: out, the columns in a (lane 0 of each
// row), t (lane 1), b (lane 2) and c (lane 3).
#define TRANSPOSE4(a, b, c, d, t, u) \
	MOVAPS   a, t \
	UNPCKLPS b, t /* [a0 b0 a1 b1] */ \
	UNPCKHPS b, a /* [a2 b2 a3 b3] */ \
	MOVAPS   c, u \
	UNPCKLPS d, u /* [c0 d0 c1 d1] */ \
	UNPCKHPS d, c /* [c2 d2 c3 d3] */ \
	MOVAPS   a, b \
	MOVLHPS  c, b /* column 2 */ \
	MOVHLPS  a, c /* column 3 */ \
	MOVAPS   t, a \
	MOVLHPS  u, a /* column 0 */ \
	MOVHLPS  t, u /* column 1 */ \
	MOVAPS   u, t

// HMAX puts the greatest lane of x in all its lanes, t a scratch
// register.
#define HMAX(x, t) \
	PSHUFD $0x4e, x, t \
	MAXPS  t, x \
	PSHUFD $0xb1, x, t \
	MAXPS  t, x

// SETUP prepares the packet from the four rays at DI (PKT, SI), jumping to
// bad when a ray is not finite or the rays' directions differ in sign on
// an axis, and loads the node loop's registers: R11, R12, R13 the near
// plane offsets, R14 and R9 the far ones of x and y, X8 zero, X9 the
// greatest TMax in all lanes, X10-X12 and X13-X15 the near and far
// planes' origins; TKEY the pop bound of that TMax. R8 the nodes.
#define SETUP(bad) \
	LEAQ   PKT+15(SP), SI \
	ANDQ   $~15, SI \
	/* Each ray's inverse direction, as SETRAY4 computes it (lane 3: */ \
	/* 1), the least over the four in X0, the greatest in X1. */ \
	INVRAY(12) \
	MOVAPS X3, X0 \
	MOVAPS X3, X1 \
	INVRAY(40) \
	MINPS  X3, X0 \
	MAXPS  X3, X1 \
	INVRAY(68) \
	MINPS  X3, X0 \
	MAXPS  X3, X1 \
	INVRAY(96) \
	MINPS  X3, X0 \
	MAXPS  X3, X1 \
	/* One sign per axis: the least and the greatest agree. */ \
	MOVMSKPS X0, AX \
	MOVMSKPS X1, DX \
	CMPL     AX, DX \
	JNE      bad \
	/* The least and greatest origin, per axis. */ \
	MOVUPS 0(DI), X2 \
	MOVUPS 28(DI), X3 \
	MOVUPS 56(DI), X4 \
	MOVUPS 84(DI), X5 \
	MOVAPS X2, X6 \
	MINPS  X3, X6 \
	MINPS  X4, X6 \
	MINPS  X5, X6 \
	MOVAPS X2, X7 \
	MAXPS  X3, X7 \
	MAXPS  X4, X7 \
	MAXPS  X5, X7 \
	/* The near planes' origin: the greatest for rays going up an */ \
	/* axis, the least for rays going down; the far planes' the other. */ \
	MOVAPS X0, X8 \
	PSRAL  $31, X8 /* all ones on the axes the rays go down */ \
	MOVAPS X6, X9 \
	XORPS  X7, X9 \
	ANDPS  X8, X9 \
	MOVAPS X7, X14 \
	XORPS  X9, X14 /* near */ \
	MOVAPS X6, X15 \
	XORPS  X9, X15 /* far */ \
	PSHUFD $0x00, X14, X10 \
	MOVUPS X10, 112(SI) \
	PSHUFD $0x55, X14, X11 \
	MOVUPS X11, 128(SI) \
	PSHUFD $0xaa, X14, X12 \
	MOVUPS X12, 144(SI) \
	PSHUFD $0x00, X15, X13 \
	MOVUPS X13, 160(SI) \
	PSHUFD $0x55, X15, X14 \
	MOVUPS X14, 176(SI) \
	PSHUFD $0xaa, X15, X15 \
	MOVUPS X15, 192(SI) \
	PSHUFD $0x00, X0, X6 \
	MOVUPS X6, 208(SI) \
	PSHUFD $0x55, X0, X6 \
	MOVUPS X6, 224(SI) \
	PSHUFD $0xaa, X0, X6 \
	MOVUPS X6, 240(SI) \
	PSHUFD $0x00, X1, X6 \
	MOVUPS X6, 256(SI) \
	PSHUFD $0x55, X1, X6 \
	MOVUPS X6, 272(SI) \
	PSHUFD $0xaa, X1, X6 \
	MOVUPS X6, 288(SI) \
	/* The plane offsets, as SETRAY4's: near 16a + 48·down, far */ \
	/* 48 + 16a − 48·down (lane 3: 0, over nothing but padding). */ \
	MOVUPS plane48<>(SB), X6 \
	PAND   X6, X8 \
	MOVUPS nearRows<>(SB), X6 \
	PADDL  X8, X6 \
	MOVUPS X6, 304(SI) \
	MOVUPS farRows<>(SB), X6 \
	PSUBL  X8, X6 \
	MOVUPS X6, 316(SI) \
	/* The rays in lanes: origins and directions, TMax. */ \
	TRANSPOSE4(X2, X3, X4, X5, X6, X7) /* ox X2, oy X6, oz X3 */ \
	MOVUPS 12(DI), X0 \
	MOVUPS 40(DI), X1 \
	MOVUPS 68(DI), X4 \
	MOVUPS 96(DI), X5 \
	TRANSPOSE4(X0, X1, X4, X5, X7, X8) /* dx X0, dy X7, dz X1, TMax X4 */ \
	MOVUPS X2, 0(SI) \
	MOVUPS X6, 16(SI) \
	MOVUPS X3, 32(SI) \
	MOVUPS X0, 48(SI) \
	MOVUPS X7, 64(SI) \
	MOVUPS X1, 80(SI) \
	/* Finite: the sum of the rows is (it may overflow for finite */ \
	/* rays of huge coordinates, which are then traced one by one). */ \
	ADDPS    X6, X2 \
	ADDPS    X3, X2 \
	ADDPS    X0, X2 \
	ADDPS    X7, X2 \
	ADDPS    X1, X2 \
	MOVAPS   X2, X3 \
	SUBPS    X2, X3 /* x − x: 0 for a finite x, else NaN */ \
	CMPPS    X3, X3, $0 /* ordered: not NaN */ \
	MOVMSKPS X3, AX \
	CMPL     AX, $15 \
	JNE      bad \
	/* TMax zero, negative or NaN: 0, below every t > 0; the greatest */ \
	/* in all lanes of X9. */ \
	XORPS  X8, X8 \
	MAXPS  X8, X4 \
	MOVUPS X4, 96(SI) \
	MOVAPS X4, X9 \
	HMAX(X9, X5) \
	MOVL   X9, AX \
	SETKEY(AX) \
	MOVL   304(SI), R11 \
	MOVL   308(SI), R12 \
	MOVL   312(SI), R13 \
	MOVL   316(SI), R14 \
	MOVL   320(SI), R9 \
	MOVQ   nodes+0(FP), R8

// INVRAY puts in X3 the inverse direction of the ray at off−12(DI) (its
// direction and TMax at off), as SETRAY4 computes it: max(min(1/d,
// maxInvDir), −maxInvDir), the same operations, with 1 in lane 3 (TMax's
// reciprocal can be subnormal, which takes a slow path). Clobbers X2, X4.
#define INVRAY(off) \
	MOVUPS off(DI), X2 \
	ANDPS  lanes012<>(SB), X2 \
	ORPS   lane3one<>(SB), X2 \
	MOVUPS ones4r<>(SB), X3 \
	DIVPS  X2, X3 \
	MOVUPS maxInv4<>(SB), X4 \
	MINPS  X3, X4 \
	MOVUPS minInv4<>(SB), X3 \
	MAXPS  X4, X3

// RELOADP loads the node loop's registers from the packet (SI), but X9.
#define RELOADP \
	XORPS  X8, X8 \
	MOVUPS 112(SI), X10 \
	MOVUPS 128(SI), X11 \
	MOVUPS 144(SI), X12 \
	MOVUPS 160(SI), X13 \
	MOVUPS 176(SI), X14 \
	MOVUPS 192(SI), X15 \
	MOVL   304(SI), R11 \
	MOVL   308(SI), R12 \
	MOVL   312(SI), R13 \
	MOVL   316(SI), R14 \
	MOVL   320(SI), R9 \
	MOVQ   nodes+0(FP), R8

// NODEP tests node BX's four boxes against the packet by interval
// arithmetic: on each axis the near distance of a box is the least of
// (plane − origin)·inverse over the four rays, taken at the near
// planes' origin and both ends of the inverse directions, and the far
// one the greatest: subtraction and multiplication round monotonically,
// so no ray's own slab test (enter4SSE's) finds a box nearer or farther
// than these. X0 the packet's entry distances, CX the mask of the boxes
// it enters by the greatest TMax, so every box any of its rays enters.
#define NODEP \
	MOVUPS (BX)(R11*1), X0 \
	SUBPS  X10, X0 \
	MOVAPS X0, X1 \
	MULPS  208(SI), X0 \
	MULPS  256(SI), X1 \
	MINPS  X1, X0 /* near x */ \
	MOVUPS (BX)(R14*1), X2 \
	SUBPS  X13, X2 \
	MOVAPS X2, X3 \
	MULPS  208(SI), X2 \
	MULPS  256(SI), X3 \
	MAXPS  X3, X2 /* far x */ \
	MOVUPS (BX)(R12*1), X4 \
	SUBPS  X11, X4 \
	MOVAPS X4, X5 \
	MULPS  224(SI), X4 \
	MULPS  272(SI), X5 \
	MINPS  X5, X4 /* near y */ \
	MOVUPS (BX)(R9*1), X6 \
	SUBPS  X14, X6 \
	MOVAPS X6, X7 \
	MULPS  224(SI), X6 \
	MULPS  272(SI), X7 \
	MAXPS  X7, X6 /* far y */ \
	MAXPS  X4, X0 \
	MINPS  X6, X2 \
	MOVL   324(SI), CX \
	MOVUPS (BX)(R13*1), X4 \
	SUBPS  X12, X4 \
	MOVAPS X4, X5 \
	MULPS  240(SI), X4 \
	MULPS  288(SI), X5 \
	MINPS  X5, X4 /* near z */ \
	MOVUPS (BX)(CX*1), X6 \
	SUBPS  X15, X6 \
	MOVAPS X6, X7 \
	MULPS  240(SI), X6 \
	MULPS  288(SI), X7 \
	MAXPS  X7, X6 /* far z */ \
	MAXPS  X8, X4 \
	MAXPS  X4, X0 /* tnear = max(near x, near y, near z, 0) */ \
	MINPS  X9, X6 \
	MINPS  X6, X2 /* tfar = min(far x, far y, far z, TMax) */ \
	MOVAPS X0, X3 \
	CMPPS  X2, X3, $2 /* tnear <= tfar */ \
	MOVMSKPS X3, CX

// SCRATCH copies the packet's rays into scratch (DI), each with its TMax
// now. Clobbers AX, X0.
#define SCRATCH \
	MOVQ   PIDX(SP), AX \
	IMUL3Q $28, AX, AX \
	ADDQ   rays+32(FP), AX \
	MOVQ   scratch+56(FP), DI \
	MOVUPS 0(AX), X0 \
	MOVUPS X0, 0(DI) \
	MOVUPS 16(AX), X0 \
	MOVUPS X0, 16(DI) \
	MOVUPS 32(AX), X0 \
	MOVUPS X0, 32(DI) \
	MOVUPS 48(AX), X0 \
	MOVUPS X0, 48(DI) \
	MOVUPS 64(AX), X0 \
	MOVUPS X0, 64(DI) \
	MOVUPS 80(AX), X0 \
	MOVUPS X0, 80(DI) \
	MOVUPS 96(AX), X0 \
	MOVUPS X0, 96(DI) \
	MOVL   96(SI), AX \
	MOVL   AX, 24(DI) \
	MOVL   100(SI), AX \
	MOVL   AX, 52(DI) \
	MOVL   104(SI), AX \
	MOVL   AX, 80(DI) \
	MOVL   108(SI), AX \
	MOVL   AX, 108(DI)

// func trav4PacketsSSE(nodes *bvh4Node, tris *Triangle, root uint32, s *Scene, rays *Ray, hits *Hit, n int, scratch *[4]Ray, fresh bool, budget int, stack *uint64) (done int, split int)
//
// Ray: 28 bytes, TMax at 24. Hit: 20 bytes, T at 0, Kind at 4, Index at
// 8, B1 at 12, B2 at 16. PIDX holds the index of the packet's first ray;
// the rays and hits are addressed from the arguments and PIDX, not kept
// across a call (which may move them with the stack).
TEXT ·trav4PacketsSSE(SB), 0, $2048-104
	NO_LOCAL_POINTERS
	MOVQ $0, PIDX(SP)

ppacket:
	MOVQ PIDX(SP), AX
	CMPQ AX, n+48(FP)
	JGE  pend
	IMUL3Q $28, AX, DI
	ADDQ rays+32(FP), DI
	SETUP(pend)
	MOVL   $0, WORK(SP)
	CMPB   fresh+64(FP), $0
	JEQ    pstart
	// The hits held: none, at each ray's own TMax.
	MOVQ   PIDX(SP), AX
	IMUL3Q $20, AX, BX
	ADDQ   hits+40(FP), BX
	MOVQ   rays+32(FP), DI
	IMUL3Q $28, AX, AX
	ADDQ   AX, DI
	XORPS  X0, X0
	MOVUPS X0, 0(BX)
	MOVUPS X0, 16(BX)
	MOVUPS X0, 32(BX)
	MOVUPS X0, 48(BX)
	MOVUPS X0, 64(BX)
	MOVL   24(DI), AX
	MOVL   AX, 0(BX)
	MOVL   52(DI), AX
	MOVL   AX, 20(BX)
	MOVL   80(DI), AX
	MOVL   AX, 40(BX)
	MOVL   108(DI), AX
	MOVL   AX, 60(BX)

pstart:
	XORQ   R10, R10
	MOVL   root+16(FP), DX
	JMP    pvisit

ppop:
	TESTQ R10, R10
	JZ    pnextpacket
	DECQ  R10
	MOVQ  STK(SP)(R10*8), DX
	CMPQ  DX, TKEY(SP)
	JHI   ppop                 // entered beyond every ray's TMax
	MOVL  DX, DX

pvisit:
	INCL  WORK(SP)
	MOVL  WORK(SP), AX
	CMPQ  AX, budget+72(FP)
	JGT   psplit
	TESTL DX, DX
	JMI   pleaf
	SHLQ  $7, DX
	LEAQ  (R8)(DX*1), BX
	PREFETCH4
	NODEP
	ORDER4(ppop, pvisit, pend, ptwo, pthree, pfour)

pleaf:
	BTL  $27, DX
	JCS  pshapes
	MOVL DX, AX
	ANDL $0x7ffffff, AX
	MOVL AX, LIDX(SP)
	SHRL $28, DX
	ANDL $7, DX
	LEAL 1(DX), R9
	LEAQ (AX)(AX*8), DI
	SHLQ $2, DI
	ADDQ tris+8(FP), DI

ptri:
	// Triangle DI against the four rays, one per lane.
	INCL   WORK(SP)
	MOVQ   DI, AX
	MOVUPS 96(SI), X15
	HIT1LOAD
	HIT4MATH
	MOVMSKPS X13, AX
	TESTL  AX, AX
	JZ     pnext
	MOVUPS X7, OUT(SP)
	MOVUPS X10, OUT+16(SP)
	MOVUPS X0, OUT+32(SP)
	MOVQ   PIDX(SP), BX
	IMUL3Q $20, BX, BX
	ADDQ   hits+40(FP), BX

phit:
	// Ray CX's hit, taken as leafSSE takes it: t < its TMax (HIT4's
	// test) and the tie rule (Hit.takesTriangle). t and T are positive
	// here, so they compare as unsigned integers.
	BSFL AX, CX
	MOVL OUT(SP)(CX*4), DX
	LEAQ (CX)(CX*4), R12
	LEAQ (BX)(R12*4), R13      // the ray's hit
	MOVL LIDX(SP), R12
	TAKE(R13, R12, R14, pskip, ptake)
	MOVL DX, 96(SI)(CX*4)      // the lane's TMax = tieBound(t)

pskip:
	LEAL -1(AX), CX
	ANDL CX, AX
	JNZ  phit

pnext:
	ADDQ $36, DI
	INCL LIDX(SP)
	DECL R9
	JNZ  ptri
	// The greatest TMax again, and the node loop's registers.
	MOVUPS 96(SI), X9
	HMAX(X9, X0)
	MOVL   X9, AX
	SETKEY(AX)
	RELOADP
	JMP    ppop

pshapes:
	// A leaf of shapes: scratch gets the packet's rays with their TMax
	// now, trav4PacketShapeLeaf tests them (and updates it and the
	// hits), and the packet is prepared again from scratch.
	MOVQ   R10, SPS(SP)
	SCRATCH
	MOVQ   s+24(FP), AX
	MOVQ   AX, 0(SP)
	MOVQ   DI, 8(SP)
	MOVQ   PIDX(SP), AX
	IMUL3Q $20, AX, AX
	ADDQ   hits+40(FP), AX
	MOVQ   AX, 16(SP)
	MOVL   DX, 24(SP)
	CALL   ·trav4PacketShapeLeaf(SB)
	// The stack may have moved: SI again, and the packet from scratch
	// (the same rays, so the same checks pass).
	MOVQ   scratch+56(FP), DI
	SETUP(pend)
	MOVQ   SPS(SP), R10
	JMP    ppop

pnextpacket:
	ADDQ $4, PIDX(SP)
	JMP  ppacket

pend:
	// Done, or stopped at a packet Intersect must trace ray by ray.
	MOVQ PIDX(SP), AX
	MOVQ AX, done+88(FP)
	MOVQ $0, split+96(FP)
	RET

psplit:
	// Past its budget: the packet's rays go on one by one from what is
	// left of its traversal, the reference DX (entered at 0 or later) on
	// top of the stack, which goes to stack; its rays with their TMax
	// now to scratch.
	MOVQ stack+80(FP), DI
	XORQ CX, CX
	JMP  pcopytest

pcopy:
	MOVQ STK(SP)(CX*8), AX
	MOVQ AX, (DI)(CX*8)
	INCQ CX

pcopytest:
	CMPQ CX, R10
	JLT  pcopy
	MOVL DX, DX
	MOVQ DX, (DI)(CX*8)
	INCQ CX
	MOVQ CX, split+96(FP)
	SCRATCH
	MOVQ PIDX(SP), AX
	MOVQ AX, done+88(FP)
	RET
