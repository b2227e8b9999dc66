//go:build ignore

// gen_rowvec writes rowvec_amd64.s: the AVX2 and AVX-512 row sums and
// maxima over a contiguous float32 run, 64 lanes in eight YMM or four ZMM
// registers folded the same way for both widths. Run with `go generate`
// (see rowvec_amd64.go).
package main

import (
	"strconv"

	"github.com/gojax/gojax/go/kernels/internal/asmgen"
)

var f = asmgen.NewAsm("gen_rowvec.go")

// vec is a vector width: register class, registers holding the 64 lanes,
// bytes per register and the instruction zeroing one.
type vec struct {
	r     string
	n     int
	bytes int
	xor   string
}

var (
	ymm = vec{"Y", 8, 32, "VXORPS"}
	zmm = vec{"Z", 4, 64, "VPXORD"}
)

func (v vec) reg(i int) string { return asmgen.Reg(v.r, i) }

// each writes format(offset, base, reg i, reg i) for each lane register.
func (v vec) each(format, base string) {
	for i := 0; i < v.n; i++ {
		f.I(format, i*v.bytes, base, v.reg(i), v.reg(i))
	}
}

// fold combines the 64 lanes into X0's lane 0 with op (VADDPS or VMAXPS)
// and its scalar form: lane j with lane j+32, then j+16, …, j+1. With
// notes, each step's first instruction says which.
func fold(v vec, op, scalar string, notes bool) {
	note := func(d int) string {
		if !notes {
			return ""
		}
		return " // j + j+" + strconv.Itoa(d)
	}
	lanes := v.bytes / 4
	for half := v.n / 2; half > 0; half /= 2 {
		for i := 0; i < half; i++ {
			n := ""
			if i == 0 {
				n = note(half * lanes)
			}
			f.I("%s %s, %s, %s%s", op, v.reg(half+i), v.reg(i), v.reg(i), n)
		}
	}
	if v.r == "Z" {
		f.I("VEXTRACTF64X4 $1, Z0, Y1")
		f.I("%s Y1, Y0, Y0%s", op, note(8))
	}
	f.I("VEXTRACTF128 $1, Y0, X1")
	f.I("%s X1, X0, X0%s", op, note(4))
	f.I("VMOVHLPS X0, X0, X1")
	f.I("%s X1, X0, X0%s", op, note(2))
	f.I("VMOVSHDUP X0, X1")
	f.I("%s X1, X0, X0%s", scalar, note(1))
}

func sumLanes(head string, v vec) {
	f.Raw(head)
	f.I("MOVQ s+0(FP), SI")
	f.I("MOVQ n+8(FP), CX")
	f.I("MOVQ tail+16(FP), DX")
	f.I("SHRQ $6, CX")
	for i := 0; i < v.n; i++ {
		f.I("%s %s, %s, %s", v.xor, v.reg(i), v.reg(i), v.reg(i))
	}
	f.Label("sum" + v.r)
	v.each("VADDPS %d(%s), %s, %s", "SI")
	f.I("ADDQ $256, SI")
	f.I("DECQ CX")
	f.I("JNZ sum%s", v.r)
	f.I("TESTQ DX, DX")
	f.I("JZ fold%s", v.r)
	v.each("VADDPS %d(%s), %s, %s", "DX")
	f.Label("fold" + v.r)
	fold(v, "VADDPS", "VADDSS", true)
	f.I("VMOVSS X0, ret+24(FP)")
	f.I("VZEROUPPER")
	f.I("RET")
}

// nanCheck ORs into acc whether any lane register holds a NaN, comparing
// four at a time into t (or: the OR instruction of t's class).
func nanCheck(v vec, t [4]string, or, acc string) {
	for g := 0; g < v.n; g += 4 {
		for i := 0; i < 4; i++ {
			f.I("VCMPPS $3, %s, %s, %s", v.reg(g+i), v.reg(g+i), t[i])
		}
		f.I("%s %s, %s, %s", or, t[0], t[1], t[0])
		f.I("%s %s, %s, %s", or, t[2], t[3], t[2])
		f.I("%s %s, %s, %s", or, t[0], acc, acc)
		f.I("%s %s, %s, %s", or, t[2], acc, acc)
	}
}

func maxLanes(head string, v vec) {
	f.Raw(head)
	f.I("MOVQ s+0(FP), SI")
	f.I("MOVQ n+8(FP), CX")
	f.I("SHRQ $6, CX")
	for i := 0; i < v.n; i++ {
		f.I("VMOVUPS %d(SI), %s", i*v.bytes, v.reg(i))
	}
	if v.r == "Z" {
		f.I("KXORW K1, K1, K1")
	} else {
		f.I("VXORPS Y12, Y12, Y12")
	}
	f.I("JMP max%scheck", v.r)
	f.Label("max" + v.r)
	v.each("VMAXPS %d(%s), %s, %s", "SI")
	f.Label("max" + v.r + "check")
	if v.r == "Z" {
		nanCheck(v, [4]string{"K2", "K3", "K4", "K5"}, "KORW", "K1")
	} else {
		nanCheck(v, [4]string{"Y8", "Y9", "Y10", "Y11"}, "VORPS", "Y12")
	}
	f.I("ADDQ $256, SI")
	f.I("DECQ CX")
	f.I("JNZ max%s", v.r)
	fold(v, "VMAXPS", "VMAXSS", false)
	f.I("VMOVSS X0, m+16(FP)")
	if v.r == "Z" {
		f.I("KMOVW K1, AX")
	} else {
		f.I("VMOVMSKPS Y12, AX")
	}
	f.I("TESTL AX, AX")
	f.I("SETNE nan+20(FP)")
	f.I("VZEROUPPER")
	f.I("RET")
}

func main() {
	f.Raw(`
// Row reductions along a contiguous run of float32: 64 lanes, lane j
// holding elements i ≡ j (mod 64) in order (AVX2: Y0-Y7, AVX-512: Z0-Z3),
// then folded in registers (lane j += lane j+32, j+16, j+8, j+4, j+2, j+1),
// so both vector widths and the Go loop give the same bits. n is a multiple
// of 64 and at least 64. Eight (four) independent chains keep enough loads
// in flight to stream from memory; the fold stays in registers (storing the
// lanes and reading them back one by one stalls store-to-load forwarding).
`)
	sumLanes(`
// func sumLanes32Y(s *float32, n int, tail *[64]float32) float32
// Lanes start at +0; tail (nil: none) is added to the lanes before the fold.
TEXT ·sumLanes32Y(SB), NOSPLIT, $0-28
`, ymm)
	sumLanes(`
// func sumLanes32Z(s *float32, n int, tail *[64]float32) float32
TEXT ·sumLanes32Z(SB), NOSPLIT, $0-28
`, zmm)
	maxLanes(`
// func maxLanes32Y(s *float32, n int) (m float32, nan bool)
// m is a maximum of s[:n]; nan reports whether any element is NaN (then m
// is meaningless). VMAXPS returns the new element when either is NaN, so
// a lane is NaN right after a step exactly when that step's element is.
// Among equal values a lane keeps one of them: only ±0 can differ, and the
// caller re-checks a zero result.
TEXT ·maxLanes32Y(SB), NOSPLIT, $0-21
`, ymm)
	maxLanes(`
// func maxLanes32Z(s *float32, n int) (m float32, nan bool)
TEXT ·maxLanes32Z(SB), NOSPLIT, $0-21
`, zmm)
	f.Write("rowvec_amd64.s")
}
