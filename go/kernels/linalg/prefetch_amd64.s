//go:build amd64 && !purego

#include "textflag.h"

// func prefetchL2(p *float32, n int)
TEXT ·prefetchL2(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
pf:
	TESTQ CX, CX
	JEQ pfdone
	PREFETCHT1 (SI)
	ADDQ $64, SI
	DECQ CX
	JMP pf
pfdone:
	RET
