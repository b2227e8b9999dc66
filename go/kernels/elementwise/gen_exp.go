//go:build ignore

// gen_exp writes exp32_amd64.s: the AVX2 and AVX-512 loops of expPoly
// (exp32.go), two vectors per step so the two dependency chains overlap.
// Run with `go generate` (see exp32.go).
package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/gojax/gojax/go/kernels/internal/asmgen"
)

var b strings.Builder

func emit(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }

// The constants in table order; each is stored eight times (32 bytes) so
// AVX2 instructions can take it as a memory operand.
var consts = []struct {
	name string
	bits uint32
}{
	{"lo", math.Float32bits(-110)},
	{"hi", math.Float32bits(100)},
	{"log2e", math.Float32bits(1.44269504088896341)},
	{"half", math.Float32bits(0.5)},
	{"-c1", math.Float32bits(-0.693145751953125)},
	{"-c2", math.Float32bits(-1.42860682030941723212e-6)},
	{"p0", math.Float32bits(1.9875691500e-4)},
	{"p1", math.Float32bits(1.3981999507e-3)},
	{"p2", math.Float32bits(8.3334519073e-3)},
	{"p3", math.Float32bits(4.1665795894e-2)},
	{"p4", math.Float32bits(1.6666665459e-1)},
	{"p5", math.Float32bits(5.0000001201e-1)},
	{"one", math.Float32bits(1)},
	{"bias", 127},
}

func index(name string) int {
	for i, c := range consts {
		if c.name == name {
			return i
		}
	}
	panic(name)
}

// width describes one instruction set: AVX-512 keeps every constant in
// Z16-Z29, AVX2 (sixteen registers) reads them from the table.
type width struct {
	name  string // function name suffix
	r     string // Y or Z
	shift int    // log2 of the lanes
	bytes int
}

func (w width) k(name string) string {
	if w.r == "Z" {
		return fmt.Sprintf("Z%d", 16+index(name))
	}
	return fmt.Sprintf("%d(AX)", 32*index(name))
}

// body computes expPoly of the vector at off(SI) and stores it at off(DI),
// in registers base..base+6.
func body(w width, base, off int) {
	r := func(i int) string { return fmt.Sprintf("%s%d", w.r, base+i) }
	mov := "VMOVUPS"
	if w.r == "Z" {
		mov = "VMOVAPS"
	}
	emit("\tVMOVUPS %d(SI), %s", off, r(0)) // x
	// c = min(max(x, lo), hi), x as the second source of VMAXPS so NaN
	// passes (MAXPS returns that operand when either is NaN); a NaN then
	// flows through every step and comes out quieted, as x+x in expPoly.
	if w.r == "Z" {
		emit("\tVMAXPS %s, %s, %s", r(0), w.k("lo"), r(1))
		emit("\tVMINPS %s, %s, %s", r(1), w.k("hi"), r(1))
	} else { // the memory operand must be the first; load the bound
		emit("\tVMOVUPS %s, %s", w.k("lo"), r(1))
		emit("\tVMAXPS %s, %s, %s", r(0), r(1), r(1))
		emit("\tVMOVUPS %s, %s", w.k("hi"), r(4))
		emit("\tVMINPS %s, %s, %s", r(1), r(4), r(1))
	}
	emit("\t%s %s, %s", mov, w.k("half"), r(2))
	emit("\tVFMADD231PS %s, %s, %s", w.k("log2e"), r(1), r(2)) // c*log2e + 0.5
	if w.r == "Z" {
		emit("\tVRNDSCALEPS $1, %s, %s", r(2), r(2)) // n = floor
	} else {
		emit("\tVROUNDPS $1, %s, %s", r(2), r(2))
	}
	emit("\tVFMADD231PS %s, %s, %s", w.k("-c1"), r(2), r(1)) // r = c - n*c1
	emit("\tVFMADD231PS %s, %s, %s", w.k("-c2"), r(2), r(1)) // r -= n*c2
	emit("\t%s %s, %s", mov, w.k("p0"), r(3))
	for _, p := range []string{"p1", "p2", "p3", "p4", "p5"} {
		emit("\tVFMADD213PS %s, %s, %s", w.k(p), r(1), r(3)) // p = p*r + pk
	}
	emit("\tVMULPS %s, %s, %s", r(1), r(1), r(4))       // z = r*r
	emit("\tVFMADD213PS %s, %s, %s", r(1), r(4), r(3))  // p*z + r
	emit("\tVADDPS %s, %s, %s", w.k("one"), r(3), r(3)) // y
	if w.r == "Z" {
		// y·2^n rounded once, as y·2^h·2^k is (y·2^h is exact).
		emit("\tVSCALEFPS %s, %s, %s", r(2), r(3), r(3))
		emit("\tVMOVUPS %s, %d(DI)", r(3), off)
		return
	}
	emit("\tVCVTPS2DQ %s, %s", r(2), r(5))        // n as int32 (exact)
	emit("\tVPSRAD $1, %s, %s", r(5), r(6))       // h = n >> 1
	emit("\tVPSUBD %s, %s, %s", r(6), r(5), r(4)) // k = n - h
	emit("\tVPADDD %s, %s, %s", w.k("bias"), r(6), r(6))
	emit("\tVPSLLD $23, %s, %s", r(6), r(6)) // 2^h
	emit("\tVPADDD %s, %s, %s", w.k("bias"), r(4), r(4))
	emit("\tVPSLLD $23, %s, %s", r(4), r(4)) // 2^k
	emit("\tVMULPS %s, %s, %s", r(6), r(3), r(3))
	emit("\tVMULPS %s, %s, %s", r(4), r(3), r(3)) // y*2^h*2^k
	emit("\tVMOVUPS %s, %d(DI)", r(3), off)
}

func kernel(w width) {
	name := "exp32x" + w.name + "Asm"
	emit("// func %s(dst, src []float32)", name)
	emit("TEXT ·%s(SB), NOSPLIT, $0-48", name)
	emit("\tMOVQ dst_base+0(FP), DI")
	emit("\tMOVQ src_base+24(FP), SI")
	emit("\tMOVQ src_len+32(FP), CX")
	emit("\tSHRQ $%d, CX", w.shift)
	emit("\tJZ done")
	emit("\tLEAQ expk<>(SB), AX")
	if w.r == "Z" {
		for i, c := range consts {
			if c.name != "bias" { // VSCALEFPS needs no exponent bits
				emit("\tVBROADCASTSS %d(AX), Z%d", 32*i, 16+i)
			}
		}
	}
	emit("\tCMPQ CX, $2")
	emit("\tJB one")
	emit("pair:")
	body(w, 0, 0)
	body(w, 7, w.bytes)
	emit("\tADDQ $%d, SI", 2*w.bytes)
	emit("\tADDQ $%d, DI", 2*w.bytes)
	emit("\tSUBQ $2, CX")
	emit("\tCMPQ CX, $2")
	emit("\tJAE pair")
	emit("\tTESTQ CX, CX")
	emit("\tJZ end")
	emit("one:")
	body(w, 0, 0)
	emit("end:")
	emit("\tVZEROUPPER")
	emit("done:")
	emit("\tRET")
	emit("")
}

func main() {
	emit("// Code generated by gen_exp.go; DO NOT EDIT.")
	emit("")
	emit("//go:build amd64 && !purego")
	emit("")
	emit("#include \"textflag.h\"")
	emit("")
	emit("// Constants of expPoly (exp32.go) as float32 bit patterns (bias: int32),")
	emit("// each eight times.")
	for i, c := range consts {
		for j := range 8 {
			emit("DATA expk<>+%d(SB)/4, $0x%08x // %s", 32*i+4*j, c.bits, c.name)
		}
	}
	emit("GLOBL expk<>(SB), RODATA|NOPTR, $%d", 32*len(consts))
	emit("")
	emit("// Each function writes expPoly(x) for every vector of src to dst: the")
	emit("// same float32 operations in the same order as the Go code, multiply-adds")
	emit("// fused as fma32 does.")
	emit("")
	kernel(width{"8", "Y", 3, 32})
	kernel(width{"16", "Z", 4, 64})
	asmgen.WriteFile("exp32_amd64.s", []byte(b.String()))
}
