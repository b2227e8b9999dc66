//go:build amd64 && !purego

#include "textflag.h"

// func take16Z(dst *uint32, table *[16]uint32, ix *int32, n, maxIdx int)
// n is a multiple of 16.
TEXT ·take16Z(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ table+8(FP), SI
	MOVQ ix+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ maxIdx+32(FP), AX
	VMOVDQU32 (SI), Z0
	VPBROADCASTD AX, Z1
	VPXORD Z2, Z2, Z2
	SHRQ $4, CX
	JZ zdone

zloop:
	VMOVDQU32 (DX), Z3
	VPMAXSD Z2, Z3, Z3
	VPMINSD Z1, Z3, Z3
	VPERMD Z0, Z3, Z4
	VMOVDQU32 Z4, (DI)
	ADDQ $64, DX
	ADDQ $64, DI
	DECQ CX
	JNZ zloop

zdone:
	VZEROUPPER
	RET

// func take16Y(dst *uint32, table *[16]uint32, ix *int32, n, maxIdx int)
// n is a multiple of 8. Entries 0-7 and 8-15 are permuted separately and
// blended on index > 7.
TEXT ·take16Y(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ table+8(FP), SI
	MOVQ ix+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ maxIdx+32(FP), AX
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y5
	MOVQ AX, X1
	VPBROADCASTD X1, Y1
	VPXOR Y2, Y2, Y2
	MOVQ $7, BX
	MOVQ BX, X6
	VPBROADCASTD X6, Y6
	SHRQ $3, CX
	JZ ydone

yloop:
	VMOVDQU (DX), Y3
	VPMAXSD Y2, Y3, Y3
	VPMINSD Y1, Y3, Y3
	VPERMD Y0, Y3, Y4
	VPERMD Y5, Y3, Y7
	VPCMPGTD Y6, Y3, Y8
	VPBLENDVB Y8, Y7, Y4, Y4
	VMOVDQU Y4, (DI)
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ yloop

ydone:
	VZEROUPPER
	RET
