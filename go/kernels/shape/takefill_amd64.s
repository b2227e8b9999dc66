//go:build amd64 && !purego

#include "textflag.h"

// func takeFill32Z(dst, src *uint32, ix *int32, n, wrap, lim int, fill uint32, pf *byte)
// n is a multiple of 16. Each index v (v + wrap where v < 0) below lim,
// compared unsigned, gathers src[v]; the other lanes get fill (masked
// lanes of the gather load nothing). Unless pf is nil, each block of 16
// prefetches the next cache line from pf on: the next run's table (one
// line per 16 indices covers a table as long as the run), whose lines the
// gathers would otherwise miss one by one in random order.
TEXT ·takeFill32Z(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ix+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ wrap+32(FP), AX
	VPBROADCASTD AX, Z1
	MOVQ lim+40(FP), AX
	VPBROADCASTD AX, Z2
	MOVL fill+48(FP), AX
	VPBROADCASTD AX, Z3
	MOVQ pf+56(FP), R8
	VPXORD Z0, Z0, Z0
	SHRQ $4, CX
	JZ done
	TESTQ R8, R8
	JNZ pfloop

loop:
	VMOVDQU32 (DX), Z4
	VPCMPD $1, Z0, Z4, K1
	VPADDD Z1, Z4, K1, Z4
	VPCMPUD $1, Z2, Z4, K2
	VMOVDQA32 Z3, Z5
	VPGATHERDD (SI)(Z4*4), K2, Z5
	VMOVDQU32 Z5, (DI)
	ADDQ $64, DX
	ADDQ $64, DI
	DECQ CX
	JNZ loop
	JMP done

pfloop:
	PREFETCHT0 (R8)
	ADDQ $64, R8
	VMOVDQU32 (DX), Z4
	VPCMPD $1, Z0, Z4, K1
	VPADDD Z1, Z4, K1, Z4
	VPCMPUD $1, Z2, Z4, K2
	VMOVDQA32 Z3, Z5
	VPGATHERDD (SI)(Z4*4), K2, Z5
	VMOVDQU32 Z5, (DI)
	ADDQ $64, DX
	ADDQ $64, DI
	DECQ CX
	JNZ pfloop

done:
	VZEROUPPER
	RET
