//go:build amd64 && !purego

#include "textflag.h"

// func streamLines(dst, src *byte, n int)
// Copies n bytes (a multiple of 64, n > 0) to dst (16-byte aligned) with
// non-temporal stores; StreamFence orders them before later stores.
TEXT ·streamLines(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
loop:
	MOVUPS 0(SI), X0
	MOVUPS 16(SI), X1
	MOVUPS 32(SI), X2
	MOVUPS 48(SI), X3
	MOVNTPS X0, 0(DI)
	MOVNTPS X1, 16(DI)
	MOVNTPS X2, 32(DI)
	MOVNTPS X3, 48(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $64, CX
	JGT loop
	RET

// func StreamFence()
TEXT ·StreamFence(SB), NOSPLIT, $0-0
	SFENCE
	RET
