//go:build amd64 && !purego

#include "textflag.h"

// Constants of tanhRational (tanh32.go) as float32 bit patterns.
DATA tanhk<>+0(SB)/4, $0x40fcf84f  // clamp
DATA tanhk<>+4(SB)/4, $0xc0fcf84f  // -clamp
DATA tanhk<>+8(SB)/4, $0xa59f25c0  // a13
DATA tanhk<>+12(SB)/4, $0x2a61337e // a11
DATA tanhk<>+16(SB)/4, $0xaebd37ff // a9
DATA tanhk<>+20(SB)/4, $0x335c0041 // a7
DATA tanhk<>+24(SB)/4, $0x3779434a // a5
DATA tanhk<>+28(SB)/4, $0x3a270ded // a3
DATA tanhk<>+32(SB)/4, $0x3ba059dc // a1
DATA tanhk<>+36(SB)/4, $0x35a0d3d8 // b6
DATA tanhk<>+40(SB)/4, $0x38f895d6 // b4
DATA tanhk<>+44(SB)/4, $0x3b14aa05 // b2
DATA tanhk<>+48(SB)/4, $0x3ba059dd // b0
DATA tanhk<>+52(SB)/4, $0x39d1b717 // tiny
DATA tanhk<>+56(SB)/4, $0x7fffffff // abs mask
GLOBL tanhk<>(SB), RODATA|NOPTR, $60

// func tanh32x8Asm(dst, src []float32)
// Same operations, same order as tanhRational; no FMA.
TEXT ·tanh32x8Asm(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	SHRQ $3, CX
	JZ done
	LEAQ tanhk<>(SB), AX
	VBROADCASTSS 0(AX), Y15  // clamp
	VBROADCASTSS 4(AX), Y14  // -clamp
	VBROADCASTSS 52(AX), Y13 // tiny
	VBROADCASTSS 56(AX), Y12 // abs mask
loop:
	VMOVUPS (SI), Y0                // x
	VMAXPS Y14, Y0, Y1              // max(x, -clamp)
	VMINPS Y15, Y1, Y1              // c = min(…, clamp)
	VMULPS Y1, Y1, Y2               // x2
	VBROADCASTSS 8(AX), Y3
	VMULPS Y3, Y2, Y3               // x2*a13
	VBROADCASTSS 12(AX), Y4
	VADDPS Y4, Y3, Y3               // + a11
	VMULPS Y3, Y2, Y3
	VBROADCASTSS 16(AX), Y4
	VADDPS Y4, Y3, Y3               // + a9
	VMULPS Y3, Y2, Y3
	VBROADCASTSS 20(AX), Y4
	VADDPS Y4, Y3, Y3               // + a7
	VMULPS Y3, Y2, Y3
	VBROADCASTSS 24(AX), Y4
	VADDPS Y4, Y3, Y3               // + a5
	VMULPS Y3, Y2, Y3
	VBROADCASTSS 28(AX), Y4
	VADDPS Y4, Y3, Y3               // + a3
	VMULPS Y3, Y2, Y3
	VBROADCASTSS 32(AX), Y4
	VADDPS Y4, Y3, Y3               // + a1
	VMULPS Y3, Y1, Y3               // p = c*p
	VBROADCASTSS 36(AX), Y5
	VMULPS Y5, Y2, Y5               // x2*b6
	VBROADCASTSS 40(AX), Y6
	VADDPS Y6, Y5, Y5               // + b4
	VMULPS Y5, Y2, Y5
	VBROADCASTSS 44(AX), Y6
	VADDPS Y6, Y5, Y5               // + b2
	VMULPS Y5, Y2, Y5
	VBROADCASTSS 48(AX), Y6
	VADDPS Y6, Y5, Y5               // q = … + b0
	VDIVPS Y5, Y3, Y7               // p/q
	VANDPS Y12, Y0, Y8              // |x|
	VCMPPS $1, Y13, Y8, Y9          // |x| < tiny
	VBLENDVPS Y9, Y0, Y7, Y7        // tiny: x
	VCMPPS $3, Y0, Y0, Y10          // x is NaN
	VBLENDVPS Y10, Y0, Y7, Y7       // NaN: x
	VMOVUPS Y7, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ loop
	VZEROUPPER
done:
	RET


// func tanh32x16Asm(dst, src []float32)
// AVX-512, 16 lanes: same operations, same order as tanhRational; no FMA.
TEXT ·tanh32x16Asm(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	SHRQ $4, CX
	JZ done
	LEAQ tanhk<>(SB), AX
	VBROADCASTSS 0(AX), Z15  // clamp
	VBROADCASTSS 4(AX), Z14  // -clamp
	VBROADCASTSS 52(AX), Z13 // tiny
	VBROADCASTSS 56(AX), Z12 // abs mask
loop:
	VMOVUPS (SI), Z0                // x
	VMAXPS Z14, Z0, Z1              // max(x, -clamp)
	VMINPS Z15, Z1, Z1              // c = min(…, clamp)
	VMULPS Z1, Z1, Z2               // x2
	VBROADCASTSS 8(AX), Z3
	VMULPS Z3, Z2, Z3               // x2*a13
	VBROADCASTSS 12(AX), Z4
	VADDPS Z4, Z3, Z3               // + a11
	VMULPS Z3, Z2, Z3
	VBROADCASTSS 16(AX), Z4
	VADDPS Z4, Z3, Z3               // + a9
	VMULPS Z3, Z2, Z3
	VBROADCASTSS 20(AX), Z4
	VADDPS Z4, Z3, Z3               // + a7
	VMULPS Z3, Z2, Z3
	VBROADCASTSS 24(AX), Z4
	VADDPS Z4, Z3, Z3               // + a5
	VMULPS Z3, Z2, Z3
	VBROADCASTSS 28(AX), Z4
	VADDPS Z4, Z3, Z3               // + a3
	VMULPS Z3, Z2, Z3
	VBROADCASTSS 32(AX), Z4
	VADDPS Z4, Z3, Z3               // + a1
	VMULPS Z3, Z1, Z3               // p = c*p
	VBROADCASTSS 36(AX), Z5
	VMULPS Z5, Z2, Z5               // x2*b6
	VBROADCASTSS 40(AX), Z6
	VADDPS Z6, Z5, Z5               // + b4
	VMULPS Z5, Z2, Z5
	VBROADCASTSS 44(AX), Z6
	VADDPS Z6, Z5, Z5               // + b2
	VMULPS Z5, Z2, Z5
	VBROADCASTSS 48(AX), Z6
	VADDPS Z6, Z5, Z5               // q = … + b0
	VDIVPS Z5, Z3, Z7               // p/q
	VANDPS Z12, Z0, Z8              // |x|
	VCMPPS $1, Z13, Z8, K1          // |x| < tiny
	VMOVAPS Z0, K1, Z7        // tiny: x
	VCMPPS $3, Z0, Z0, K1          // x is NaN
	VMOVAPS Z0, K1, Z7       // NaN: x
	VMOVUPS Z7, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ loop
	VZEROUPPER
done:
	RET
