//go:build amd64 && !purego

#include "textflag.h"

// f32 → bf16 narrowing, bit-identical to f32ToBF16: integer round to
// nearest even on the bit pattern (u + 0x7fff + bit 16), NaNs kept as
// quiet NaNs (u | 1<<22). VCVTNEPS2BF16 is not used: it flushes
// subnormals to zero.

// narrowOddWords picks the high halves (odd words) of two ZMMs of dwords.
DATA narrowOddWords<>+0(SB)/8, $0x0007000500030001
DATA narrowOddWords<>+8(SB)/8, $0x000f000d000b0009
DATA narrowOddWords<>+16(SB)/8, $0x0017001500130011
DATA narrowOddWords<>+24(SB)/8, $0x001f001d001b0019
DATA narrowOddWords<>+32(SB)/8, $0x0027002500230021
DATA narrowOddWords<>+40(SB)/8, $0x002f002d002b0029
DATA narrowOddWords<>+48(SB)/8, $0x0037003500330031
DATA narrowOddWords<>+56(SB)/8, $0x003f003d003b0039
GLOBL narrowOddWords<>(SB), RODATA|NOPTR, $64

// ROUND512 sets r to the dwords of z rounded, bf16 in their high halves
// (Z31 1, Z30 0x7fff, Z29 1<<22; k clobbered).
#define ROUND512(z, r, k) \
	VPSRLD $16, z, r \
	VPANDD Z31, r, r \
	VPADDD Z30, r, r \
	VPADDD z, r, r \
	VFPCLASSPSZ $0x81, z, k \
	VPORD Z29, z, k, r

// func narrowBF16AVX512(dst *uint16, src *float32, n int)
TEXT ·narrowBF16AVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL $1, AX
	VPBROADCASTD AX, Z31
	MOVL $0x7fff, AX
	VPBROADCASTD AX, Z30
	MOVL $0x400000, AX
	VPBROADCASTD AX, Z29
	VMOVDQU64 narrowOddWords<>(SB), Z28
	SUBQ $32, CX
	JLT tail
loop32:
	VMOVDQU32 (SI), Z0
	VMOVDQU32 64(SI), Z1
	ROUND512(Z0, Z2, K1)
	ROUND512(Z1, Z3, K2)
	VPERMT2W Z3, Z28, Z2
	VMOVDQU16 Z2, (DI)
	ADDQ $128, SI
	ADDQ $64, DI
	SUBQ $32, CX
	JGE loop32
tail:
	ADDQ $32, CX
	JLE done
tail16:
	// Lanes min(CX, 16): masked loads read no further than n.
	MOVL $0xffff, AX
	CMPQ CX, $16
	JGE full
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
full:
	KMOVW AX, K3
	VMOVDQU32.Z (SI), K3, Z0
	ROUND512(Z0, Z2, K1)
	VPSRLD $16, Z2, Z2
	VPMOVDW Z2, K3, (DI)
	ADDQ $64, SI
	ADDQ $32, DI
	SUBQ $16, CX
	JGT tail16
done:
	VZEROUPPER
	RET

// ROUND256 is ROUND512 for AVX2, the bf16 moved to the low halves
// (Y15 1, Y14 0x7fff, Y13 1<<22; n a scratch).
#define ROUND256(z, r, n) \
	VPSRLD $16, z, r \
	VPAND Y15, r, r \
	VPADDD Y14, r, r \
	VPADDD z, r, r \
	VCMPPS $3, z, z, n \
	VPOR Y13, z, z \
	VPBLENDVB n, z, r, r \
	VPSRLD $16, r, r

// func narrowBF16AVX2(dst *uint16, src *float32, n int)
// n is a multiple of 16.
TEXT ·narrowBF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL $1, AX
	MOVQ AX, X15
	VPBROADCASTD X15, Y15
	MOVL $0x7fff, AX
	MOVQ AX, X14
	VPBROADCASTD X14, Y14
	MOVL $0x400000, AX
	MOVQ AX, X13
	VPBROADCASTD X13, Y13
	SHRQ $4, CX
	JZ done2
loop16:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	ROUND256(Y0, Y2, Y4)
	ROUND256(Y1, Y3, Y5)
	// Packing works within 128-bit lanes: restore the element order.
	VPACKUSDW Y3, Y2, Y2
	VPERMQ $0xd8, Y2, Y2
	VMOVDQU Y2, (DI)
	ADDQ $64, SI
	ADDQ $32, DI
	DECQ CX
	JNZ loop16
done2:
	VZEROUPPER
	RET
