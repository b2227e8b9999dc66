//go:build amd64 && !purego

#include "textflag.h"

// Row reductions along a contiguous run of float32: 64 lanes, lane j
// holding elements i ≡ j (mod 64) in order (AVX2: Y0-Y7, AVX-512: Z0-Z3),
// then folded in registers (lane j += lane j+32, j+16, j+8, j+4, j+2, j+1),
// so both vector widths and the Go loop give the same bits. n is a multiple
// of 64 and at least 64. Eight (four) independent chains keep enough loads
// in flight to stream from memory; the fold stays in registers (storing the
// lanes and reading them back one by one stalls store-to-load forwarding).

// func sumLanes32Y(s *float32, n int, tail *[64]float32) float32
// Lanes start at +0; tail (nil: none) is added to the lanes before the fold.
TEXT ·sumLanes32Y(SB), NOSPLIT, $0-28
	MOVQ s+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ tail+16(FP), DX
	SHRQ $6, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
sumY:
	VADDPS 0(SI), Y0, Y0
	VADDPS 32(SI), Y1, Y1
	VADDPS 64(SI), Y2, Y2
	VADDPS 96(SI), Y3, Y3
	VADDPS 128(SI), Y4, Y4
	VADDPS 160(SI), Y5, Y5
	VADDPS 192(SI), Y6, Y6
	VADDPS 224(SI), Y7, Y7
	ADDQ $256, SI
	DECQ CX
	JNZ sumY
	TESTQ DX, DX
	JZ foldY
	VADDPS 0(DX), Y0, Y0
	VADDPS 32(DX), Y1, Y1
	VADDPS 64(DX), Y2, Y2
	VADDPS 96(DX), Y3, Y3
	VADDPS 128(DX), Y4, Y4
	VADDPS 160(DX), Y5, Y5
	VADDPS 192(DX), Y6, Y6
	VADDPS 224(DX), Y7, Y7
foldY:
	VADDPS Y4, Y0, Y0 // j + j+32
	VADDPS Y5, Y1, Y1
	VADDPS Y6, Y2, Y2
	VADDPS Y7, Y3, Y3
	VADDPS Y2, Y0, Y0 // j + j+16
	VADDPS Y3, Y1, Y1
	VADDPS Y1, Y0, Y0 // j + j+8
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0 // j + j+4
	VMOVHLPS X0, X0, X1
	VADDPS X1, X0, X0 // j + j+2
	VMOVSHDUP X0, X1
	VADDSS X1, X0, X0 // j + j+1
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func sumLanes32Z(s *float32, n int, tail *[64]float32) float32
TEXT ·sumLanes32Z(SB), NOSPLIT, $0-28
	MOVQ s+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ tail+16(FP), DX
	SHRQ $6, CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
sumZ:
	VADDPS 0(SI), Z0, Z0
	VADDPS 64(SI), Z1, Z1
	VADDPS 128(SI), Z2, Z2
	VADDPS 192(SI), Z3, Z3
	ADDQ $256, SI
	DECQ CX
	JNZ sumZ
	TESTQ DX, DX
	JZ foldZ
	VADDPS 0(DX), Z0, Z0
	VADDPS 64(DX), Z1, Z1
	VADDPS 128(DX), Z2, Z2
	VADDPS 192(DX), Z3, Z3
foldZ:
	VADDPS Z2, Z0, Z0 // j + j+32
	VADDPS Z3, Z1, Z1
	VADDPS Z1, Z0, Z0 // j + j+16
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS Y1, Y0, Y0 // j + j+8
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0 // j + j+4
	VMOVHLPS X0, X0, X1
	VADDPS X1, X0, X0 // j + j+2
	VMOVSHDUP X0, X1
	VADDSS X1, X0, X0 // j + j+1
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func maxLanes32Y(s *float32, n int) (m float32, nan bool)
// m is a maximum of s[:n]; nan reports whether any element is NaN (then m
// is meaningless). VMAXPS returns the new element when either is NaN, so
// a lane is NaN right after a step exactly when that step's element is.
// Among equal values a lane keeps one of them: only ±0 can differ, and the
// caller re-checks a zero result.
TEXT ·maxLanes32Y(SB), NOSPLIT, $0-21
	MOVQ s+0(FP), SI
	MOVQ n+8(FP), CX
	SHRQ $6, CX
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VMOVUPS 128(SI), Y4
	VMOVUPS 160(SI), Y5
	VMOVUPS 192(SI), Y6
	VMOVUPS 224(SI), Y7
	VXORPS Y12, Y12, Y12
	JMP maxYcheck
maxY:
	VMAXPS 0(SI), Y0, Y0
	VMAXPS 32(SI), Y1, Y1
	VMAXPS 64(SI), Y2, Y2
	VMAXPS 96(SI), Y3, Y3
	VMAXPS 128(SI), Y4, Y4
	VMAXPS 160(SI), Y5, Y5
	VMAXPS 192(SI), Y6, Y6
	VMAXPS 224(SI), Y7, Y7
maxYcheck:
	VCMPPS $3, Y0, Y0, Y8
	VCMPPS $3, Y1, Y1, Y9
	VCMPPS $3, Y2, Y2, Y10
	VCMPPS $3, Y3, Y3, Y11
	VORPS Y8, Y9, Y8
	VORPS Y10, Y11, Y10
	VORPS Y8, Y12, Y12
	VORPS Y10, Y12, Y12
	VCMPPS $3, Y4, Y4, Y8
	VCMPPS $3, Y5, Y5, Y9
	VCMPPS $3, Y6, Y6, Y10
	VCMPPS $3, Y7, Y7, Y11
	VORPS Y8, Y9, Y8
	VORPS Y10, Y11, Y10
	VORPS Y8, Y12, Y12
	VORPS Y10, Y12, Y12
	ADDQ $256, SI
	DECQ CX
	JNZ maxY
	VMAXPS Y4, Y0, Y0
	VMAXPS Y5, Y1, Y1
	VMAXPS Y6, Y2, Y2
	VMAXPS Y7, Y3, Y3
	VMAXPS Y2, Y0, Y0
	VMAXPS Y3, Y1, Y1
	VMAXPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS X1, X0, X0
	VMOVHLPS X0, X0, X1
	VMAXPS X1, X0, X0
	VMOVSHDUP X0, X1
	VMAXSS X1, X0, X0
	VMOVSS X0, m+16(FP)
	VMOVMSKPS Y12, AX
	TESTL AX, AX
	SETNE nan+20(FP)
	VZEROUPPER
	RET

// func maxLanes32Z(s *float32, n int) (m float32, nan bool)
TEXT ·maxLanes32Z(SB), NOSPLIT, $0-21
	MOVQ s+0(FP), SI
	MOVQ n+8(FP), CX
	SHRQ $6, CX
	VMOVUPS 0(SI), Z0
	VMOVUPS 64(SI), Z1
	VMOVUPS 128(SI), Z2
	VMOVUPS 192(SI), Z3
	KXORW K1, K1, K1
	JMP maxZcheck
maxZ:
	VMAXPS 0(SI), Z0, Z0
	VMAXPS 64(SI), Z1, Z1
	VMAXPS 128(SI), Z2, Z2
	VMAXPS 192(SI), Z3, Z3
maxZcheck:
	VCMPPS $3, Z0, Z0, K2
	VCMPPS $3, Z1, Z1, K3
	VCMPPS $3, Z2, Z2, K4
	VCMPPS $3, Z3, Z3, K5
	KORW K2, K3, K2
	KORW K4, K5, K4
	KORW K2, K1, K1
	KORW K4, K1, K1
	ADDQ $256, SI
	DECQ CX
	JNZ maxZ
	VMAXPS Z2, Z0, Z0
	VMAXPS Z3, Z1, Z1
	VMAXPS Z1, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VMAXPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS X1, X0, X0
	VMOVHLPS X0, X0, X1
	VMAXPS X1, X0, X0
	VMOVSHDUP X0, X1
	VMAXSS X1, X0, X0
	VMOVSS X0, m+16(FP)
	KMOVW K1, AX
	TESTL AX, AX
	SETNE nan+20(FP)
	VZEROUPPER
	RET
