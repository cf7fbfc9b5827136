// setRay4SSE's body (slab4_amd64.s) as a macro, so that the assembly
// traversal (trav4_amd64.s) prepares its ray inline: one copy of the
// code. In: SI the Ray (Origin at 0, Dir at 12, TMax at 24), DI the ray4
// to fill. Out: the ray4, and X0 [ox, oy, oz, dx], X1 [dx, dy, dz, TMax],
// X6 the inverse direction (lane 3: 1), X10-X12 the origin and X13-X15
// the inverse direction each in all four lanes (the rows stored at 0-32
// and 96-128), and the flags equal (JEQ) where the ray is finite.
// Clobbers X0-X15, AX.

DATA lanes012<>+0(SB)/4, $0xffffffff
DATA lanes012<>+4(SB)/4, $0xffffffff
DATA lanes012<>+8(SB)/4, $0xffffffff
DATA lanes012<>+12(SB)/4, $0
GLOBL lanes012<>(SB), RODATA|NOPTR, $16

DATA lane3one<>+0(SB)/4, $0
DATA lane3one<>+4(SB)/4, $0
DATA lane3one<>+8(SB)/4, $0
DATA lane3one<>+12(SB)/4, $1.0
GLOBL lane3one<>(SB), RODATA|NOPTR, $16

DATA ones4r<>+0(SB)/4, $1.0
DATA ones4r<>+4(SB)/4, $1.0
DATA ones4r<>+8(SB)/4, $1.0
DATA ones4r<>+12(SB)/4, $1.0
GLOBL ones4r<>(SB), RODATA|NOPTR, $16

DATA maxInv4<>+0(SB)/4, $1e30
DATA maxInv4<>+4(SB)/4, $1e30
DATA maxInv4<>+8(SB)/4, $1e30
DATA maxInv4<>+12(SB)/4, $1e30
GLOBL maxInv4<>(SB), RODATA|NOPTR, $16

DATA minInv4<>+0(SB)/4, $-1e30
DATA minInv4<>+4(SB)/4, $-1e30
DATA minInv4<>+8(SB)/4, $-1e30
DATA minInv4<>+12(SB)/4, $-1e30
GLOBL minInv4<>(SB), RODATA|NOPTR, $16

DATA plane48<>+0(SB)/4, $48
DATA plane48<>+4(SB)/4, $48
DATA plane48<>+8(SB)/4, $48
DATA plane48<>+12(SB)/4, $48
GLOBL plane48<>(SB), RODATA|NOPTR, $16

DATA nearRows<>+0(SB)/4, $0
DATA nearRows<>+4(SB)/4, $16
DATA nearRows<>+8(SB)/4, $32
DATA nearRows<>+12(SB)/4, $0
GLOBL nearRows<>(SB), RODATA|NOPTR, $16

DATA farRows<>+0(SB)/4, $48
DATA farRows<>+4(SB)/4, $64
DATA farRows<>+8(SB)/4, $80
DATA farRows<>+12(SB)/4, $0
GLOBL farRows<>(SB), RODATA|NOPTR, $16

#define SETRAY4 \
	MOVUPS 0(SI), X0 /* [ox, oy, oz, dx] */ \
	MOVUPS 12(SI), X1 /* [dx, dy, dz, TMax] */ \
	/* o and d, each component in all four lanes. */ \
	PSHUFD $0x00, X0, X10 \
	MOVUPS X10, 0(DI) \
	PSHUFD $0x55, X0, X11 \
	MOVUPS X11, 16(DI) \
	PSHUFD $0xaa, X0, X12 \
	MOVUPS X12, 32(DI) \
	PSHUFD $0x00, X1, X2 \
	MOVUPS X2, 48(DI) \
	PSHUFD $0x55, X1, X2 \
	MOVUPS X2, 64(DI) \
	PSHUFD $0xaa, X1, X2 \
	MOVUPS X2, 80(DI) \
	/* inv = max(min(1/d, maxInvDir), −maxInvDir), lane 3 divided by 1. */ \
	MOVAPS X1, X3 \
	ANDPS  lanes012<>(SB), X3 \
	ORPS   lane3one<>(SB), X3 /* [dx, dy, dz, 1] */ \
	MOVUPS ones4r<>(SB), X4 \
	DIVPS  X3, X4 /* 1/d */ \
	MOVUPS maxInv4<>(SB), X5 \
	MINPS  X4, X5 /* min(maxInvDir, 1/d): 1/d if NaN */ \
	MOVUPS minInv4<>(SB), X6 \
	MAXPS  X5, X6 /* max(−maxInvDir, ·): · if NaN */ \
	PSHUFD $0x00, X6, X13 \
	MOVUPS X13, 96(DI) \
	PSHUFD $0x55, X6, X14 \
	MOVUPS X14, 112(DI) \
	PSHUFD $0xaa, X6, X15 \
	MOVUPS X15, 128(DI) \
	/* near[a] = 16a + 48·sign(inv a), far[a] = 48 + 16a − 48·sign(inv a), */ \
	/* in the lanes: lane 3's inverse is 1, so its near and far are 0 and */ \
	/* far's, stored over finite (written below) and the padding, leaves */ \
	/* them 0. */ \
	MOVAPS X6, X2 \
	PSRAL  $31, X2 /* all ones where inv < 0 */ \
	MOVUPS plane48<>(SB), X3 \
	PAND   X3, X2 /* 48·sign */ \
	MOVUPS nearRows<>(SB), X3 \
	PADDL  X2, X3 \
	MOVUPS X3, 144(DI) /* near, and far[0] (stored next) */ \
	MOVUPS farRows<>(SB), X4 \
	PSUBL  X2, X4 \
	MOVUPS X4, 156(DI) /* far, and 0 at 168-171 */ \
	/* finite: (o − o) + (d − d) is 0, not NaN, in lanes 0-2 (x − x is */ \
	/* 0 for a finite x and NaN for an infinite or NaN one). */ \
	MOVAPS   X0, X7 \
	SUBPS    X0, X7 \
	MOVAPS   X1, X8 \
	SUBPS    X1, X8 \
	ADDPS    X8, X7 \
	CMPPS    X7, X7, $0 /* ordered: not NaN */ \
	MOVMSKPS X7, AX \
	ANDL     $7, AX \
	CMPL     AX, $7 \
	SETEQ    168(DI)
