//go:build amd64 && !purego

#include "textflag.h"

// Float32 max/min point scatters with int32 indices, 16 updates at a time:
// the block's current values are gathered and the updates below them (max;
// above them for min), compared ordered, are dropped at once; the others
// are combined one by one (the next block's gather already issued), in order, with the scalar rule (NaN wins, the
// update's when both are; -0 < +0), rereading the current value. Dropping
// first is exact: a dropped update is below a value that later updates of
// the block can only raise (or make NaN, which keeps it). Blocks stop
// before one holding an index outside [0, lim), which the caller combines.

// func maxPointsF32Z(d, s *float32, ix *int32, n, lim int) int
TEXT ·maxPointsF32Z(SB), NOSPLIT, $0-48
	MOVQ d+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ ix+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ lim+32(FP), AX
	VPBROADCASTD AX, Z2
	XORQ R8, R8
	CMPQ R8, CX
	JGE maxdone
	VMOVDQU32 (DX), Z0
	VPCMPUD $1, Z2, Z0, K1
	KMOVW K1, AX
	CMPL AX, $0xffff
	JNE maxdone
	KXNORW K2, K2, K2
	VGATHERDPS (DI)(Z0*4), K2, Z3

maxblock:
	// Z3: the current values of block R8's indices (all valid), gathered
	// one block ahead: values stores of the block before raised (lowered)
	// since are only more conservative for the drop test.
	VMOVUPS (SI)(R8*4), Z1
	VCMPPS $0x11, Z3, Z1, K3
	KMOVW K3, R13
	LEAQ 16(R8), R12
	XORL R14, R14
	CMPQ R12, CX
	JGE maxlanes
	VMOVDQU32 (DX)(R12*4), Z0
	VPCMPUD $1, Z2, Z0, K1
	KMOVW K1, AX
	CMPL AX, $0xffff
	JNE maxlanes
	KXNORW K2, K2, K2
	VGATHERDPS (DI)(Z0*4), K2, Z3
	MOVL $1, R14

maxlanes:
	MOVL R13, AX
	NOTL AX
	ANDL $0xffff, AX
	JZ maxnext

maxlane:
	BSFL AX, BX
	LEAQ (R8)(BX*1), R9
	MOVLQSX (DX)(R9*4), R10
	MOVSS (SI)(R9*4), X4
	MOVSS (DI)(R10*4), X5
	UCOMISS X5, X4
	JPS maxunord
	JHI maxstore
	JNE maxskip
	MOVL (DI)(R10*4), R11
	CMPL R11, $-2147483648
	JNE maxskip
	JMP maxstore

maxunord:
	UCOMISS X4, X4
	JPC maxskip

maxstore:
	MOVSS X4, (DI)(R10*4)

maxskip:
	LEAL -1(AX), R11
	ANDL R11, AX
	JNZ maxlane

maxnext:
	MOVQ R12, R8
	TESTL R14, R14
	JNZ maxblock

maxdone:
	MOVQ R8, ret+40(FP)
	VZEROUPPER
	RET

// func minPointsF32Z(d, s *float32, ix *int32, n, lim int) int
TEXT ·minPointsF32Z(SB), NOSPLIT, $0-48
	MOVQ d+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ ix+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ lim+32(FP), AX
	VPBROADCASTD AX, Z2
	XORQ R8, R8
	CMPQ R8, CX
	JGE mindone
	VMOVDQU32 (DX), Z0
	VPCMPUD $1, Z2, Z0, K1
	KMOVW K1, AX
	CMPL AX, $0xffff
	JNE mindone
	KXNORW K2, K2, K2
	VGATHERDPS (DI)(Z0*4), K2, Z3

minblock:
	// Z3: the current values of block R8's indices (all valid), gathered
	// one block ahead: values stores of the block before raised (lowered)
	// since are only more conservative for the drop test.
	VMOVUPS (SI)(R8*4), Z1
	VCMPPS $0x1e, Z3, Z1, K3
	KMOVW K3, R13
	LEAQ 16(R8), R12
	XORL R14, R14
	CMPQ R12, CX
	JGE minlanes
	VMOVDQU32 (DX)(R12*4), Z0
	VPCMPUD $1, Z2, Z0, K1
	KMOVW K1, AX
	CMPL AX, $0xffff
	JNE minlanes
	KXNORW K2, K2, K2
	VGATHERDPS (DI)(Z0*4), K2, Z3
	MOVL $1, R14

minlanes:
	MOVL R13, AX
	NOTL AX
	ANDL $0xffff, AX
	JZ minnext

minlane:
	BSFL AX, BX
	LEAQ (R8)(BX*1), R9
	MOVLQSX (DX)(R9*4), R10
	MOVSS (SI)(R9*4), X4
	MOVSS (DI)(R10*4), X5
	UCOMISS X5, X4
	JPS minunord
	JCS minstore
	JNE minskip
	MOVL (SI)(R9*4), R11
	CMPL R11, $-2147483648
	JNE minskip
	JMP minstore

minunord:
	UCOMISS X4, X4
	JPC minskip

minstore:
	MOVSS X4, (DI)(R10*4)

minskip:
	LEAL -1(AX), R11
	ANDL R11, AX
	JNZ minlane

minnext:
	MOVQ R12, R8
	TESTL R14, R14
	JNZ minblock

mindone:
	MOVQ R8, ret+40(FP)
	VZEROUPPER
	RET
