//go:build amd64 && !purego

#include "textflag.h"

// func prefetchLines(p *byte, n int)
// PREFETCHT0 on every 64-byte line of [p, p+n); n > 0.
TEXT ·prefetchLines(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
loop:
	PREFETCHT0 (SI)
	ADDQ $64, SI
	SUBQ $64, CX
	JGT loop
	RET

