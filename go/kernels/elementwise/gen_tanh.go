//go:build ignore

// gen_tanh writes tanh32_amd64.s: the AVX2 and AVX-512 loops of tanhRational
// (tanh32.go), each with an optional affine prologue x = src*scale + offset
// (two roundings, as a multiply then an add) and an optional epilogue, an
// add, subtract, multiply or divide with an array operand. Run with
// `go generate` (see tanh32.go).
package main

import (
	"fmt"
	"strings"

	"github.com/gojax/gojax/go/kernels/internal/asmgen"
)

var b strings.Builder

func emit(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }

// Offsets of the constants in tanhk<>.
const (
	kClamp, kNegClamp                                       = 0, 4
	kA13, kA11, kA9, kA7, kA5, kA3, kA1, kB6, kB4, kB2, kB0 = 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48
	kTiny, kAbs                                             = 52, 56
)

// width describes one instruction set. AVX-512 keeps every coefficient in
// Z16-Z26; AVX2 has only sixteen registers and broadcasts them from memory.
type width struct {
	name  string // function name suffix
	r     string // Y or Z
	shift int    // log2 of the lanes
	bytes int
}

// coef returns the register holding the constant at offset off, loading it
// into tmp first on AVX2.
func (w width) coef(off int, tmp string) string {
	if w.r == "Z" {
		return fmt.Sprintf("Z%d", 16+(off-kA13)/4)
	}
	emit("\tVBROADCASTSS %d(AX), %s", off, tmp)
	return tmp
}

// body computes the result of the vector in R0 into R7; R0 keeps x.
func body(w width) {
	r := func(i int) string { return fmt.Sprintf("%s%d", w.r, i) }
	emit("\tVMAXPS %s, %s, %s", r(14), r(0), r(1)) // max(x, -clamp)
	emit("\tVMINPS %s, %s, %s", r(15), r(1), r(1)) // c = min(…, clamp)
	emit("\tVMULPS %s, %s, %s", r(1), r(1), r(2))  // x2 = c*c
	// p = fma(…fma(fma(a13, x2, a11), x2, a9)…, x2, a1)
	if w.r == "Z" {
		emit("\tVMOVAPS %s, %s", w.coef(kA13, ""), r(3))
	} else {
		w.coef(kA13, r(3))
	}
	for _, off := range []int{kA11, kA9, kA7, kA5, kA3, kA1} {
		emit("\tVFMADD213PS %s, %s, %s", w.coef(off, r(4)), r(2), r(3))
	}
	emit("\tVMULPS %s, %s, %s", r(3), r(1), r(3)) // p = c*p
	if w.r == "Z" {
		emit("\tVMOVAPS %s, %s", w.coef(kB6, ""), r(5))
	} else {
		w.coef(kB6, r(5))
	}
	for _, off := range []int{kB4, kB2, kB0} {
		emit("\tVFMADD213PS %s, %s, %s", w.coef(off, r(6)), r(2), r(5))
	}
	emit("\tVDIVPS %s, %s, %s", r(5), r(3), r(7))  // p/q
	emit("\tVANDPS %s, %s, %s", r(12), r(0), r(8)) // |x|
	if w.r == "Z" {
		emit("\tVCMPPS $1, Z13, Z8, K1") // |x| < tiny: x
		emit("\tVMOVAPS Z0, K1, Z7")
		emit("\tVCMPPS $3, Z0, Z0, K1") // NaN: x
		emit("\tVMOVAPS Z0, K1, Z7")
		return
	}
	emit("\tVCMPPS $1, Y13, Y8, Y9")
	emit("\tVBLENDVPS Y9, Y0, Y7, Y7")
	emit("\tVCMPPS $3, Y0, Y0, Y9")
	emit("\tVBLENDVPS Y9, Y0, Y7, Y7")
}

// Epilogue codes: 0 none, else 1 + 2·op + order with op add, sub, mul,
// div (arithOp order) and order 0 for r op w, 1 for w op r.
var epiOps = []string{"ADD", "SUB", "MUL", "DIV"}

func kernel(w width) {
	name := "tanh32x" + w.name + "Asm"
	r := func(i int) string { return fmt.Sprintf("%s%d", w.r, i) }
	emit("// func %s(dst, src []float32, aff *[2]float32, w *float32, epi int)", name)
	emit("TEXT ·%s(SB), NOSPLIT, $0-72", name)
	emit("\tMOVQ dst_base+0(FP), DI")
	emit("\tMOVQ src_base+24(FP), SI")
	emit("\tMOVQ src_len+32(FP), CX")
	emit("\tMOVQ aff+48(FP), DX")
	emit("\tMOVQ w+56(FP), R8")
	emit("\tMOVQ epi+64(FP), R9")
	emit("\tSHRQ $%d, CX", w.shift)
	emit("\tJZ done")
	emit("\tLEAQ tanhk<>(SB), AX")
	emit("\tVBROADCASTSS %d(AX), %s", kClamp, r(15))
	emit("\tVBROADCASTSS %d(AX), %s", kNegClamp, r(14))
	emit("\tVBROADCASTSS %d(AX), %s", kTiny, r(13))
	emit("\tVBROADCASTSS %d(AX), %s", kAbs, r(12))
	if w.r == "Z" {
		for off := kA13; off <= kB0; off += 4 {
			emit("\tVBROADCASTSS %d(AX), Z%d", off, 16+(off-kA13)/4)
		}
	}
	nepi := 1 + 2*len(epiOps)
	// Dispatch once per call to the loop of this prologue and epilogue.
	emit("\tTESTQ DX, DX")
	emit("\tJZ noaff")
	emit("\tVBROADCASTSS 0(DX), %s", r(10))
	emit("\tVBROADCASTSS 4(DX), %s", r(11))
	for _, aff := range []int{1, 0} {
		if aff == 0 {
			emit("noaff:")
		}
		for e := range nepi {
			emit("\tCMPQ R9, $%d", e)
			emit("\tJEQ l%d_%d", aff, e)
		}
		emit("\tJMP bad")
	}
	for aff := range 2 {
		for e := range nepi {
			emit("l%d_%d:", aff, e)
			emit("\tVMOVUPS (SI), %s", r(0))
			if aff == 1 {
				emit("\tVMULPS %s, %s, %s", r(10), r(0), r(0))
				emit("\tVADDPS %s, %s, %s", r(11), r(0), r(0))
			}
			body(w)
			if e > 0 {
				in := "V" + epiOps[(e-1)/2] + "PS"
				if (e-1)%2 == 0 { // r op w
					emit("\t%s (R8), %s, %s", in, r(7), r(7))
				} else { // w op r
					emit("\tVMOVUPS (R8), %s", r(9))
					emit("\t%s %s, %s, %s", in, r(7), r(9), r(7))
				}
				emit("\tADDQ $%d, R8", w.bytes)
			}
			emit("\tVMOVUPS %s, (DI)", r(7))
			emit("\tADDQ $%d, SI", w.bytes)
			emit("\tADDQ $%d, DI", w.bytes)
			emit("\tDECQ CX")
			emit("\tJNZ l%d_%d", aff, e)
			emit("\tVZEROUPPER")
			emit("\tRET")
		}
	}
	emit("bad:")
	emit("\tVZEROUPPER")
	emit("done:")
	emit("\tRET")
	emit("")
}

func main() {
	emit("// Code generated by gen_tanh.go; DO NOT EDIT.")
	emit("")
	emit("//go:build amd64 && !purego")
	emit("")
	emit("#include \"textflag.h\"")
	emit("")
	emit("// Constants of tanhRational (tanh32.go) as float32 bit patterns.")
	for i, c := range []struct{ bits, name string }{
		{"0x40fff644", "clamp"}, {"0xc0fff644", "-clamp"},
		{"0xa59f25c0", "a13"}, {"0x2a61337e", "a11"}, {"0xaebd37ff", "a9"}, {"0x335c0041", "a7"},
		{"0x3779434a", "a5"}, {"0x3a270ded", "a3"}, {"0x3ba059dc", "a1"},
		{"0x35a0d3d8", "b6"}, {"0x38f895d6", "b4"}, {"0x3b14aa05", "b2"}, {"0x3ba059dd", "b0"},
		{"0x39d1b717", "tiny"}, {"0x7fffffff", "abs mask"},
	} {
		emit("DATA tanhk<>+%d(SB)/4, $%s // %s", 4*i, c.bits, c.name)
	}
	emit("GLOBL tanhk<>(SB), RODATA|NOPTR, $60")
	emit("")
	emit("// Each function writes r = tanhRational(x) for every vector of src to dst,")
	emit("// x = src[i], or src[i]*aff[0] + aff[1] (rounded after each) when aff is")
	emit("// not nil: the same float32 operations in the same order as the Go code,")
	emit("// the polynomial's multiply-adds fused as fma32 does. epi > 0 writes")
	emit("// r op w[i] or w[i] op r instead (tanh32Chain's codes).")
	emit("")
	kernel(width{"8", "Y", 3, 32})
	kernel(width{"16", "Z", 4, 64})
	asmgen.WriteFile("tanh32_amd64.s", []byte(b.String()))
}
