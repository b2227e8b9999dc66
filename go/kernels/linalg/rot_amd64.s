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
