//go:build amd64 && !purego

#include "textflag.h"

// Row reductions along a contiguous run of float32: 32 lanes, lane j
// holding elements i ≡ j (mod 32) in order (AVX2: Y0-Y3, AVX-512: Z0-Z1),
// so both vector widths and the Go loop give the same bits. n is a
// multiple of 32 and at least 32.

// func sumLanes32Y(p *[32]float32, s *float32, n int)
// p[j] = 0 + s[j] + s[j+32] + … (in that order).
TEXT ·sumLanes32Y(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $5, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
sumY:
	VADDPS 0(SI), Y0, Y0
	VADDPS 32(SI), Y1, Y1
	VADDPS 64(SI), Y2, Y2
	VADDPS 96(SI), Y3, Y3
	ADDQ $128, SI
	DECQ CX
	JNZ sumY
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VZEROUPPER
	RET

// func sumLanes32Z(p *[32]float32, s *float32, n int)
TEXT ·sumLanes32Z(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $5, CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
sumZ:
	VADDPS 0(SI), Z0, Z0
	VADDPS 64(SI), Z1, Z1
	ADDQ $128, SI
	DECQ CX
	JNZ sumZ
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VZEROUPPER
	RET

// func maxLanes32Y(p *[32]float32, s *float32, n int) (nan bool)
// p[j] = a maximum of s[j], s[j+32], …; nan reports whether any element is
// NaN (then p is meaningless). Among equal values the lane keeps one of
// them: only ±0 can differ, and the caller re-checks a zero result.
TEXT ·maxLanes32Y(SB), NOSPLIT, $0-25
	MOVQ p+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $5, CX
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VCMPPS $3, Y0, Y0, Y4
	VCMPPS $3, Y1, Y1, Y5
	VCMPPS $3, Y2, Y2, Y6
	VCMPPS $3, Y3, Y3, Y7
	ADDQ $128, SI
	DECQ CX
	JZ maxYend
maxY:
	VMOVUPS 0(SI), Y8
	VMOVUPS 32(SI), Y9
	VMOVUPS 64(SI), Y10
	VMOVUPS 96(SI), Y11
	VMAXPS Y8, Y0, Y0
	VMAXPS Y9, Y1, Y1
	VMAXPS Y10, Y2, Y2
	VMAXPS Y11, Y3, Y3
	VCMPPS $3, Y8, Y8, Y8
	VCMPPS $3, Y9, Y9, Y9
	VCMPPS $3, Y10, Y10, Y10
	VCMPPS $3, Y11, Y11, Y11
	VORPS Y8, Y4, Y4
	VORPS Y9, Y5, Y5
	VORPS Y10, Y6, Y6
	VORPS Y11, Y7, Y7
	ADDQ $128, SI
	DECQ CX
	JNZ maxY
maxYend:
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VORPS Y5, Y4, Y4
	VORPS Y7, Y6, Y6
	VORPS Y6, Y4, Y4
	VMOVMSKPS Y4, AX
	TESTL AX, AX
	SETNE ret+24(FP)
	VZEROUPPER
	RET

// func maxLanes32Z(p *[32]float32, s *float32, n int) (nan bool)
TEXT ·maxLanes32Z(SB), NOSPLIT, $0-25
	MOVQ p+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $5, CX
	VMOVUPS 0(SI), Z0
	VMOVUPS 64(SI), Z1
	VCMPPS $3, Z0, Z0, K1
	VCMPPS $3, Z1, Z1, K2
	KORW K2, K1, K1
	ADDQ $128, SI
	DECQ CX
	JZ maxZend
maxZ:
	VMOVUPS 0(SI), Z8
	VMOVUPS 64(SI), Z9
	VMAXPS Z8, Z0, Z0
	VMAXPS Z9, Z1, Z1
	VCMPPS $3, Z8, Z8, K2
	VCMPPS $3, Z9, Z9, K3
	KORW K2, K1, K1
	KORW K3, K1, K1
	ADDQ $128, SI
	DECQ CX
	JNZ maxZ
maxZend:
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	KMOVW K1, AX
	TESTL AX, AX
	SETNE ret+24(FP)
	VZEROUPPER
	RET
