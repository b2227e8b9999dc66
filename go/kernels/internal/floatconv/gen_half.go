//go:build ignore

// gen_half writes half_amd64.s: the AVX-512 (16 lanes) and AVX2 (8 lanes)
// loops of the slice conversions between f16/bf16 and f32 (halfslice.go),
// bit for bit the scalar functions of half.go:
//
//   - f16 -> f32: VCVTPH2PS, except that the instruction quiets signaling
//     NaNs and F16ToF32 keeps them: in NaN lanes bit 22 (the f32 quiet bit)
//     is set back to the half's bit 9, as widening the payload gives it.
//   - f32 -> f16: VCVTPS2PH with rounding to nearest even (imm8 0), whose
//     NaNs (quiet, top payload bits) are F32ToF16's.
//   - bf16 -> f32: a 16-bit shift.
//   - f32 -> bf16: F32ToBF16's integer rounding (add 0x7FFF plus the lowest
//     kept bit, shift) with its NaN rule. VCVTNEPS2BF16 is not used: it
//     flushes subnormal inputs and results to zero.
//
// Run with `go generate` (see halfslice.go).
package main

import (
	"fmt"

	"github.com/gojax/gojax/go/kernels/internal/asmgen"
)

var f = asmgen.NewAsm("gen_half.go")

// width is one instruction set: register prefix, lanes, and the register
// holding the low half (XMM/YMM) of a vector of halves.
type width struct {
	suffix string // function name suffix: x16 (AVX-512) or x8 (AVX2)
	r, h   string // f32 vector register prefix; register prefix of 16-bit lanes
	lanes  int
}

var widths = []width{{"x16", "Z", "Y", 16}, {"x8", "Y", "X", 8}}

func (w width) reg(p string, i int) string { return fmt.Sprintf("%s%d", p, i) }

// bcast loads the 32-bit constant c into every lane of vector register i.
func (w width) bcast(c uint32, i int) {
	f.I("MOVL $0x%X, AX", c)
	if w.r == "Z" {
		f.I("VPBROADCASTD AX, %s", w.reg("Z", i))
		return
	}
	f.I("MOVD AX, X%d", i)
	f.I("VPBROADCASTD X%d, Y%d", i, i)
}

// loop writes the function's frame, the count and pointer setup, and the
// loop around body (which reads from SI and writes to DI); srcSize and
// dstSize are the bytes of one source and one result element.
func (w width) loop(name, sig string, srcSize, dstSize int, setup, body func()) {
	f.Raw(fmt.Sprintf("\n// func %s%s%s\n", name, w.suffix, sig))
	f.Raw(fmt.Sprintf("TEXT ·%s%s(SB), NOSPLIT, $0-48\n", name, w.suffix))
	f.I("MOVQ dst_base+0(FP), DI")
	f.I("MOVQ src_base+24(FP), SI")
	f.I("MOVQ src_len+32(FP), CX")
	f.I("SHRQ $%d, CX", map[int]int{16: 4, 8: 3}[w.lanes])
	f.I("JZ %s%s_done", name, w.suffix)
	setup()
	f.Label(fmt.Sprintf("%s%s_loop", name, w.suffix))
	body()
	f.I("ADDQ $%d, SI", w.lanes*srcSize)
	f.I("ADDQ $%d, DI", w.lanes*dstSize)
	f.I("DECQ CX")
	f.I("JNZ %s%s_loop", name, w.suffix)
	f.I("VZEROUPPER")
	f.Label(fmt.Sprintf("%s%s_done", name, w.suffix))
	f.I("RET")
}

func f16ToF32(w width) {
	w.loop("f16ToF32", "(dst []float32, src []uint16)", 2, 4, func() {
		w.bcast(0x7FFF, 10) // magnitude mask
		w.bcast(0x7C00, 11) // infinity: magnitudes above it are NaN
		w.bcast(1<<22, 12)  // the f32 quiet bit
	}, func() {
		r, h := w.r, w.h
		f.I("VMOVDQU (SI), %s0", h)
		f.I("VCVTPH2PS %s0, %s1", h, r)
		f.I("VPMOVZXWD %s0, %s2", h, r)
		f.I("VPSLLD $13, %s2, %s4", r, r) // the half's bit 9 at bit 22
		if r == "Z" {
			f.I("VPANDD Z10, Z2, Z3")
			f.I("VPCMPUD $6, Z11, Z3, K1") // K1: magnitude > 0x7C00 (NaN)
			// In NaN lanes, bit 22 from Z4, the rest from Z1: a = Z1, b = Z4, c = Z12, c ? b : a.
			f.I("VPTERNLOGD $0xD8, Z12, Z4, K1, Z1")
			f.I("VMOVDQU32 Z1, (DI)")
			return
		}
		f.I("VPAND Y10, Y2, Y3")
		f.I("VPCMPGTD Y11, Y3, Y3") // NaN lanes all ones (magnitudes are below 2^31)
		f.I("VPAND Y12, Y3, Y3")    // M: bit 22 of NaN lanes
		f.I("VPAND Y3, Y4, Y4")
		f.I("VPANDN Y1, Y3, Y1") // Y1 &^ M
		f.I("VPOR Y4, Y1, Y1")
		f.I("VMOVDQU Y1, (DI)")
	})
}

func f32ToF16(w width) {
	w.loop("f32ToF16", "(dst []uint16, src []float32)", 4, 2, func() {}, func() {
		f.I("VMOVUPS (SI), %s0", w.r)
		f.I("VCVTPS2PH $0, %s0, %s1", w.r, w.h)
		f.I("VMOVDQU %s1, (DI)", w.h)
	})
}

func bf16ToF32(w width) {
	w.loop("bf16ToF32", "(dst []float32, src []uint16)", 2, 4, func() {}, func() {
		f.I("VPMOVZXWD (SI), %s0", w.r)
		f.I("VPSLLD $16, %s0, %s0", w.r, w.r)
		if w.r == "Z" {
			f.I("VMOVDQU32 Z0, (DI)")
		} else {
			f.I("VMOVDQU Y0, (DI)")
		}
	})
}

func f32ToBF16(w width) {
	w.loop("f32ToBF16", "(dst []uint16, src []float32)", 4, 2, func() {
		w.bcast(1, 10)
		w.bcast(0x7FFF, 11)
		w.bcast(0x7FFFFFFF, 12)
		w.bcast(0x7F800000, 13)
		w.bcast(0x40, 14) // the bf16 quiet bit
	}, func() {
		r := w.r
		and, or := "VPAND", "VPOR"
		if r == "Z" {
			and, or = "VPANDD", "VPORD"
		}
		f.I("VMOVDQU%s (SI), %s0", map[string]string{"Z": "32", "Y": ""}[r], r)
		f.I("VPSRLD $16, %s0, %s1", r, r)      // b>>16
		f.I("%s %s10, %s1, %s2", and, r, r, r) // its lowest bit
		f.I("VPADDD %s11, %s0, %s3", r, r, r)
		f.I("VPADDD %s2, %s3, %s3", r, r, r)
		f.I("VPSRLD $16, %s3, %s3", r, r) // rounded to nearest even
		f.I("%s %s12, %s0, %s4", and, r, r, r)
		if r == "Z" {
			f.I("VPCMPUD $6, Z13, Z4, K1") // K1: NaN lanes
			f.I("VPORD Z14, Z1, K1, Z3")   // NaN: b>>16 | 0x40
			f.I("VPMOVDW Z3, (DI)")
			return
		}
		f.I("VPCMPGTD Y13, Y4, Y4") // NaN lanes all ones
		f.I("%s Y14, Y1, Y5", or)
		f.I("VPBLENDVB Y4, Y5, Y3, Y3") // NaN lanes from Y5
		// Eight 32-bit lanes, each below 2^16, packed to 16 bits in order.
		f.I("VEXTRACTI128 $1, Y3, X6")
		f.I("VPACKUSDW X6, X3, X3")
		f.I("VMOVDQU X3, (DI)")
	})
}

func main() {
	for _, w := range widths {
		f16ToF32(w)
		f32ToF16(w)
		bf16ToF32(w)
		f32ToBF16(w)
	}
	f.Write("half_amd64.s")
}
