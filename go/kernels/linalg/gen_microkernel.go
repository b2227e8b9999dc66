//go:build ignore

// gen_microkernel writes the GEMM micro-kernels' assembly (see
// microkernel_amd64.go for which CPU runs which):
//
//   - microkernel_amd64.s: AVX2 4×16 f32 and 4×8 f64;
//   - microkernel512_amd64.s: AVX-512 14×32 f32 and 14×16 f64;
//   - microkernel512edge_amd64.s: the first 4 rows of those tiles;
//   - microkernelbf16_amd64.s: AVX512_BF16 14×32 bf16 pairs into f32;
//   - microkernelbf16edge_amd64.s: its first 4 rows.
//
// The AVX-512 kernels share one shape (Z0-Z27 accumulators, Z28/Z29 the B
// row, Z30/Z31 the broadcast A element) and differ only in the k step, so
// the prologue, the C prefetch and the add/store of C are written once here
// for f32, f64 and bf16 alike. Run with `go generate` (see
// microkernel_amd64.go).
package main

import (
	"fmt"

	"github.com/gojax/gojax/go/kernels/internal/asmgen"
)

// elt describes a kernel's element type.
type elt struct {
	kArg   string // name of the k-count argument
	cShift int    // log2 of the size of a C element
	aSize  int    // bytes per A element broadcast in a k step
	sfx    string // PS or PD: the packed-float suffix of C's type
	bLoad  string // instruction loading a B vector
	bcast  string // instruction broadcasting an A element
	// step writes acc += a·b for one accumulator (f32 and f64: an FMA).
	step func(f *asmgen.File, b, a, acc string)
}

func fma(sfx string) func(f *asmgen.File, b, a, acc string) {
	return func(f *asmgen.File, b, a, acc string) { f.I("VFMADD231%s %s, %s, %s", sfx, b, a, acc) }
}

var (
	f32  = elt{"kc", 2, 4, "PS", "VMOVUPS", "VBROADCASTSS", fma("PS")}
	f64  = elt{"kc", 3, 8, "PD", "VMOVUPD", "VBROADCASTSD", fma("PD")}
	bf16 = elt{"kp", 2, 4, "PS", "VMOVDQU32", "VPBROADCASTD", vdpbf16ps}
)

func z(i int) string { return asmgen.Reg("Z", i) }

// zn is the number of a ZMM register name.
func zn(r string) int {
	var n int
	fmt.Sscanf(r, "Z%d", &n)
	return n
}

// vdpbf16ps writes VDPBF16PS b, a, acc (acc += pairwise bf16 products) as
// bytes, since the Go assembler does not know it: EVEX.512.F3.0F38.W0 52 /r
// with acc in ModRM.reg, a in EVEX.vvvv and b in ModRM.rm.
func vdpbf16ps(f *asmgen.File, b, a, acc string) {
	d, v, m := zn(acc), zn(a), zn(b)
	inv := func(bit int) int { return 1 - bit }
	p0 := inv(d>>3&1)<<7 | inv(m>>3&1)<<6 | inv(m>>4&1)<<5 | inv(d>>4&1)<<4 | 0b10
	p1 := (^v&15)<<3 | 1<<2 | 0b10
	p2 := 0b10<<5 | inv(v>>4&1)<<3
	modrm := 0b11<<6 | (d&7)<<3 | m&7
	f.I("BYTE $0x62; BYTE $0x%02x; BYTE $0x%02x; BYTE $0x%02x; BYTE $0x52; BYTE $0x%02x // VDPBF16PS %s, %s, %s",
		p0, p1, p2, modrm, b, a, acc)
}

// args loads the k count, A and B.
func args(f *asmgen.File, e elt) {
	f.I("MOVQ %s+0(FP), CX", e.kArg)
	f.I("MOVQ a_base+8(FP), SI")
	f.I("MOVQ b_base+32(FP), DI")
}

// cArgs loads C into DX and its row stride in bytes into R8.
func cArgs(f *asmgen.File, e elt) {
	f.I("MOVQ c_base+56(FP), DX")
	f.I("MOVQ ldc+80(FP), R8")
	f.I("SHLQ $%d, R8", e.cShift)
}

func zero(f *asmgen.File, n int) {
	for i := 0; i < n; i++ {
		f.I("VPXORD %s, %s, %s", z(i), z(i), z(i))
	}
}

// loop writes the k loop for the first rows rows of the 14-row tile:
// A advances 14 elements per k step whatever rows is.
func loop(f *asmgen.File, e elt, rows int, label string) {
	f.I("TESTQ CX, CX")
	f.I("JZ %sdone", label)
	f.Label(label + "loop")
	f.I("%s (DI), Z28", e.bLoad)
	f.I("%s 64(DI), Z29", e.bLoad)
	for i := 0; i < rows; i++ {
		a := z(30 + i%2)
		f.I("%s %d(SI), %s", e.bcast, e.aSize*i, a)
		e.step(f, "Z28", a, z(2*i))
		e.step(f, "Z29", a, z(2*i+1))
	}
	f.I("ADDQ $%d, SI", 14*e.aSize)
	f.I("ADDQ $128, DI")
	f.I("DECQ CX")
	f.I("JNZ %sloop", label)
	f.Label(label + "done")
}

// addStore adds C to the accumulators of rows rows when acc is set, then
// stores them to C (DX, row stride R8).
func addStore(f *asmgen.File, e elt, rows int, label string) {
	f.I("MOVBLZX acc+88(FP), AX")
	f.I("TESTQ AX, AX")
	f.I("JZ %sstore", label)
	f.I("MOVQ DX, R9")
	for i := 0; i < rows; i++ {
		if i > 0 {
			f.I("ADDQ R8, R9")
		}
		f.I("VADD%s (R9), %s, %s", e.sfx, z(2*i), z(2*i))
		f.I("VADD%s 64(R9), %s, %s", e.sfx, z(2*i+1), z(2*i+1))
	}
	f.Label(label + "store")
	for i := 0; i < rows; i++ {
		if i > 0 {
			f.I("ADDQ R8, DX")
		}
		f.I("VMOVU%s %s, (DX)", e.sfx, z(2*i))
		f.I("VMOVU%s %s, 64(DX)", e.sfx, z(2*i+1))
	}
	f.I("VZEROUPPER")
	f.I("RET")
}

// kern14 writes a 14-row kernel; prefetchNote is the comment before the
// prefetch of C's rows.
func kern14(f *asmgen.File, e elt, label, prefetchNote string) {
	args(f, e)
	f.Raw(prefetchNote)
	cArgs(f, e)
	for i := 0; i < 14; i++ {
		if i > 0 {
			f.I("ADDQ R8, DX")
		}
		f.I("PREFETCHT0 (DX)")
		f.I("PREFETCHT0 64(DX)")
	}
	zero(f, 28)
	loop(f, e, 14, label)
	cArgs(f, e)
	addStore(f, e, 14, label)
}

// kern4of14 writes the kernel of the first 4 rows of a 14-row tile.
func kern4of14(f *asmgen.File, e elt, label string) {
	args(f, e)
	cArgs(f, e)
	zero(f, 8)
	loop(f, e, 4, label)
	addStore(f, e, 4, label)
}

const prefetchSame = "\t// Prefetch the 14 C rows (as in kern14x32F32Asm).\n"

func gen512() {
	f := asmgen.NewAsm("gen_microkernel.go")
	f.Raw(`
// AVX-512 micro-kernels: 14 rows × two ZMM columns (14×32 f32, 14×16 f64).
// Z0-Z27 accumulate, Z28/Z29 hold the packed B row, Z30/Z31 alternate as
// the broadcast A element. Each k step loads 2 B vectors and 14 A scalars
// for 28 FMAs; every accumulator chain is a plain sequential sum over p.

// func kern14x32F32Asm(kc int, a, b, c []float32, ldc int, acc bool)
// c[i*ldc+j] (+)= sum_p a[14p+i]*b[32p+j], i < 14, j < 32.
TEXT ·kern14x32F32Asm(SB), NOSPLIT, $0-89
`)
	kern14(f, f32, "f32z14", `	// Pull the 14 C rows toward L1 now so that the loads/stores after
	// the k loop do not stall on them (C rows are ldc apart: a cache
	// miss each).
`)
	f.Raw(`
// func kern14x16F64Asm(kc int, a, b, c []float64, ldc int, acc bool)
// c[i*ldc+j] (+)= sum_p a[14p+i]*b[16p+j], i < 14, j < 16.
TEXT ·kern14x16F64Asm(SB), NOSPLIT, $0-89
`)
	kern14(f, f64, "f64z14", prefetchSame)
	f.Write("microkernel512_amd64.s")
}

func gen512Edge() {
	f := asmgen.NewAsm("gen_microkernel.go")
	for _, k := range []struct {
		e                elt
		name, typ, label string
		full, cols       string
	}{
		{f32, "kern4of14x32F32Asm", "float32", "e4", "kern14x32F32Asm", "32"},
		{f64, "kern4of14x16F64Asm", "float64", "e4d", "kern14x16F64Asm", "16"},
	} {
		f.Raw(fmt.Sprintf(`
// func %s(kc int, a, b, c []%s, ldc int, acc bool)
// c[i*ldc+j] (+)= sum_p a[14p+i]*b[%sp+j], i < 4, j < %s: the first four
// rows of %s's tile, for edge panels of 1-4 rows (256 rows =
// 18×14 + 4) that would otherwise run all 14. Every element is the same
// sequence of FMAs from zero, then the same add of c, as in the 14-row
// kernel, so an element's bits do not depend on which kernel computed it.
TEXT ·%s(SB), NOSPLIT, $0-89
`, k.name, k.typ, k.cols, k.cols, k.full, k.name))
		kern4of14(f, k.e, k.label)
	}
	f.Write("microkernel512edge_amd64.s")
}

func genBF16() {
	f := asmgen.NewAsm("gen_microkernel.go")
	f.Raw(`
// AVX512_BF16 micro-kernel: 14 rows × 32 columns, f32 accumulators,
// bf16 operands packed in k pairs. VDPBF16PS (hand-encoded: the Go
// assembler lacks it) adds a[2q+1]·b[2q+1] then a[2q]·b[2q] to each f32
// lane; bf16 products are exact in f32, so each lane is a sequential sum.
// Registers as in the f32 kernel: Z0-Z27 accumulate, Z28/Z29 B, Z30/Z31 A.

// func kern14x32BF16Asm(kp int, a, b []uint16, c []float32, ldc int, acc bool)
// c[i*ldc+j] (+)= sum_q sum_{e<2} a[2(14q+i)+e]*b[2(32q+j)+e], i < 14, j < 32.
TEXT ·kern14x32BF16Asm(SB), NOSPLIT, $0-89
`)
	kern14(f, bf16, "bf", prefetchSame)
	f.Write("microkernelbf16_amd64.s")

	f = asmgen.NewAsm("gen_microkernel.go")
	f.Raw(`
// func kern4of14x32BF16Asm(kp int, a, b []uint16, c []float32, ldc int, acc bool)
// c[i*ldc+j] (+)= sum_q sum_{e<2} a[2(14q+i)+e]*b[2(32q+j)+e], i < 4, j < 32:
// the first four rows of kern14x32BF16Asm's tile, for edge panels of 1-4
// rows (1024 rows = 73×14 + 2) that would otherwise run all 14. Every
// element is the same VDPBF16PS sequence from zero, then the same add of
// c, as in the 14-row kernel, so its bits do not depend on the kernel.
TEXT ·kern4of14x32BF16Asm(SB), NOSPLIT, $0-89
`)
	kern4of14(f, bf16, "e4b")
	f.Write("microkernelbf16edge_amd64.s")
}

// genAVX2 writes the 4-row AVX2 kernels: Y0-Y7 accumulate (row i in
// Y2i, Y2i+1), Y8/Y9 hold the B row, Y10-Y13 the broadcast A elements.
func genAVX2() {
	f := asmgen.NewAsm("gen_microkernel.go")
	for _, k := range []struct {
		e           elt
		head, label string
	}{
		{f32, `
// func kern4x16F32Asm(kc int, a, b, c []float32, ldc int, acc bool)
// c[i*ldc+j] (+)= sum_p a[4p+i]*b[16p+j], i < 4, j < 16.
TEXT ·kern4x16F32Asm(SB), NOSPLIT, $0-89
`, "f32"},
		{f64, `
// func kern4x8F64Asm(kc int, a, b, c []float64, ldc int, acc bool)
TEXT ·kern4x8F64Asm(SB), NOSPLIT, $0-89
`, "f64"},
	} {
		e, s, y := k.e, k.e.sfx, func(i int) string { return asmgen.Reg("Y", i) }
		f.Raw(k.head)
		args(f, e)
		for i := 0; i < 8; i++ {
			f.I("VXOR%s %s, %s, %s", s, y(i), y(i), y(i))
		}
		f.I("TESTQ CX, CX")
		f.I("JZ %sdone", k.label)
		f.Raw("\n")
		f.Label(k.label + "loop")
		f.I("VMOVU%s (DI), Y8", s)
		f.I("VMOVU%s 32(DI), Y9", s)
		for i := 0; i < 4; i++ {
			off := ""
			if i > 0 {
				off = fmt.Sprint(e.aSize * i)
			}
			f.I("%s %s(SI), %s", e.bcast, off, y(10+i))
			f.I("VFMADD231%s Y8, %s, %s", s, y(10+i), y(2*i))
			f.I("VFMADD231%s Y9, %s, %s", s, y(10+i), y(2*i+1))
		}
		f.I("ADDQ $%d, SI", 4*e.aSize)
		f.I("ADDQ $64, DI")
		f.I("DECQ CX")
		f.I("JNZ %sloop", k.label)
		f.Raw("\n")
		f.Label(k.label + "done")
		cArgs(f, e)
		f.I("MOVBLZX acc+88(FP), AX")
		f.I("TESTQ AX, AX")
		f.I("JZ %sstore", k.label)
		row := []string{"DX", "R9", "R10", "R11"}
		for i := 0; i < 4; i++ {
			if i > 0 {
				f.I("LEAQ (%s)(R8*1), %s", row[i-1], row[i])
			}
			f.I("VADD%s (%s), %s, %s", s, row[i], y(2*i), y(2*i))
			f.I("VADD%s 32(%s), %s, %s", s, row[i], y(2*i+1), y(2*i+1))
		}
		f.Raw("\n")
		f.Label(k.label + "store")
		for i := 0; i < 4; i++ {
			if i > 0 {
				f.I("ADDQ R8, DX")
			}
			f.I("VMOVU%s %s, (DX)", s, y(2*i))
			f.I("VMOVU%s %s, 32(DX)", s, y(2*i+1))
		}
		f.I("VZEROUPPER")
		f.I("RET")
	}
	f.Write("microkernel_amd64.s")
}

func main() {
	genAVX2()
	gen512()
	gen512Edge()
	genBF16()
}
