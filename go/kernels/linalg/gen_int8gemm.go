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
//     VPADDD (exact for 8-bit values; VPMADDUBSW would saturate).
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
