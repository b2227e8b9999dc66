//go:build amd64 && !purego

#include "textflag.h"

// func copyRowsMasked(dst, src unsafe.Pointer, ld, ldd, k int, m0, m1 uint16)
//
// Copies k rows of up to 128 bytes: row p is read at src + p*ld and
// written at dst + p*ldd, as two 64-byte halves whose 32-bit lanes are
// selected by the masks m0 and m1 (masked-off lanes are neither read nor
// written, so a row may end anywhere in its 128 bytes). This is packing's
// row copy (a B panel row, or the 14 rows of a transposed A at one k)
// without a runtime.memmove call per row.
TEXT ·copyRowsMasked(SB), NOSPLIT, $0-44
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), AX
	MOVQ ldd+24(FP), BX
	MOVQ k+32(FP), CX
	MOVWLZX m0+40(FP), DX
	KMOVW DX, K1
	MOVWLZX m1+42(FP), DX
	KMOVW DX, K2
	TESTQ CX, CX
	JLE done
loop:
	VMOVDQU32 (SI), K1, Z0
	VMOVDQU32 64(SI), K2, Z1
	VMOVDQU32 Z0, K1, (DI)
	VMOVDQU32 Z1, K2, 64(DI)
	ADDQ AX, SI
	ADDQ BX, DI
	DECQ CX
	JNZ loop
done:
	VZEROUPPER
	RET
