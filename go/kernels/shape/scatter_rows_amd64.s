//go:build amd64 && !purego

#include "textflag.h"

// Row adds of a scatter, one call per block of rows: row j adds the row
// at element src+soff[j] into the row at element dst+doff[j], in order of
// j. Each row is full vectors and a masked tail (mask K1 from tail). The
// destination row 8 rows ahead is prefetched (its first 256 bytes): the
// offsets are known a block ahead, so its cache misses overlap the adds.
// dst's element is the first source of each add (x + u, as the scalar
// loop computes it, NaN payloads included).

// func addRowsF32Z(dst, src *byte, doff, soff *int64, n, full, tail int)
TEXT ·addRowsF32Z(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ doff+16(FP), R8
	MOVQ soff+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ full+40(FP), R11
	MOVQ tail+48(FP), AX
	KMOVW AX, K1
	XORQ R12, R12

f32row:
	CMPQ R12, CX
	JGE f32done
	LEAQ 8(R12), AX
	CMPQ AX, CX
	JGE f32nopf
	MOVQ (R8)(AX*8), AX
	LEAQ (DI)(AX*4), AX
	PREFETCHT0 (AX)
	PREFETCHT0 64(AX)
	PREFETCHT0 128(AX)
	PREFETCHT0 192(AX)

f32nopf:
	MOVQ (R8)(R12*8), AX
	LEAQ (DI)(AX*4), AX
	MOVQ (R9)(R12*8), BX
	LEAQ (SI)(BX*4), BX
	MOVQ R11, R13
	TESTQ R13, R13
	JZ f32tail

f32vec:
	VMOVUPS (AX), Z0
	VADDPS (BX), Z0, Z0
	VMOVUPS Z0, (AX)
	ADDQ $64, AX
	ADDQ $64, BX
	DECQ R13
	JNZ f32vec

f32tail:
	KORTESTW K1, K1
	JZ f32next
	VMOVUPS.Z (AX), K1, Z0
	VMOVUPS.Z (BX), K1, Z1
	VADDPS Z1, Z0, Z0
	VMOVUPS Z0, K1, (AX)

f32next:
	INCQ R12
	JMP f32row

f32done:
	VZEROUPPER
	RET

// func addRowsF64Z(dst, src *byte, doff, soff *int64, n, full, tail int)
TEXT ·addRowsF64Z(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ doff+16(FP), R8
	MOVQ soff+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ full+40(FP), R11
	MOVQ tail+48(FP), AX
	KMOVW AX, K1
	XORQ R12, R12

f64row:
	CMPQ R12, CX
	JGE f64done
	LEAQ 8(R12), AX
	CMPQ AX, CX
	JGE f64nopf
	MOVQ (R8)(AX*8), AX
	LEAQ (DI)(AX*8), AX
	PREFETCHT0 (AX)
	PREFETCHT0 64(AX)
	PREFETCHT0 128(AX)
	PREFETCHT0 192(AX)

f64nopf:
	MOVQ (R8)(R12*8), AX
	LEAQ (DI)(AX*8), AX
	MOVQ (R9)(R12*8), BX
	LEAQ (SI)(BX*8), BX
	MOVQ R11, R13
	TESTQ R13, R13
	JZ f64tail

f64vec:
	VMOVUPD (AX), Z0
	VADDPD (BX), Z0, Z0
	VMOVUPD Z0, (AX)
	ADDQ $64, AX
	ADDQ $64, BX
	DECQ R13
	JNZ f64vec

f64tail:
	KORTESTW K1, K1
	JZ f64next
	VMOVUPD.Z (AX), K1, Z0
	VMOVUPD.Z (BX), K1, Z1
	VADDPD Z1, Z0, Z0
	VMOVUPD Z0, K1, (AX)

f64next:
	INCQ R12
	JMP f64row

f64done:
	VZEROUPPER
	RET
