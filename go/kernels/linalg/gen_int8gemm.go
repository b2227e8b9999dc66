//go:build ignore

// gen_int8gemm writes int8gemm_amd64.s, the micro-kernels of the 8-bit
// integer GEMM (see int8gemm.go for the packed layouts and int8gemm_amd64.go
// for which CPU runs which):
//
//   - i8Kern14x32VNNI: AVX512_VNNI, 14 rows × 32 int32 columns; each k
//     step is one dword of four k per row (A, signed bytes, broadcast from
//     memory) and per column (B, unsigned bytes), summed by VPDPBUSD;
//   - i8Kern6x16AVX2: AVX2, 6 rows × 16 int32 columns; each k step is one
//     dword of two int16 k per row and per column, summed by VPMADDWD and
//     VPADDD (exact for 8-bit values; VPMADDUBSW would saturate);
//   - i8PackB16VNNI: the VNNI kernel's B packer for 16 columns of rows
//     contiguous in j, with the column sums (VPDPBUSD against ones);
//   - i8PackARowVNNI: its A packer for one row contiguous in k, with the
//     row sum.
//
// Both write their whole tile, c[i*ldc+j] = sum + bias[i] + bias[mr+j]
// (the offset corrections of int8gemm.go: per row, then per column). Run with
// `go generate` (see int8gemm_amd64.go).
package main

import (
	"fmt"

	"github.com/gojax/gojax/go/kernels/internal/asmgen"
)

func main() {
	f := asmgen.NewAsm("gen_int8gemm.go")
	vnni(f, 14, 32)
	avx2(f, 6, 16)
	packB(f)
	packA(f)
	f.Write("int8gemm_amd64.s")
}

// prologue loads kq, a, b, c, ldc (in bytes) and bias into CX, SI, DI,
// DX, R8 and R9.
func prologue(f *asmgen.File, name string) {
	f.Raw(fmt.Sprintf("\n// func %s(kq int, a, b []byte, c []int32, ldc int, bias []int32)\nTEXT ·%s(SB), NOSPLIT, $0-112\n", name, name))
	f.I("MOVQ kq+0(FP), CX")
	f.I("MOVQ a_base+8(FP), SI")
	f.I("MOVQ b_base+32(FP), DI")
	f.I("MOVQ c_base+56(FP), DX")
	f.I("MOVQ ldc+80(FP), R8")
	f.I("SHLQ $2, R8")
	f.I("MOVQ bias_base+88(FP), R9")
}

// epilogue adds bias[i] + bias[mr+j] to the accumulators (acc(i, v) holds
// columns w·v…w·v+w-1 of row i) and stores row i at DX + i·ldc, using
// col(v) for the column biases and row, sum as temporaries.
func epilogue(f *asmgen.File, mr, nv, w int, mov, add, bcast string, acc func(i, v int) string, col func(v int) string, row, sum string) {
	for v := 0; v < nv; v++ {
		f.I("%s %d(R9), %s", mov, 4*(mr+w*v), col(v))
	}
	for i := 0; i < mr; i++ {
		f.I("%s %d(R9), %s", bcast, 4*i, row)
		for v := 0; v < nv; v++ {
			f.I("%s %s, %s, %s", add, row, col(v), sum)
			f.I("%s %s, %s, %s", add, sum, acc(i, v), acc(i, v))
			f.I("%s %s, %d(DX)", mov, acc(i, v), 4*w*v)
		}
		if i < mr-1 {
			f.I("ADDQ R8, DX")
		}
	}
}

func vnni(f *asmgen.File, mr, nr int) {
	nv := nr / 16
	name := fmt.Sprintf("i8Kern%dx%dVNNI", mr, nr)
	f.Raw(fmt.Sprintf("\n// %s: c[i*ldc+j] = sum_q sum_t a[4(q*%d+i)+t]·b[4(q*%d+j)+t] with a signed\n"+
		"// and b unsigned bytes, plus the biases. Z0-Z%d accumulate (row i in Z%d·i and on), Z28-Z%d hold the B dwords.\n",
		name, mr, nr, mr*nv-1, nv, 28+nv-1))
	prologue(f, name)
	acc := func(i, v int) string { return asmgen.Reg("Z", nv*i+v) }
	for i := 0; i < mr; i++ {
		for v := 0; v < nv; v++ {
			f.I("VPXORD %s, %s, %s", acc(i, v), acc(i, v), acc(i, v))
		}
	}
	f.Label("loop")
	for v := 0; v < nv; v++ {
		f.I("VMOVDQU32 %d(DI), %s", 64*v, asmgen.Reg("Z", 28+v))
	}
	for i := 0; i < mr; i++ {
		for v := 0; v < nv; v++ {
			f.I("VPDPBUSD.BCST %d(SI), %s, %s", 4*i, asmgen.Reg("Z", 28+v), acc(i, v))
		}
	}
	f.I("ADDQ $%d, SI", 4*mr)
	f.I("ADDQ $%d, DI", 4*nr)
	f.I("DECQ CX")
	f.I("JNZ loop")
	epilogue(f, mr, nv, 16, "VMOVDQU32", "VPADDD", "VPBROADCASTD", acc, func(v int) string { return asmgen.Reg("Z", 28+v) }, "Z30", "Z31")
	f.I("VZEROUPPER")
	f.I("RET")
}

func avx2(f *asmgen.File, mr, nr int) {
	nv := nr / 8
	name := fmt.Sprintf("i8Kern%dx%dAVX2", mr, nr)
	bReg := func(v int) string { return asmgen.Reg("Y", mr*nv+v) }
	aReg, tReg := asmgen.Reg("Y", mr*nv+nv), asmgen.Reg("Y", mr*nv+nv+1)
	f.Raw(fmt.Sprintf("\n// %s: c[i*ldc+j] = sum_q sum_t a[2(q*%d+i)+t]·b[2(q*%d+j)+t] over int16\n"+
		"// pairs, plus the biases. Y0-Y%d accumulate, %s-%s hold the B dwords, %s the broadcast A dword, %s the products.\n",
		name, mr, nr, mr*nv-1, bReg(0), bReg(nv-1), aReg, tReg))
	prologue(f, name)
	acc := func(i, v int) string { return asmgen.Reg("Y", nv*i+v) }
	for i := 0; i < mr; i++ {
		for v := 0; v < nv; v++ {
			f.I("VPXOR %s, %s, %s", acc(i, v), acc(i, v), acc(i, v))
		}
	}
	f.Label("loop")
	for v := 0; v < nv; v++ {
		f.I("VMOVDQU %d(DI), %s", 32*v, bReg(v))
	}
	for i := 0; i < mr; i++ {
		f.I("VPBROADCASTD %d(SI), %s", 4*i, aReg)
		for v := 0; v < nv; v++ {
			f.I("VPMADDWD %s, %s, %s", bReg(v), aReg, tReg)
			f.I("VPADDD %s, %s, %s", tReg, acc(i, v), acc(i, v))
		}
	}
	f.I("ADDQ $%d, SI", 4*mr)
	f.I("ADDQ $%d, DI", 4*nr)
	f.I("DECQ CX")
	f.I("JNZ loop")
	epilogue(f, mr, nv, 8, "VMOVDQU", "VPADDD", "VPBROADCASTD", acc, bReg, aReg, tReg)
	f.I("VZEROUPPER")
	f.I("RET")
}

// packB writes i8PackB16VNNI: for q < kq, the four rows at b + off[4q+t]
// (16 bytes each) are interleaved into 16 dwords (column j: bytes t = 0..3),
// flipped (XOR with the broadcast flip) and stored at dst + q·stride; sums[j]
// is set to the sum of column j's unsigned bytes over all kq groups.
func packB(f *asmgen.File) {
	f.Raw(`
// func i8PackB16VNNI(kq int, b *byte, off *int64, dst *byte, stride int, flip uint32, sums *int32)
TEXT ·i8PackB16VNNI(SB), NOSPLIT, $0-56
`)
	f.I("MOVQ kq+0(FP), CX")
	f.I("MOVQ b+8(FP), BX")
	f.I("MOVQ off+16(FP), R13")
	f.I("MOVQ dst+24(FP), DI")
	f.I("MOVQ stride+32(FP), R14")
	f.I("MOVL flip+40(FP), AX")
	f.I("VMOVD AX, X12")
	f.I("VPBROADCASTD X12, X12")
	f.I("MOVQ sums+48(FP), R15")
	f.I("MOVL $0x01010101, AX")
	f.I("VPBROADCASTD AX, X24")
	for i := 16; i < 20; i++ {
		f.I("VPXORD X%d, X%d, X%d", i, i, i)
	}
	f.Label("loop")
	for t := 0; t < 4; t++ {
		f.I("MOVQ %d(R13), AX", 8*t)
		f.I("VMOVDQU (BX)(AX*1), X%d", t)
	}
	// Bytes of rows 0,1 and 2,3 into words, then words into dwords.
	f.I("VPUNPCKLBW X1, X0, X4")
	f.I("VPUNPCKHBW X1, X0, X5")
	f.I("VPUNPCKLBW X3, X2, X6")
	f.I("VPUNPCKHBW X3, X2, X7")
	f.I("VPUNPCKLWD X6, X4, X8")
	f.I("VPUNPCKHWD X6, X4, X9")
	f.I("VPUNPCKLWD X7, X5, X10")
	f.I("VPUNPCKHWD X7, X5, X11")
	for v := 0; v < 4; v++ {
		x := fmt.Sprintf("X%d", 8+v)
		f.I("VPXOR X12, %s, %s", x, x)
		f.I("VMOVDQU %s, %d(DI)", x, 16*v)
		// X24 (ones) signed, the packed bytes unsigned: the column sums.
		f.I("VPDPBUSD X24, %s, X%d", x, 16+v)
	}
	f.I("ADDQ $32, R13")
	f.I("ADDQ R14, DI")
	f.I("DECQ CX")
	f.I("JNZ loop")
	for v := 0; v < 4; v++ {
		f.I("VMOVDQU32 X%d, %d(R15)", 16+v, 16*v)
	}
	f.I("VZEROUPPER")
	f.I("RET")
}

// packA writes i8PackARowVNNI: 16·n16 bytes of one A row at src, flipped,
// stored as dwords stride bytes apart from dst on; it returns the sum of the
// flipped bytes as signed.
func packA(f *asmgen.File) {
	f.Raw(`
// func i8PackARowVNNI(n16 int, src, dst *byte, stride int, flip uint32) int32
TEXT ·i8PackARowVNNI(SB), NOSPLIT, $0-44
`)
	f.I("MOVQ n16+0(FP), CX")
	f.I("MOVQ src+8(FP), SI")
	f.I("MOVQ dst+16(FP), DI")
	f.I("MOVQ stride+24(FP), R8")
	f.I("LEAQ (R8)(R8*2), R9")
	f.I("LEAQ (R8*4), R10")
	f.I("MOVL flip+32(FP), AX")
	f.I("VMOVD AX, X12")
	f.I("VPBROADCASTD X12, X12")
	f.I("MOVL $0x01010101, AX")
	f.I("VPBROADCASTD AX, X24")
	f.I("VPXORD X16, X16, X16")
	f.Label("loop")
	f.I("VMOVDQU (SI), X0")
	f.I("VPXOR X12, X0, X0")
	// X24 (ones) unsigned, the row's bytes signed: the row sum.
	f.I("VPDPBUSD X0, X24, X16")
	f.I("VMOVD X0, (DI)")
	f.I("VPEXTRD $1, X0, (DI)(R8*1)")
	f.I("VPEXTRD $2, X0, (DI)(R8*2)")
	f.I("VPEXTRD $3, X0, (DI)(R9*1)")
	f.I("ADDQ $16, SI")
	f.I("ADDQ R10, DI")
	f.I("DECQ CX")
	f.I("JNZ loop")
	f.I("VPSHUFD $0x4E, X16, X17")
	f.I("VPADDD X17, X16, X16")
	f.I("VPSHUFD $0xB1, X16, X17")
	f.I("VPADDD X17, X16, X16")
	f.I("VMOVD X16, AX")
	f.I("MOVL AX, ret+40(FP)")
	f.I("VZEROUPPER")
	f.I("RET")
}
