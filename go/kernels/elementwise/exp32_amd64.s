//go:build amd64 && !purego

#include "textflag.h"

// Constants of expPoly (exp32.go) as float32 bit patterns, then 127.
DATA expk<>+0(SB)/4, $0xc2dc0000  // lo
DATA expk<>+4(SB)/4, $0x42c80000  // hi
DATA expk<>+8(SB)/4, $0x3fb8aa3b  // log2e
DATA expk<>+12(SB)/4, $0x3f318000 // c1
DATA expk<>+16(SB)/4, $0xb95e8083 // c2
DATA expk<>+20(SB)/4, $0x39506967 // p0
DATA expk<>+24(SB)/4, $0x3ab743ce // p1
DATA expk<>+28(SB)/4, $0x3c088908 // p2
DATA expk<>+32(SB)/4, $0x3d2aa9c1 // p3
DATA expk<>+36(SB)/4, $0x3e2aaaaa // p4
DATA expk<>+40(SB)/4, $0x3f000000 // p5
DATA expk<>+44(SB)/4, $0x3f800000 // 1
DATA expk<>+48(SB)/4, $127        // exponent bias (int32)
GLOBL expk<>(SB), RODATA|NOPTR, $52

// func exp32x8Asm(dst, src []float32)
// Same operations, same order as expPoly; no FMA.
TEXT ·exp32x8Asm(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	SHRQ $3, CX
	JZ done
	LEAQ expk<>(SB), AX
	VBROADCASTSS 0(AX), Y15  // lo
	VBROADCASTSS 4(AX), Y14  // hi
	VBROADCASTSS 8(AX), Y13  // log2e
	VBROADCASTSS 44(AX), Y12 // 1
	VPBROADCASTD 48(AX), Y11 // 127
loop:
	VMOVUPS (SI), Y0             // x
	VMAXPS Y15, Y0, Y1
	VMINPS Y14, Y1, Y1           // c
	VMULPS Y13, Y1, Y2           // c*log2e
	VROUNDPS $0, Y2, Y2          // n, nearest even
	VBROADCASTSS 12(AX), Y3
	VMULPS Y3, Y2, Y3            // n*c1
	VSUBPS Y3, Y1, Y4            // r = c - n*c1
	VBROADCASTSS 16(AX), Y3
	VMULPS Y3, Y2, Y3            // n*c2
	VSUBPS Y3, Y4, Y4            // r -= n*c2
	VMULPS Y4, Y4, Y5            // z = r*r
	VBROADCASTSS 20(AX), Y6
	VMULPS Y4, Y6, Y6            // p0*r
	VBROADCASTSS 24(AX), Y7
	VADDPS Y7, Y6, Y6            // + p1
	VMULPS Y4, Y6, Y6
	VBROADCASTSS 28(AX), Y7
	VADDPS Y7, Y6, Y6            // + p2
	VMULPS Y4, Y6, Y6
	VBROADCASTSS 32(AX), Y7
	VADDPS Y7, Y6, Y6            // + p3
	VMULPS Y4, Y6, Y6
	VBROADCASTSS 36(AX), Y7
	VADDPS Y7, Y6, Y6            // + p4
	VMULPS Y4, Y6, Y6
	VBROADCASTSS 40(AX), Y7
	VADDPS Y7, Y6, Y6            // + p5
	VMULPS Y5, Y6, Y6            // p*z
	VADDPS Y4, Y6, Y6            // + r
	VADDPS Y12, Y6, Y6           // y = … + 1
	VCVTPS2DQ Y2, Y8             // n as int32 (exact)
	VPSRAD $1, Y8, Y9            // h = n >> 1
	VPSUBD Y9, Y8, Y10           // k = n - h
	VPADDD Y11, Y9, Y9
	VPSLLD $23, Y9, Y9           // s1 = 2^h
	VPADDD Y11, Y10, Y10
	VPSLLD $23, Y10, Y10         // s2 = 2^k
	VMULPS Y9, Y6, Y6
	VMULPS Y10, Y6, Y6           // y*s1*s2
	VCMPPS $3, Y0, Y0, Y7        // NaN
	VBLENDVPS Y7, Y0, Y6, Y6
	VMOVUPS Y6, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ loop
	VZEROUPPER
done:
	RET


// func exp32x16Asm(dst, src []float32)
// AVX-512, 16 lanes: same operations, same order as expPoly; no FMA.
TEXT ·exp32x16Asm(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	SHRQ $4, CX
	JZ done
	LEAQ expk<>(SB), AX
	VBROADCASTSS 0(AX), Z15  // lo
	VBROADCASTSS 4(AX), Z14  // hi
	VBROADCASTSS 8(AX), Z13  // log2e
	VBROADCASTSS 44(AX), Z12 // 1
	VPBROADCASTD 48(AX), Z11 // 127
loop:
	VMOVUPS (SI), Z0             // x
	VMAXPS Z15, Z0, Z1
	VMINPS Z14, Z1, Z1           // c
	VMULPS Z13, Z1, Z2           // c*log2e
	VRNDSCALEPS $0, Z2, Z2          // n, nearest even
	VBROADCASTSS 12(AX), Z3
	VMULPS Z3, Z2, Z3            // n*c1
	VSUBPS Z3, Z1, Z4            // r = c - n*c1
	VBROADCASTSS 16(AX), Z3
	VMULPS Z3, Z2, Z3            // n*c2
	VSUBPS Z3, Z4, Z4            // r -= n*c2
	VMULPS Z4, Z4, Z5            // z = r*r
	VBROADCASTSS 20(AX), Z6
	VMULPS Z4, Z6, Z6            // p0*r
	VBROADCASTSS 24(AX), Z7
	VADDPS Z7, Z6, Z6            // + p1
	VMULPS Z4, Z6, Z6
	VBROADCASTSS 28(AX), Z7
	VADDPS Z7, Z6, Z6            // + p2
	VMULPS Z4, Z6, Z6
	VBROADCASTSS 32(AX), Z7
	VADDPS Z7, Z6, Z6            // + p3
	VMULPS Z4, Z6, Z6
	VBROADCASTSS 36(AX), Z7
	VADDPS Z7, Z6, Z6            // + p4
	VMULPS Z4, Z6, Z6
	VBROADCASTSS 40(AX), Z7
	VADDPS Z7, Z6, Z6            // + p5
	VMULPS Z5, Z6, Z6            // p*z
	VADDPS Z4, Z6, Z6            // + r
	VADDPS Z12, Z6, Z6           // y = … + 1
	VCVTPS2DQ Z2, Z8             // n as int32 (exact)
	VPSRAD $1, Z8, Z9            // h = n >> 1
	VPSUBD Z9, Z8, Z10           // k = n - h
	VPADDD Z11, Z9, Z9
	VPSLLD $23, Z9, Z9           // s1 = 2^h
	VPADDD Z11, Z10, Z10
	VPSLLD $23, Z10, Z10         // s2 = 2^k
	VMULPS Z9, Z6, Z6
	VMULPS Z10, Z6, Z6           // y*s1*s2
	VCMPPS $3, Z0, Z0, K1        // NaN
	VMOVAPS Z0, K1, Z6
	VMOVUPS Z6, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ loop
	VZEROUPPER
done:
	RET
