//go:build amd64 && !purego

#include "textflag.h"

// func kern4of14x32BF16Asm(kp int, a, b []uint16, c []float32, ldc int, acc bool)
// c[i*ldc+j] (+)= sum_q sum_{e<2} a[2(14q+i)+e]*b[2(32q+j)+e], i < 4, j < 32:
// the first four rows of kern14x32BF16Asm's tile, for edge panels of 1-4
// rows (1024 rows = 73×14 + 2) that would otherwise run all 14. Every
// element is the same VDPBF16PS sequence from zero, then the same add of
// c, as in the 14-row kernel, so its bits do not depend on the kernel.
TEXT ·kern4of14x32BF16Asm(SB), NOSPLIT, $0-89
	MOVQ kp+0(FP), CX
	MOVQ a_base+8(FP), SI
	MOVQ b_base+32(FP), DI
	MOVQ c_base+56(FP), DX
	MOVQ ldc+80(FP), R8
	SHLQ $2, R8
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	TESTQ CX, CX
	JZ e4bdone
e4bloop:
	VMOVDQU32 (DI), Z28
	VMOVDQU32 64(DI), Z29
	VPBROADCASTD 0(SI), Z30
	BYTE $0x62; BYTE $0x92; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xc4 // VDPBF16PS Z28, Z30, Z0
	BYTE $0x62; BYTE $0x92; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xcd // VDPBF16PS Z29, Z30, Z1
	VPBROADCASTD 4(SI), Z31
	BYTE $0x62; BYTE $0x92; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xd4 // VDPBF16PS Z28, Z31, Z2
	BYTE $0x62; BYTE $0x92; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xdd // VDPBF16PS Z29, Z31, Z3
	VPBROADCASTD 8(SI), Z30
	BYTE $0x62; BYTE $0x92; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xe4 // VDPBF16PS Z28, Z30, Z4
	BYTE $0x62; BYTE $0x92; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xed // VDPBF16PS Z29, Z30, Z5
	VPBROADCASTD 12(SI), Z31
	BYTE $0x62; BYTE $0x92; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xf4 // VDPBF16PS Z28, Z31, Z6
	BYTE $0x62; BYTE $0x92; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xfd // VDPBF16PS Z29, Z31, Z7
	ADDQ $56, SI
	ADDQ $128, DI
	DECQ CX
	JNZ e4bloop
e4bdone:
	MOVBLZX acc+88(FP), AX
	TESTQ AX, AX
	JZ e4bstore
	MOVQ DX, R9
	VADDPS (R9), Z0, Z0
	VADDPS 64(R9), Z1, Z1
	ADDQ R8, R9
	VADDPS (R9), Z2, Z2
	VADDPS 64(R9), Z3, Z3
	ADDQ R8, R9
	VADDPS (R9), Z4, Z4
	VADDPS 64(R9), Z5, Z5
	ADDQ R8, R9
	VADDPS (R9), Z6, Z6
	VADDPS 64(R9), Z7, Z7
e4bstore:
	VMOVUPS Z0, (DX)
	VMOVUPS Z1, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z2, (DX)
	VMOVUPS Z3, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z4, (DX)
	VMOVUPS Z5, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z6, (DX)
	VMOVUPS Z7, 64(DX)
	VZEROUPPER
	RET
