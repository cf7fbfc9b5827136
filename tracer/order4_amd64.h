// The nearest-hit traversals' step from a node to its children, shared by
// the single-ray loop (trav4_amd64.s) and the packet loop
// (packet_amd64.s), which define the frame offsets ENT (four stack
// entries of scratch) and STK (the stack) and STKMAX.

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
