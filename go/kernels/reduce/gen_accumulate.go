//go:build ignore

// gen_accumulate writes accumulate_amd64.s: the unrolled element-wise
// accumulation loops (addAcc*: dst += src, four vectors per step; addRows*:
// a block of eight vectors of dst summed with src rows in order). Run with
// `go generate` (see accumulate_amd64.go).
package main

import "github.com/gojax/gojax/go/kernels/internal/asmgen"

var f = asmgen.NewAsm("gen_accumulate.go")

// vec is a vector width: register class and bytes per register.
type vec struct {
	r     string
	bytes int
}

var (
	ymm = vec{"Y", 32}
	zmm = vec{"Z", 64}
)

func (v vec) reg(i int) string { return asmgen.Reg(v.r, i) }

// addAcc writes dst[i] += src[i], four vectors per step; shift is log2 of
// the elements per step and sfx is PS or PD.
func addAcc(head string, v vec, sfx string, shift int, label string) {
	f.Raw(head)
	f.I("MOVQ dst_base+0(FP), DI")
	f.I("MOVQ src_base+24(FP), SI")
	f.I("MOVQ dst_len+8(FP), CX")
	f.I("SHRQ $%d, CX", shift)
	f.I("JZ done%s", label)
	f.Label("loop" + label)
	for i := 0; i < 4; i++ {
		f.I("VMOVU%s %d(DI), %s", sfx, i*v.bytes, v.reg(i))
	}
	for i := 0; i < 4; i++ {
		f.I("VADD%s %d(SI), %s, %s", sfx, i*v.bytes, v.reg(i), v.reg(i))
	}
	for i := 0; i < 4; i++ {
		f.I("VMOVU%s %s, %d(DI)", sfx, v.reg(i), i*v.bytes)
	}
	f.I("ADDQ $%d, SI", 4*v.bytes)
	f.I("ADDQ $%d, DI", 4*v.bytes)
	f.I("DECQ CX")
	f.I("JNZ loop%s", label)
	f.I("VZEROUPPER")
	f.Label("done" + label)
	f.I("RET")
}

// rowLabels are addRows' label names.
type rowLabels struct{ done, block, set, row, store string }

// addRows writes the float32 block-of-rows sum, eight vectors a block.
func addRows(head string, v vec, shift int, l rowLabels) {
	block8 := func(format string, base string) {
		for i := 0; i < 8; i++ {
			f.I(format, i*v.bytes, base, v.reg(i))
		}
	}
	f.Raw(head)
	f.I("MOVQ dst+0(FP), DI")
	f.I("MOVQ src+8(FP), SI")
	f.I("MOVQ n+16(FP), CX")
	f.I("MOVQ stride+24(FP), DX")
	f.I("MOVQ rows+32(FP), BX")
	f.I("MOVBLZX set+40(FP), AX")
	f.I("SHLQ $2, DX")
	f.I("SHRQ $%d, CX", shift)
	f.I("JZ %s", l.done)
	f.Label(l.block)
	f.I("MOVQ SI, R8")
	f.I("MOVQ BX, R9")
	f.I("TESTQ AX, AX")
	f.I("JNZ %s", l.set)
	block8("VMOVUPS %d(%s), %s", "DI")
	f.I("JMP %s", l.row)
	f.Label(l.set)
	block8("VMOVUPS %d(%s), %s", "SI")
	f.I("ADDQ DX, R8")
	f.I("DECQ R9")
	f.I("JZ %s", l.store)
	f.Label(l.row)
	for i := 0; i < 8; i++ {
		f.I("VADDPS %d(R8), %s, %s", i*v.bytes, v.reg(i), v.reg(i))
	}
	f.I("ADDQ DX, R8")
	f.I("DECQ R9")
	f.I("JNZ %s", l.row)
	f.Label(l.store)
	for i := 0; i < 8; i++ {
		f.I("VMOVUPS %s, %d(DI)", v.reg(i), i*v.bytes)
	}
	f.I("ADDQ $%d, DI", 8*v.bytes)
	f.I("ADDQ $%d, SI", 8*v.bytes)
	f.I("DECQ CX")
	f.I("JNZ %s", l.block)
	f.I("VZEROUPPER")
	f.Label(l.done)
	f.I("RET")
}

func main() {
	addAcc(`
// func addAccF32Asm(dst, src []float32): dst[i] += src[i] for the first
// len(dst) &^ 31 elements, 32 per step.
TEXT ·addAccF32Asm(SB), NOSPLIT, $0-48
`, ymm, "PS", 5, "32")
	addAcc(`
// func addAccF64Asm(dst, src []float64): the same for float64, 16 per step.
TEXT ·addAccF64Asm(SB), NOSPLIT, $0-48
`, ymm, "PD", 4, "64")
	addAcc(`
// func addAccF32Z(dst, src []float32): AVX-512, len(dst) &^ 63 elements,
// 64 per step.
TEXT ·addAccF32Z(SB), NOSPLIT, $0-48
`, zmm, "PS", 6, "32z")
	addAcc(`
// func addAccF64Z(dst, src []float64): AVX-512, len(dst) &^ 31 elements,
// 32 per step.
TEXT ·addAccF64Z(SB), NOSPLIT, $0-48
`, zmm, "PD", 5, "64z")
	addRows(`
// func addRowsF32Z(dst, src *float32, n, stride, rows int, set bool): for
// each block of 128 columns of dst (n a multiple of 128), dst += src row 0,
// row 1, …, row rows-1 (rows >= 1, stride in elements) in that order, the
// block held in Z0-Z7 across the rows; with set, dst = row 0 + row 1 + …
// instead (dst is not read).
TEXT ·addRowsF32Z(SB), NOSPLIT, $0-41
`, zmm, 7, rowLabels{"doneRows", "blockRows", "setZ", "rowRows", "storeZ"})
	addRows(`
// func addRowsF32Y(dst, src *float32, n, stride, rows int, set bool): addRowsF32Z
// with AVX2, blocks of 64 columns (n a multiple of 64) in Y0-Y7.
TEXT ·addRowsF32Y(SB), NOSPLIT, $0-41
`, ymm, 6, rowLabels{"doneRowsY", "blockRowsY", "setY", "rowRowsY", "storeY"})
	f.Write("accumulate_amd64.s")
}
