//go:build amd64 && !purego

// Written by hand: one loop per op and vector set, each the IEEE operation
// that the Go loops compute through float64 with one final rounding
// (unary32.go says why the bits agree).

#include "textflag.h"

// func sqrt32Y(d, a *float32, n int); n a multiple of 16
TEXT ·sqrt32Y(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $2, CX
	XORQ AX, AX
sqrt32Y_loop:
	CMPQ AX, CX
	JGE sqrt32Y_done
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	VSQRTPS Y0, Y0
	VSQRTPS Y1, Y1
	VMOVDQU Y0, (DI)(AX*1)
	VMOVDQU Y1, 32(DI)(AX*1)
	ADDQ $64, AX
	JMP sqrt32Y_loop
sqrt32Y_done:
	VZEROUPPER
	RET

// func floor32Y(d, a *float32, n int); n a multiple of 16
TEXT ·floor32Y(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $2, CX
	XORQ AX, AX
floor32Y_loop:
	CMPQ AX, CX
	JGE floor32Y_done
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	VROUNDPS $9, Y0, Y0
	VROUNDPS $9, Y1, Y1
	VMOVDQU Y0, (DI)(AX*1)
	VMOVDQU Y1, 32(DI)(AX*1)
	ADDQ $64, AX
	JMP floor32Y_loop
floor32Y_done:
	VZEROUPPER
	RET

// func ceil32Y(d, a *float32, n int); n a multiple of 16
TEXT ·ceil32Y(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $2, CX
	XORQ AX, AX
ceil32Y_loop:
	CMPQ AX, CX
	JGE ceil32Y_done
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	VROUNDPS $10, Y0, Y0
	VROUNDPS $10, Y1, Y1
	VMOVDQU Y0, (DI)(AX*1)
	VMOVDQU Y1, 32(DI)(AX*1)
	ADDQ $64, AX
	JMP ceil32Y_loop
ceil32Y_done:
	VZEROUPPER
	RET

// func rne32Y(d, a *float32, n int); n a multiple of 16
TEXT ·rne32Y(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $2, CX
	XORQ AX, AX
rne32Y_loop:
	CMPQ AX, CX
	JGE rne32Y_done
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	VROUNDPS $8, Y0, Y0
	VROUNDPS $8, Y1, Y1
	VMOVDQU Y0, (DI)(AX*1)
	VMOVDQU Y1, 32(DI)(AX*1)
	ADDQ $64, AX
	JMP rne32Y_loop
rne32Y_done:
	VZEROUPPER
	RET

// func cvti32Y(d, a *float32, n int); n a multiple of 16
TEXT ·cvti32Y(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $2, CX
	XORQ AX, AX
cvti32Y_loop:
	CMPQ AX, CX
	JGE cvti32Y_done
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	VCVTDQ2PS Y0, Y0
	VCVTDQ2PS Y1, Y1
	VMOVDQU Y0, (DI)(AX*1)
	VMOVDQU Y1, 32(DI)(AX*1)
	ADDQ $64, AX
	JMP cvti32Y_loop
cvti32Y_done:
	VZEROUPPER
	RET

// func sqrt32Z(d, a *float32, n int); n a multiple of 32
TEXT ·sqrt32Z(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $2, CX
	XORQ AX, AX
sqrt32Z_loop:
	CMPQ AX, CX
	JGE sqrt32Z_done
	VMOVDQU32 (SI)(AX*1), Z0
	VMOVDQU32 64(SI)(AX*1), Z1
	VSQRTPS Z0, Z0
	VSQRTPS Z1, Z1
	VMOVDQU32 Z0, (DI)(AX*1)
	VMOVDQU32 Z1, 64(DI)(AX*1)
	ADDQ $128, AX
	JMP sqrt32Z_loop
sqrt32Z_done:
	VZEROUPPER
	RET

// func floor32Z(d, a *float32, n int); n a multiple of 32
TEXT ·floor32Z(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $2, CX
	XORQ AX, AX
floor32Z_loop:
	CMPQ AX, CX
	JGE floor32Z_done
	VMOVDQU32 (SI)(AX*1), Z0
	VMOVDQU32 64(SI)(AX*1), Z1
	VRNDSCALEPS $9, Z0, Z0
	VRNDSCALEPS $9, Z1, Z1
	VMOVDQU32 Z0, (DI)(AX*1)
	VMOVDQU32 Z1, 64(DI)(AX*1)
	ADDQ $128, AX
	JMP floor32Z_loop
floor32Z_done:
	VZEROUPPER
	RET

// func ceil32Z(d, a *float32, n int); n a multiple of 32
TEXT ·ceil32Z(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $2, CX
	XORQ AX, AX
ceil32Z_loop:
	CMPQ AX, CX
	JGE ceil32Z_done
	VMOVDQU32 (SI)(AX*1), Z0
	VMOVDQU32 64(SI)(AX*1), Z1
	VRNDSCALEPS $10, Z0, Z0
	VRNDSCALEPS $10, Z1, Z1
	VMOVDQU32 Z0, (DI)(AX*1)
	VMOVDQU32 Z1, 64(DI)(AX*1)
	ADDQ $128, AX
	JMP ceil32Z_loop
ceil32Z_done:
	VZEROUPPER
	RET

// func rne32Z(d, a *float32, n int); n a multiple of 32
TEXT ·rne32Z(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $2, CX
	XORQ AX, AX
rne32Z_loop:
	CMPQ AX, CX
	JGE rne32Z_done
	VMOVDQU32 (SI)(AX*1), Z0
	VMOVDQU32 64(SI)(AX*1), Z1
	VRNDSCALEPS $8, Z0, Z0
	VRNDSCALEPS $8, Z1, Z1
	VMOVDQU32 Z0, (DI)(AX*1)
	VMOVDQU32 Z1, 64(DI)(AX*1)
	ADDQ $128, AX
	JMP rne32Z_loop
rne32Z_done:
	VZEROUPPER
	RET

// func cvti32Z(d, a *float32, n int); n a multiple of 32
TEXT ·cvti32Z(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $2, CX
	XORQ AX, AX
cvti32Z_loop:
	CMPQ AX, CX
	JGE cvti32Z_done
	VMOVDQU32 (SI)(AX*1), Z0
	VMOVDQU32 64(SI)(AX*1), Z1
	VCVTDQ2PS Z0, Z0
	VCVTDQ2PS Z1, Z1
	VMOVDQU32 Z0, (DI)(AX*1)
	VMOVDQU32 Z1, 64(DI)(AX*1)
	ADDQ $128, AX
	JMP cvti32Z_loop
cvti32Z_done:
	VZEROUPPER
	RET
