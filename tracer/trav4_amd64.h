// The steps the traversals share, the single-ray loops (trav4_amd64.s)
// and the packet loop (packet_amd64.s): the prefetches of a node's
// children (PREFETCH4), and in the nearest-hit loops the step from a node
// to its children (ORDER4), a triangle's hit taken under the tie rule
// (TAKE) and the stack's pop bound (SETKEY). Both files define the frame
// offsets TKEY (the pop bound), ENT (four stack entries of scratch), OUT
// (t, b1, b2 of four lanes) and STK (the stack), and STKMAX.

// PREFETCH4 prefetches three cache lines around each child of node BX,
// the one at its offset and the ones before and after it: for an
// interior child, both lines of its node (and the line before, which
// costs the loop nothing measurable), for a triangle leaf, whose offset
// is a line past its first triangle, the first three lines of its
// triangles (a leaf of three or four spans three), and lines around node
// 0 (in cache) for another. Random rays on large meshes wait on these
// fetches; they then start while the node's own boxes are tested, not
// after, and a pushed child is in cache when it is popped. The addresses
// are bvh4Node.prefetch, signed offsets from R8 in units of 8 bytes.
// Clobbers AX, DI.
#define PREFETCH4 \
	PREFETCH2(112) \
	PREFETCH2(120)

// PREFETCH2 is PREFETCH4's step for the two children whose offsets lie
// at off(BX).
#define PREFETCH2(off) \
	MOVQ       off(BX), AX \
	MOVLQSX    AX, DI \
	SARQ       $32, AX \
	PREFETCHT0 -64(R8)(DI*8) \
	PREFETCHT0 (R8)(DI*8) \
	PREFETCHT0 64(R8)(DI*8) \
	PREFETCHT0 -64(R8)(AX*8) \
	PREFETCHT0 (R8)(AX*8) \
	PREFETCHT0 64(R8)(AX*8)

// SETKEY stores in TKEY the pop bound of TMax's bits in x (zero-extended,
// clobbered): (TMax's bits + 1)·2³² − 1, TMax's bits over 32 ones.
#define SETKEY(x) \
	INCQ x \
	SHLQ $32, x \
	DECQ x \
	MOVQ x, TKEY(SP)

// CE orders a and b as unsigned integers (a ≤ b), t a scratch register.
#define CE(a, b, t) \
	MOVQ    a, t \
	CMPQ    b, a \
	CMOVQCS b, a \
	CMOVQCS t, b

// ORDER4 goes on from node BX, whose test entered the children of mask
// CX at the entry distances X0 (never negative nor NaN): to pop when it
// entered none; to visit with DX the one child's reference; with two or
// more, their stack entries (the distance's bits over the reference,
// which order as unsigned integers as (distance, reference) do) are
// ordered by a sorting network, the nearest visited and the others pushed
// farthest first on the stack at STK(SP), R10 entries deep, or to full
// when that holds more than STKMAX. two, three and four are the macro's
// own labels. Clobbers AX, BX, CX, DI, X1, X2.
#define ORDER4(pop, visit, full, two, three, four) \
	TESTL CX, CX \
	JZ    pop \
	BSFL  CX, AX \
	LEAL  -1(CX), DX \
	ANDL  DX, CX \
	JNZ   two \
	MOVL  96(BX)(AX*4), DX /* one child entered */ \
	JMP   visit \
two: \
	CMPQ      R10, $STKMAX \
	JHI       full \
	MOVUPS    96(BX), X1 \
	MOVAPS    X1, X2 \
	PUNPCKLLQ X0, X1 \
	PUNPCKHLQ X0, X2 \
	MOVUPS    X1, ENT(SP) \
	MOVUPS    X2, ENT+16(SP) \
	BSFL      CX, DX \
	LEAL      -1(CX), DI \
	ANDL      DI, CX \
	JNZ       three \
	MOVQ      ENT(SP)(AX*8), AX \
	MOVQ      ENT(SP)(DX*8), DX \
	CE(AX, DX, DI) \
	MOVQ      DX, STK(SP)(R10*8) \
	INCQ      R10 \
	MOVL      AX, DX \
	JMP       visit \
three: \
	BSFL CX, DI \
	LEAL -1(CX), BX \
	ANDL BX, CX \
	JNZ  four \
	MOVQ ENT(SP)(AX*8), AX \
	MOVQ ENT(SP)(DX*8), DX \
	MOVQ ENT(SP)(DI*8), DI \
	CE(AX, DX, BX) \
	CE(DX, DI, BX) \
	CE(AX, DX, BX) \
	MOVQ DI, STK(SP)(R10*8) \
	MOVQ DX, STK+8(SP)(R10*8) \
	ADDQ $2, R10 \
	MOVL AX, DX \
	JMP  visit \
four: \
	MOVQ ENT(SP), AX \
	MOVQ ENT+8(SP), DX \
	MOVQ ENT+16(SP), DI \
	MOVQ ENT+24(SP), CX \
	CE(AX, DX, BX) \
	CE(DI, CX, BX) \
	CE(AX, DI, BX) \
	CE(DX, CX, BX) \
	CE(DX, DI, BX) \
	MOVQ CX, STK(SP)(R10*8) \
	MOVQ DI, STK+8(SP)(R10*8) \
	MOVQ DX, STK+16(SP)(R10*8) \
	ADDQ $3, R10 \
	MOVL AX, DX \
	JMP  visit

// TAKE takes lane CX's hit on triangle idx, at t (DX's bits; t and the
// held hit's T are positive, so they compare as unsigned integers) with
// b1 and b2 in the OUT rows, under the tie rule (Hit.takesTriangle): it
// jumps to skip when the hit h holds stays, else writes the new hit into
// h and goes on with DX the bits of tieBound(t), the new TMax. take is
// the macro's own label; tmp a scratch register.
#define TAKE(h, idx, tmp, skip, take) \
	CMPL DX, 0(h) \
	JCS  take /* t < h.T */ \
	CMPL 4(h), $1 \
	JNE  skip /* h is not a triangle */ \
	CMPL idx, 8(h) \
	JCC  skip /* nor one after this */ \
take: \
	MOVL DX, 0(h) \
	MOVL $1, 4(h) /* HitTriangle */ \
	MOVL idx, 8(h) \
	MOVL OUT+16(SP)(CX*4), tmp \
	MOVL tmp, 12(h) \
	MOVL OUT+32(SP)(CX*4), tmp \
	MOVL tmp, 16(h) \
	INCL DX
