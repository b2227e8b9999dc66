//go:build amd64 && !purego

#include "textflag.h"

// func addAccF32Asm(dst, src []float32): dst[i] += src[i] for the first
// len(dst) &^ 31 elements, 32 per step.
TEXT ·addAccF32Asm(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ dst_len+8(FP), CX
	SHRQ $5, CX
	JZ done32
loop32:
	VMOVUPS 0(DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VADDPS 0(SI), Y0, Y0
	VADDPS 32(SI), Y1, Y1
	VADDPS 64(SI), Y2, Y2
	VADDPS 96(SI), Y3, Y3
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	DECQ CX
	JNZ loop32
	VZEROUPPER
done32:
	RET

// func addAccF64Asm(dst, src []float64): the same for float64, 16 per step.
TEXT ·addAccF64Asm(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ dst_len+8(FP), CX
	SHRQ $4, CX
	JZ done64
loop64:
	VMOVUPD 0(DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	VADDPD 0(SI), Y0, Y0
	VADDPD 32(SI), Y1, Y1
	VADDPD 64(SI), Y2, Y2
	VADDPD 96(SI), Y3, Y3
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	DECQ CX
	JNZ loop64
	VZEROUPPER
done64:
	RET

// func addAccF32Z(dst, src []float32): AVX-512, len(dst) &^ 63 elements,
// 64 per step.
TEXT ·addAccF32Z(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ dst_len+8(FP), CX
	SHRQ $6, CX
	JZ done32z
loop32z:
	VMOVUPS 0(DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
	VADDPS 0(SI), Z0, Z0
	VADDPS 64(SI), Z1, Z1
	VADDPS 128(SI), Z2, Z2
	VADDPS 192(SI), Z3, Z3
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	ADDQ $256, SI
	ADDQ $256, DI
	DECQ CX
	JNZ loop32z
	VZEROUPPER
done32z:
	RET

// func addAccF64Z(dst, src []float64): AVX-512, len(dst) &^ 31 elements,
// 32 per step.
TEXT ·addAccF64Z(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ dst_len+8(FP), CX
	SHRQ $5, CX
	JZ done64z
loop64z:
	VMOVUPD 0(DI), Z0
	VMOVUPD 64(DI), Z1
	VMOVUPD 128(DI), Z2
	VMOVUPD 192(DI), Z3
	VADDPD 0(SI), Z0, Z0
	VADDPD 64(SI), Z1, Z1
	VADDPD 128(SI), Z2, Z2
	VADDPD 192(SI), Z3, Z3
	VMOVUPD Z0, 0(DI)
	VMOVUPD Z1, 64(DI)
	VMOVUPD Z2, 128(DI)
	VMOVUPD Z3, 192(DI)
	ADDQ $256, SI
	ADDQ $256, DI
	DECQ CX
	JNZ loop64z
	VZEROUPPER
done64z:
	RET

// func addRowsF32Z(dst, src *float32, n, stride, rows int, set bool): for
// each block of 128 columns of dst (n a multiple of 128), dst += src row 0,
// row 1, …, row rows-1 (rows >= 1, stride in elements) in that order, the
// block held in Z0-Z7 across the rows; with set, dst = row 0 + row 1 + …
// instead (dst is not read).
TEXT ·addRowsF32Z(SB), NOSPLIT, $0-41
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ stride+24(FP), DX
	MOVQ rows+32(FP), BX
	MOVBLZX set+40(FP), AX
	SHLQ $2, DX
	SHRQ $7, CX
	JZ doneRows
blockRows:
	MOVQ SI, R8
	MOVQ BX, R9
	TESTQ AX, AX
	JNZ setZ
	VMOVUPS 0(DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
	VMOVUPS 256(DI), Z4
	VMOVUPS 320(DI), Z5
	VMOVUPS 384(DI), Z6
	VMOVUPS 448(DI), Z7
	JMP rowRows
setZ:
	VMOVUPS 0(SI), Z0
	VMOVUPS 64(SI), Z1
	VMOVUPS 128(SI), Z2
	VMOVUPS 192(SI), Z3
	VMOVUPS 256(SI), Z4
	VMOVUPS 320(SI), Z5
	VMOVUPS 384(SI), Z6
	VMOVUPS 448(SI), Z7
	ADDQ DX, R8
	DECQ R9
	JZ storeZ
rowRows:
	VADDPS 0(R8), Z0, Z0
	VADDPS 64(R8), Z1, Z1
	VADDPS 128(R8), Z2, Z2
	VADDPS 192(R8), Z3, Z3
	VADDPS 256(R8), Z4, Z4
	VADDPS 320(R8), Z5, Z5
	VADDPS 384(R8), Z6, Z6
	VADDPS 448(R8), Z7, Z7
	ADDQ DX, R8
	DECQ R9
	JNZ rowRows
storeZ:
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, 256(DI)
	VMOVUPS Z5, 320(DI)
	VMOVUPS Z6, 384(DI)
	VMOVUPS Z7, 448(DI)
	ADDQ $512, DI
	ADDQ $512, SI
	DECQ CX
	JNZ blockRows
	VZEROUPPER
doneRows:
	RET

// func addRowsF32Y(dst, src *float32, n, stride, rows int, set bool): addRowsF32Z
// with AVX2, blocks of 64 columns (n a multiple of 64) in Y0-Y7.
TEXT ·addRowsF32Y(SB), NOSPLIT, $0-41
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ stride+24(FP), DX
	MOVQ rows+32(FP), BX
	MOVBLZX set+40(FP), AX
	SHLQ $2, DX
	SHRQ $6, CX
	JZ doneRowsY
blockRowsY:
	MOVQ SI, R8
	MOVQ BX, R9
	TESTQ AX, AX
	JNZ setY
	VMOVUPS 0(DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS 128(DI), Y4
	VMOVUPS 160(DI), Y5
	VMOVUPS 192(DI), Y6
	VMOVUPS 224(DI), Y7
	JMP rowRowsY
setY:
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VMOVUPS 128(SI), Y4
	VMOVUPS 160(SI), Y5
	VMOVUPS 192(SI), Y6
	VMOVUPS 224(SI), Y7
	ADDQ DX, R8
	DECQ R9
	JZ storeY
rowRowsY:
	VADDPS 0(R8), Y0, Y0
	VADDPS 32(R8), Y1, Y1
	VADDPS 64(R8), Y2, Y2
	VADDPS 96(R8), Y3, Y3
	VADDPS 128(R8), Y4, Y4
	VADDPS 160(R8), Y5, Y5
	VADDPS 192(R8), Y6, Y6
	VADDPS 224(R8), Y7, Y7
	ADDQ DX, R8
	DECQ R9
	JNZ rowRowsY
storeY:
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	ADDQ $256, DI
	ADDQ $256, SI
	DECQ CX
	JNZ blockRowsY
	VZEROUPPER
doneRowsY:
	RET
