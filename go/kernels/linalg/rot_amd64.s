//go:build amd64 && !purego

#include "textflag.h"

// func rotAVX2(x, y *float64, n int, c, s float64)
//
// Plane rotation of two rows: x, y := c·x − s·y, s·x + c·y, elementwise
// over n values, four at a time with fused multiply-adds.
TEXT ·rotAVX2(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSD c+24(FP), Y0
	VBROADCASTSD s+32(FP), Y1
loop8:
	CMPQ CX, $8
	JLT loop4
	VMOVUPD (DI), Y2
	VMOVUPD (SI), Y3
	VMOVUPD 32(DI), Y6
	VMOVUPD 32(SI), Y7
	VMULPD Y2, Y0, Y4
	VMULPD Y2, Y1, Y5
	VMULPD Y6, Y0, Y8
	VMULPD Y6, Y1, Y9
	VFNMADD231PD Y3, Y1, Y4
	VFMADD231PD Y3, Y0, Y5
	VFNMADD231PD Y7, Y1, Y8
	VFMADD231PD Y7, Y0, Y9
	VMOVUPD Y4, (DI)
	VMOVUPD Y5, (SI)
	VMOVUPD Y8, 32(DI)
	VMOVUPD Y9, 32(SI)
	ADDQ $64, DI
	ADDQ $64, SI
	SUBQ $8, CX
	JMP loop8
loop4:
	CMPQ CX, $4
	JLT tail
	VMOVUPD (DI), Y2
	VMOVUPD (SI), Y3
	VMULPD Y2, Y0, Y4
	VMULPD Y2, Y1, Y5
	VFNMADD231PD Y3, Y1, Y4
	VFMADD231PD Y3, Y0, Y5
	VMOVUPD Y4, (DI)
	VMOVUPD Y5, (SI)
	ADDQ $32, DI
	ADDQ $32, SI
	SUBQ $4, CX
tail:
	TESTQ CX, CX
	JLE done
	VMOVSD (DI), X2
	VMOVSD (SI), X3
	VMULSD X2, X0, X4
	VMULSD X2, X1, X5
	VFNMADD231SD X3, X1, X4
	VFMADD231SD X3, X0, X5
	VMOVSD X4, (DI)
	VMOVSD X5, (SI)
	ADDQ $8, DI
	ADDQ $8, SI
	DECQ CX
	JMP tail
done:
	VZEROUPPER
	RET

// func dot4AVX2(a *float64, lda int, v *float64, n int, y *[4]float64)
//
// Four dot products of the rows a, a+lda, a+2·lda, a+3·lda (n values
// each) with v, the vector loaded once for all four rows.
TEXT ·dot4AVX2(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), R8
	MOVQ lda+8(FP), AX
	SHLQ $3, AX
	LEAQ (R8)(AX*1), R9
	LEAQ (R9)(AX*1), R10
	LEAQ (R10)(AX*1), R11
	MOVQ v+16(FP), SI
	MOVQ n+24(FP), CX
	MOVQ y+32(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ BX, BX
dloop:
	LEAQ 4(BX), DX
	CMPQ DX, CX
	JGT dreduce
	VMOVUPD (SI)(BX*8), Y4
	VFMADD231PD (R8)(BX*8), Y4, Y0
	VFMADD231PD (R9)(BX*8), Y4, Y1
	VFMADD231PD (R10)(BX*8), Y4, Y2
	VFMADD231PD (R11)(BX*8), Y4, Y3
	MOVQ DX, BX
	JMP dloop
dreduce:
	VEXTRACTF128 $1, Y0, X5
	VADDPD X5, X0, X0
	VHADDPD X0, X0, X0
	VEXTRACTF128 $1, Y1, X5
	VADDPD X5, X1, X1
	VHADDPD X1, X1, X1
	VEXTRACTF128 $1, Y2, X5
	VADDPD X5, X2, X2
	VHADDPD X2, X2, X2
	VEXTRACTF128 $1, Y3, X5
	VADDPD X5, X3, X3
	VHADDPD X3, X3, X3
dtail:
	CMPQ BX, CX
	JGE ddone
	VMOVSD (SI)(BX*8), X4
	VFMADD231SD (R8)(BX*8), X4, X0
	VFMADD231SD (R9)(BX*8), X4, X1
	VFMADD231SD (R10)(BX*8), X4, X2
	VFMADD231SD (R11)(BX*8), X4, X3
	INCQ BX
	JMP dtail
ddone:
	VMOVSD X0, 0(DI)
	VMOVSD X1, 8(DI)
	VMOVSD X2, 16(DI)
	VMOVSD X3, 24(DI)
	VZEROUPPER
	RET

// func rotStrip32AVX512(rots *planeRot, nrot int, z *float64, ldz int)
//
// Applies nrot rotations (planeRot: row i, c, s; 24 bytes each) in order
// to a 32-column strip: rows i and i+1 at z + i·ldz and z + (i+1)·ldz
// (in float64s) become c·x − s·y and s·x + c·y. Consecutive rotations
// share a row, so each one waits for the last; the strip is wide enough
// (four ZMM registers a row) for that latency to hide behind independent columns.
TEXT ·rotStrip32AVX512(SB), NOSPLIT, $0-32
	MOVQ rots+0(FP), R8
	MOVQ nrot+8(FP), CX
	MOVQ z+16(FP), DI
	MOVQ ldz+24(FP), R9
	SHLQ $3, R9
	TESTQ CX, CX
	JLE rotStrip32AVX512done
rotStrip32AVX512loop:
	MOVQ 0(R8), AX
	IMULQ R9, AX
	LEAQ (DI)(AX*1), SI
	LEAQ (SI)(R9*1), DX
	VBROADCASTSD 8(R8), Z0
	VBROADCASTSD 16(R8), Z1
	VMOVUPD 0(SI), Z2
	VMOVUPD 64(SI), Z3
	VMOVUPD 128(SI), Z4
	VMOVUPD 192(SI), Z5
	VMOVUPD 0(DX), Z6
	VMOVUPD 64(DX), Z7
	VMOVUPD 128(DX), Z8
	VMOVUPD 192(DX), Z9
	VMULPD Z2, Z0, Z10
	VMULPD Z3, Z0, Z11
	VMULPD Z4, Z0, Z12
	VMULPD Z5, Z0, Z13
	VMULPD Z2, Z1, Z2
	VMULPD Z3, Z1, Z3
	VMULPD Z4, Z1, Z4
	VMULPD Z5, Z1, Z5
	VFNMADD231PD Z6, Z1, Z10
	VFNMADD231PD Z7, Z1, Z11
	VFNMADD231PD Z8, Z1, Z12
	VFNMADD231PD Z9, Z1, Z13
	VFMADD231PD Z6, Z0, Z2
	VFMADD231PD Z7, Z0, Z3
	VFMADD231PD Z8, Z0, Z4
	VFMADD231PD Z9, Z0, Z5
	VMOVUPD Z10, 0(SI)
	VMOVUPD Z11, 64(SI)
	VMOVUPD Z12, 128(SI)
	VMOVUPD Z13, 192(SI)
	VMOVUPD Z2, 0(DX)
	VMOVUPD Z3, 64(DX)
	VMOVUPD Z4, 128(DX)
	VMOVUPD Z5, 192(DX)
	ADDQ $24, R8
	DECQ CX
	JNZ rotStrip32AVX512loop
rotStrip32AVX512done:
	VZEROUPPER
	RET

// func rotStrip16AVX2(rots *planeRot, nrot int, z *float64, ldz int)
//
// Applies nrot rotations (planeRot: row i, c, s; 24 bytes each) in order
// to a 16-column strip: rows i and i+1 at z + i·ldz and z + (i+1)·ldz
// (in float64s) become c·x − s·y and s·x + c·y. Consecutive rotations
// share a row, so each one waits for the last; the strip is wide enough
// (four YMM registers a row) for that latency to hide behind independent columns.
TEXT ·rotStrip16AVX2(SB), NOSPLIT, $0-32
	MOVQ rots+0(FP), R8
	MOVQ nrot+8(FP), CX
	MOVQ z+16(FP), DI
	MOVQ ldz+24(FP), R9
	SHLQ $3, R9
	TESTQ CX, CX
	JLE rotStrip16AVX2done
rotStrip16AVX2loop:
	MOVQ 0(R8), AX
	IMULQ R9, AX
	LEAQ (DI)(AX*1), SI
	LEAQ (SI)(R9*1), DX
	VBROADCASTSD 8(R8), Y0
	VBROADCASTSD 16(R8), Y1
	VMOVUPD 0(SI), Y2
	VMOVUPD 32(SI), Y3
	VMOVUPD 64(SI), Y4
	VMOVUPD 96(SI), Y5
	VMOVUPD 0(DX), Y6
	VMOVUPD 32(DX), Y7
	VMOVUPD 64(DX), Y8
	VMOVUPD 96(DX), Y9
	VMULPD Y2, Y0, Y10
	VMULPD Y3, Y0, Y11
	VMULPD Y4, Y0, Y12
	VMULPD Y5, Y0, Y13
	VMULPD Y2, Y1, Y2
	VMULPD Y3, Y1, Y3
	VMULPD Y4, Y1, Y4
	VMULPD Y5, Y1, Y5
	VFNMADD231PD Y6, Y1, Y10
	VFNMADD231PD Y7, Y1, Y11
	VFNMADD231PD Y8, Y1, Y12
	VFNMADD231PD Y9, Y1, Y13
	VFMADD231PD Y6, Y0, Y2
	VFMADD231PD Y7, Y0, Y3
	VFMADD231PD Y8, Y0, Y4
	VFMADD231PD Y9, Y0, Y5
	VMOVUPD Y10, 0(SI)
	VMOVUPD Y11, 32(SI)
	VMOVUPD Y12, 64(SI)
	VMOVUPD Y13, 96(SI)
	VMOVUPD Y2, 0(DX)
	VMOVUPD Y3, 32(DX)
	VMOVUPD Y4, 64(DX)
	VMOVUPD Y5, 96(DX)
	ADDQ $24, R8
	DECQ CX
	JNZ rotStrip16AVX2loop
rotStrip16AVX2done:
	VZEROUPPER
	RET

// func rotStrip64F32AVX512(rots *planeRot, nrot int, z *float32, ldz int)
//
// rotStrip32AVX512 for float32 rows: a 64-column strip (four ZMM
// registers a row), c and s rounded to float32 once per rotation.
TEXT ·rotStrip64F32AVX512(SB), NOSPLIT, $0-32
	MOVQ rots+0(FP), R8
	MOVQ nrot+8(FP), CX
	MOVQ z+16(FP), DI
	MOVQ ldz+24(FP), R9
	SHLQ $2, R9
	TESTQ CX, CX
	JLE rotStrip64F32AVX512done
rotStrip64F32AVX512loop:
	MOVQ 0(R8), AX
	IMULQ R9, AX
	LEAQ (DI)(AX*1), SI
	LEAQ (SI)(R9*1), DX
	VCVTSD2SS 8(R8), X0, X0
	VCVTSD2SS 16(R8), X1, X1
	VBROADCASTSS X0, Z0
	VBROADCASTSS X1, Z1
	VMOVUPS 0(SI), Z2
	VMOVUPS 64(SI), Z3
	VMOVUPS 128(SI), Z4
	VMOVUPS 192(SI), Z5
	VMOVUPS 0(DX), Z6
	VMOVUPS 64(DX), Z7
	VMOVUPS 128(DX), Z8
	VMOVUPS 192(DX), Z9
	VMULPS Z2, Z0, Z10
	VMULPS Z3, Z0, Z11
	VMULPS Z4, Z0, Z12
	VMULPS Z5, Z0, Z13
	VMULPS Z2, Z1, Z2
	VMULPS Z3, Z1, Z3
	VMULPS Z4, Z1, Z4
	VMULPS Z5, Z1, Z5
	VFNMADD231PS Z6, Z1, Z10
	VFNMADD231PS Z7, Z1, Z11
	VFNMADD231PS Z8, Z1, Z12
	VFNMADD231PS Z9, Z1, Z13
	VFMADD231PS Z6, Z0, Z2
	VFMADD231PS Z7, Z0, Z3
	VFMADD231PS Z8, Z0, Z4
	VFMADD231PS Z9, Z0, Z5
	VMOVUPS Z10, 0(SI)
	VMOVUPS Z11, 64(SI)
	VMOVUPS Z12, 128(SI)
	VMOVUPS Z13, 192(SI)
	VMOVUPS Z2, 0(DX)
	VMOVUPS Z3, 64(DX)
	VMOVUPS Z4, 128(DX)
	VMOVUPS Z5, 192(DX)
	ADDQ $24, R8
	DECQ CX
	JNZ rotStrip64F32AVX512loop
rotStrip64F32AVX512done:
	VZEROUPPER
	RET

// func rotStrip32F32AVX2(rots *planeRot, nrot int, z *float32, ldz int)
//
// rotStrip16AVX2 for float32 rows: a 32-column strip (four YMM registers
// a row), c and s rounded to float32 once per rotation.
TEXT ·rotStrip32F32AVX2(SB), NOSPLIT, $0-32
	MOVQ rots+0(FP), R8
	MOVQ nrot+8(FP), CX
	MOVQ z+16(FP), DI
	MOVQ ldz+24(FP), R9
	SHLQ $2, R9
	TESTQ CX, CX
	JLE rotStrip32F32AVX2done
rotStrip32F32AVX2loop:
	MOVQ 0(R8), AX
	IMULQ R9, AX
	LEAQ (DI)(AX*1), SI
	LEAQ (SI)(R9*1), DX
	VCVTSD2SS 8(R8), X0, X0
	VCVTSD2SS 16(R8), X1, X1
	VBROADCASTSS X0, Y0
	VBROADCASTSS X1, Y1
	VMOVUPS 0(SI), Y2
	VMOVUPS 32(SI), Y3
	VMOVUPS 64(SI), Y4
	VMOVUPS 96(SI), Y5
	VMOVUPS 0(DX), Y6
	VMOVUPS 32(DX), Y7
	VMOVUPS 64(DX), Y8
	VMOVUPS 96(DX), Y9
	VMULPS Y2, Y0, Y10
	VMULPS Y3, Y0, Y11
	VMULPS Y4, Y0, Y12
	VMULPS Y5, Y0, Y13
	VMULPS Y2, Y1, Y2
	VMULPS Y3, Y1, Y3
	VMULPS Y4, Y1, Y4
	VMULPS Y5, Y1, Y5
	VFNMADD231PS Y6, Y1, Y10
	VFNMADD231PS Y7, Y1, Y11
	VFNMADD231PS Y8, Y1, Y12
	VFNMADD231PS Y9, Y1, Y13
	VFMADD231PS Y6, Y0, Y2
	VFMADD231PS Y7, Y0, Y3
	VFMADD231PS Y8, Y0, Y4
	VFMADD231PS Y9, Y0, Y5
	VMOVUPS Y10, 0(SI)
	VMOVUPS Y11, 32(SI)
	VMOVUPS Y12, 64(SI)
	VMOVUPS Y13, 96(SI)
	VMOVUPS Y2, 0(DX)
	VMOVUPS Y3, 32(DX)
	VMOVUPS Y4, 64(DX)
	VMOVUPS Y5, 96(DX)
	ADDQ $24, R8
	DECQ CX
	JNZ rotStrip32F32AVX2loop
rotStrip32F32AVX2done:
	VZEROUPPER
	RET

// func axpyF32AVX2(y, x *float32, n int, a float32)
//
// y += a·x over n float32s (n a multiple of 32), one fused multiply-add
// (one rounding) per element.
TEXT ·axpyF32AVX2(SB), NOSPLIT, $0-28
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS a+24(FP), Y0
	SHRQ $5, CX
	JZ axpyF32done
axpyF32loop:
	VMOVUPS 0(DI), Y1
	VMOVUPS 32(DI), Y2
	VMOVUPS 64(DI), Y3
	VMOVUPS 96(DI), Y4
	VFMADD231PS 0(SI), Y0, Y1
	VFMADD231PS 32(SI), Y0, Y2
	VFMADD231PS 64(SI), Y0, Y3
	VFMADD231PS 96(SI), Y0, Y4
	VMOVUPS Y1, 0(DI)
	VMOVUPS Y2, 32(DI)
	VMOVUPS Y3, 64(DI)
	VMOVUPS Y4, 96(DI)
	ADDQ $128, DI
	ADDQ $128, SI
	DECQ CX
	JNZ axpyF32loop
axpyF32done:
	VZEROUPPER
	RET
