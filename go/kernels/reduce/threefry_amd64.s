//go:build amd64 && !purego

// Written by hand: two loops of the same shape, one per vector set.

#include "textflag.h"

DATA tf32<>+0(SB)/4, $32
GLOBL tf32<>(SB), RODATA|NOPTR, $4

// func threefryRoundsY(y0, y1, x0, x1 *uint32, n int, p *tfParams)
//
// n is a multiple of 16; p.iters >= 1. Two blocks of 8 lanes run
// interleaved so that one block's add-rotate-xor chain hides the other's
// latency. Per iteration p.tab holds four rotation counts (at most 32)
// and the two key words (24 bytes).
TEXT ·threefryRoundsY(SB), NOSPLIT, $0-48
	MOVQ y0+0(FP), DI
	MOVQ y1+8(FP), R9
	MOVQ x0+16(FP), SI
	MOVQ x1+24(FP), DX
	MOVQ n+32(FP), CX
	MOVQ p+40(FP), R8
	SHLQ $2, CX
	XORQ AX, AX
	VPBROADCASTD tf32<>(SB), Y7
	TESTQ CX, CX
	JE Ydone
Yblock:
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y2
	VMOVDQU (DX)(AX*1), Y1
	VMOVDQU 32(DX)(AX*1), Y3
	LEAQ 8(R8), R11
	MOVQ 0(R8), R12
Yiter:
	VPBROADCASTD 0(R11), Y4
	VPADDD Y1, Y0, Y0
	VPADDD Y3, Y2, Y2
	VPSUBD Y4, Y7, Y6
	VPSLLVD Y4, Y1, Y8
	VPSRLVD Y6, Y1, Y1
	VPSLLVD Y4, Y3, Y9
	VPSRLVD Y6, Y3, Y3
	VPOR Y8, Y1, Y1
	VPOR Y9, Y3, Y3
	VPXOR Y0, Y1, Y1
	VPXOR Y2, Y3, Y3
	VPBROADCASTD 4(R11), Y4
	VPADDD Y1, Y0, Y0
	VPADDD Y3, Y2, Y2
	VPSUBD Y4, Y7, Y6
	VPSLLVD Y4, Y1, Y8
	VPSRLVD Y6, Y1, Y1
	VPSLLVD Y4, Y3, Y9
	VPSRLVD Y6, Y3, Y3
	VPOR Y8, Y1, Y1
	VPOR Y9, Y3, Y3
	VPXOR Y0, Y1, Y1
	VPXOR Y2, Y3, Y3
	VPBROADCASTD 8(R11), Y4
	VPADDD Y1, Y0, Y0
	VPADDD Y3, Y2, Y2
	VPSUBD Y4, Y7, Y6
	VPSLLVD Y4, Y1, Y8
	VPSRLVD Y6, Y1, Y1
	VPSLLVD Y4, Y3, Y9
	VPSRLVD Y6, Y3, Y3
	VPOR Y8, Y1, Y1
	VPOR Y9, Y3, Y3
	VPXOR Y0, Y1, Y1
	VPXOR Y2, Y3, Y3
	VPBROADCASTD 12(R11), Y4
	VPADDD Y1, Y0, Y0
	VPADDD Y3, Y2, Y2
	VPSUBD Y4, Y7, Y6
	VPSLLVD Y4, Y1, Y8
	VPSRLVD Y6, Y1, Y1
	VPSLLVD Y4, Y3, Y9
	VPSRLVD Y6, Y3, Y3
	VPOR Y8, Y1, Y1
	VPOR Y9, Y3, Y3
	VPXOR Y0, Y1, Y1
	VPXOR Y2, Y3, Y3
	VPBROADCASTD 16(R11), Y4
	VPBROADCASTD 20(R11), Y5
	VPADDD Y4, Y0, Y0
	VPADDD Y4, Y2, Y2
	VPADDD Y5, Y1, Y1
	VPADDD Y5, Y3, Y3
	ADDQ $24, R11
	DECQ R12
	JNZ Yiter
	VMOVDQU Y0, (DI)(AX*1)
	VMOVDQU Y2, 32(DI)(AX*1)
	VMOVDQU Y1, (R9)(AX*1)
	VMOVDQU Y3, 32(R9)(AX*1)
	ADDQ $64, AX
	CMPQ AX, CX
	JL Yblock
Ydone:
	VZEROUPPER
	RET

// func threefryRoundsZ(y0, y1, x0, x1 *uint32, n int, p *tfParams)
//
// n is a multiple of 32; p.iters >= 1. Two blocks of 16 lanes run
// interleaved so that one block's add-rotate-xor chain hides the other's
// latency. Per iteration p.tab holds four rotation counts (at most 32)
// and the two key words (24 bytes).
TEXT ·threefryRoundsZ(SB), NOSPLIT, $0-48
	MOVQ y0+0(FP), DI
	MOVQ y1+8(FP), R9
	MOVQ x0+16(FP), SI
	MOVQ x1+24(FP), DX
	MOVQ n+32(FP), CX
	MOVQ p+40(FP), R8
	SHLQ $2, CX
	XORQ AX, AX
	TESTQ CX, CX
	JE Zdone
Zblock:
	VMOVDQU32 (SI)(AX*1), Z0
	VMOVDQU32 64(SI)(AX*1), Z2
	VMOVDQU32 (DX)(AX*1), Z1
	VMOVDQU32 64(DX)(AX*1), Z3
	LEAQ 8(R8), R11
	MOVQ 0(R8), R12
Ziter:
	VPBROADCASTD 0(R11), Z4
	VPADDD Z1, Z0, Z0
	VPADDD Z3, Z2, Z2
	VPROLVD Z4, Z1, Z1
	VPROLVD Z4, Z3, Z3
	VPXORD Z0, Z1, Z1
	VPXORD Z2, Z3, Z3
	VPBROADCASTD 4(R11), Z4
	VPADDD Z1, Z0, Z0
	VPADDD Z3, Z2, Z2
	VPROLVD Z4, Z1, Z1
	VPROLVD Z4, Z3, Z3
	VPXORD Z0, Z1, Z1
	VPXORD Z2, Z3, Z3
	VPBROADCASTD 8(R11), Z4
	VPADDD Z1, Z0, Z0
	VPADDD Z3, Z2, Z2
	VPROLVD Z4, Z1, Z1
	VPROLVD Z4, Z3, Z3
	VPXORD Z0, Z1, Z1
	VPXORD Z2, Z3, Z3
	VPBROADCASTD 12(R11), Z4
	VPADDD Z1, Z0, Z0
	VPADDD Z3, Z2, Z2
	VPROLVD Z4, Z1, Z1
	VPROLVD Z4, Z3, Z3
	VPXORD Z0, Z1, Z1
	VPXORD Z2, Z3, Z3
	VPBROADCASTD 16(R11), Z4
	VPBROADCASTD 20(R11), Z5
	VPADDD Z4, Z0, Z0
	VPADDD Z4, Z2, Z2
	VPADDD Z5, Z1, Z1
	VPADDD Z5, Z3, Z3
	ADDQ $24, R11
	DECQ R12
	JNZ Ziter
	VMOVDQU32 Z0, (DI)(AX*1)
	VMOVDQU32 Z2, 64(DI)(AX*1)
	VMOVDQU32 Z1, (R9)(AX*1)
	VMOVDQU32 Z3, 64(R9)(AX*1)
	ADDQ $128, AX
	CMPQ AX, CX
	JL Zblock
Zdone:
	VZEROUPPER
	RET
