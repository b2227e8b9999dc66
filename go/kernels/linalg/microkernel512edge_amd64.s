//go:build amd64 && !purego

#include "textflag.h"

// func kern4of14x32F32Asm(kc int, a, b, c []float32, ldc int, acc bool)
// c[i*ldc+j] (+)= sum_p a[14p+i]*b[32p+j], i < 4, j < 32: the first four
// rows of kern14x32F32Asm's tile, for edge panels of 1-4 rows (256 rows =
// 18×14 + 4) that would otherwise run all 14. Every element is the same
// sequence of FMAs from zero, then the same add of c, as in the 14-row
// kernel, so an element's bits do not depend on which kernel computed it.
TEXT ·kern4of14x32F32Asm(SB), NOSPLIT, $0-89
	MOVQ kc+0(FP), CX
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
	JZ e4done
e4loop:
	VMOVUPS (DI), Z28
	VMOVUPS 64(DI), Z29
	VBROADCASTSS 0(SI), Z30
	VFMADD231PS Z28, Z30, Z0
	VFMADD231PS Z29, Z30, Z1
	VBROADCASTSS 4(SI), Z31
	VFMADD231PS Z28, Z31, Z2
	VFMADD231PS Z29, Z31, Z3
	VBROADCASTSS 8(SI), Z30
	VFMADD231PS Z28, Z30, Z4
	VFMADD231PS Z29, Z30, Z5
	VBROADCASTSS 12(SI), Z31
	VFMADD231PS Z28, Z31, Z6
	VFMADD231PS Z29, Z31, Z7
	ADDQ $56, SI
	ADDQ $128, DI
	DECQ CX
	JNZ e4loop
e4done:
	MOVBLZX acc+88(FP), AX
	TESTQ AX, AX
	JZ e4store
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
e4store:
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

// func kern4of14x16F64Asm(kc int, a, b, c []float64, ldc int, acc bool)
// c[i*ldc+j] (+)= sum_p a[14p+i]*b[16p+j], i < 4, j < 16: the first four
// rows of kern14x16F64Asm's tile, for edge panels of 1-4 rows (256 rows =
// 18×14 + 4) that would otherwise run all 14. Every element is the same
// sequence of FMAs from zero, then the same add of c, as in the 14-row
// kernel, so an element's bits do not depend on which kernel computed it.
TEXT ·kern4of14x16F64Asm(SB), NOSPLIT, $0-89
	MOVQ kc+0(FP), CX
	MOVQ a_base+8(FP), SI
	MOVQ b_base+32(FP), DI
	MOVQ c_base+56(FP), DX
	MOVQ ldc+80(FP), R8
	SHLQ $3, R8
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	TESTQ CX, CX
	JZ e4ddone
e4dloop:
	VMOVUPD (DI), Z28
	VMOVUPD 64(DI), Z29
	VBROADCASTSD 0(SI), Z30
	VFMADD231PD Z28, Z30, Z0
	VFMADD231PD Z29, Z30, Z1
	VBROADCASTSD 8(SI), Z31
	VFMADD231PD Z28, Z31, Z2
	VFMADD231PD Z29, Z31, Z3
	VBROADCASTSD 16(SI), Z30
	VFMADD231PD Z28, Z30, Z4
	VFMADD231PD Z29, Z30, Z5
	VBROADCASTSD 24(SI), Z31
	VFMADD231PD Z28, Z31, Z6
	VFMADD231PD Z29, Z31, Z7
	ADDQ $112, SI
	ADDQ $128, DI
	DECQ CX
	JNZ e4dloop
e4ddone:
	MOVBLZX acc+88(FP), AX
	TESTQ AX, AX
	JZ e4dstore
	MOVQ DX, R9
	VADDPD (R9), Z0, Z0
	VADDPD 64(R9), Z1, Z1
	ADDQ R8, R9
	VADDPD (R9), Z2, Z2
	VADDPD 64(R9), Z3, Z3
	ADDQ R8, R9
	VADDPD (R9), Z4, Z4
	VADDPD 64(R9), Z5, Z5
	ADDQ R8, R9
	VADDPD (R9), Z6, Z6
	VADDPD 64(R9), Z7, Z7
e4dstore:
	VMOVUPD Z0, (DX)
	VMOVUPD Z1, 64(DX)
	ADDQ R8, DX
	VMOVUPD Z2, (DX)
	VMOVUPD Z3, 64(DX)
	ADDQ R8, DX
	VMOVUPD Z4, (DX)
	VMOVUPD Z5, 64(DX)
	ADDQ R8, DX
	VMOVUPD Z6, (DX)
	VMOVUPD Z7, 64(DX)
	VZEROUPPER
	RET
