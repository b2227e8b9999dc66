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

// func copyBlockMasked(dst, src unsafe.Pointer, ld, ldd, n, k, sstride, dstride int, m0, m1 uint16)
//
// copyRowsMasked over k source rows at once: source row p (at src +
// p*sstride) holds n chunks ld bytes apart, written to dst + p*dstride +
// j*ldd. Each chunk also prefetches the same bytes four rows ahead, since
// consecutive rows are far apart (a row-major B's k rows, a transposed
// A's) and the hardware prefetcher does not run ahead across them.
TEXT ·copyBlockMasked(SB), NOSPLIT, $0-68
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), AX
	MOVQ ldd+24(FP), BX
	MOVQ k+40(FP), DX
	MOVQ sstride+48(FP), R8
	MOVQ dstride+56(FP), R9
	MOVQ R8, R10
	SHLQ $2, R10
	MOVWLZX m0+64(FP), R11
	KMOVW R11, K1
	MOVWLZX m1+66(FP), R11
	KMOVW R11, K2
	TESTQ DX, DX
	JLE bdone
brow:
	MOVQ n+32(FP), CX
	MOVQ SI, R11
	MOVQ DI, R12
	TESTQ CX, CX
	JLE bnext
bchunk:
	PREFETCHT0 (R11)(R10*1)
	PREFETCHT0 64(R11)(R10*1)
	VMOVDQU32 (R11), K1, Z0
	VMOVDQU32 64(R11), K2, Z1
	VMOVDQU32 Z0, K1, (R12)
	VMOVDQU32 Z1, K2, 64(R12)
	ADDQ AX, R11
	ADDQ BX, R12
	DECQ CX
	JNZ bchunk
bnext:
	ADDQ R8, SI
	ADDQ R9, DI
	DECQ DX
	JNZ brow
bdone:
	VZEROUPPER
	RET
