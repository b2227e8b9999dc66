package elementwise

import (
	"testing"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
)

func benchOp(b *testing.B, name string, attrs ir.Attrs, in ir.ElemType, out ir.ElemType, nin int) {
	const n = 1 << 20
	args := make([]arg, nin)
	ins := make([][]byte, nin)
	for i := range args {
		ty := ir.Tensor(in, n)
		data := make([]byte, ty.ByteSize())
		for j := range data {
			data[j] = byte(j*7 + i*13) // arbitrary bit patterns
		}
		if in.IsFloat() || in.IsComplex() {
			// Normal values only: subnormals would measure the FPU's slow path.
			src := make([]float32, n)
			for j := range src {
				src[j] = float32((j+i*37)%1000)*0.01 - 3 + 0.001
			}
			convertKern(ir.F32, in)(data, byteview.Bytes(src), nil, nil)
		}
		if in == ir.Pred {
			for j := range data {
				data[j] &= 1
			}
		}
		args[i], ins[i] = arg{ty, data}, data
	}
	outT := ir.Tensor(out, n)
	step, err := lowerOp(nil, name, attrs, outT, args...)
	if err != nil {
		b.Fatal(err)
	}
	outs := [][]byte{make([]byte, outT.ByteSize())}
	b.SetBytes(int64(n * out.ByteSize()))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := step(ins, outs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/elem")
}

func BenchmarkAddF32(b *testing.B)      { benchOp(b, "add", nil, ir.F32, ir.F32, 2) }
func BenchmarkMulF64(b *testing.B)      { benchOp(b, "multiply", nil, ir.F64, ir.F64, 2) }
func BenchmarkAddI32(b *testing.B)      { benchOp(b, "add", nil, ir.S32, ir.S32, 2) }
func BenchmarkMaxF32(b *testing.B)      { benchOp(b, "maximum", nil, ir.F32, ir.F32, 2) }
func BenchmarkExpF32(b *testing.B)      { benchOp(b, "exponential", nil, ir.F32, ir.F32, 1) }
func BenchmarkTanhF32(b *testing.B)     { benchOp(b, "tanh", nil, ir.F32, ir.F32, 1) }
func BenchmarkLogisticF32(b *testing.B) { benchOp(b, "logistic", nil, ir.F32, ir.F32, 1) }
func BenchmarkSqrtF32(b *testing.B)     { benchOp(b, "sqrt", nil, ir.F32, ir.F32, 1) }
func BenchmarkCompareF32(b *testing.B) {
	benchOp(b, "compare", cmpAttrs("GT", ""), ir.F32, ir.Pred, 2)
}
func BenchmarkConvertF32I32(b *testing.B)  { benchOp(b, "convert", nil, ir.F32, ir.S32, 1) }
func BenchmarkConvertF32BF16(b *testing.B) { benchOp(b, "convert", nil, ir.F32, ir.BF16, 1) }
func BenchmarkAddBF16(b *testing.B)        { benchOp(b, "add", nil, ir.BF16, ir.BF16, 2) }
func BenchmarkAddF16(b *testing.B)         { benchOp(b, "add", nil, ir.F16, ir.F16, 2) }
func BenchmarkAddF8E4M3FN(b *testing.B)    { benchOp(b, "add", nil, ir.F8E4M3FN, ir.F8E4M3FN, 2) }
func BenchmarkAddS4(b *testing.B)          { benchOp(b, "add", nil, ir.S4, ir.S4, 2) }
func BenchmarkNegC64(b *testing.B)         { benchOp(b, "negate", nil, ir.C64, ir.C64, 1) }
func BenchmarkMulC64(b *testing.B)         { benchOp(b, "multiply", nil, ir.C64, ir.C64, 2) }

// BenchmarkFusedTanhChain runs tanh(x*2 + 1) * y over 1M f32 elements in
// 1024-element blocks the way a fusion does, with the multiply-add as two
// members ("separate"), as the tanh loop's affine prologue ("affine"), or
// with the multiply by y as its epilogue too ("onepass").
func BenchmarkFusedTanhChain(b *testing.B) {
	const n, blk = 1 << 20, 1024
	x, y, out := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i%2000-1000)/500, float32(i%7)
	}
	buf := make([]byte, 4*blk)
	two, one := byteview.Bytes([]float32{2}), byteview.Bytes([]float32{1})
	mul2, _ := binaryScalarLoop("multiply", ir.F32, false)
	add1, _ := binaryScalarLoop("add", ir.F32, false)
	tanh, _ := unaryLoopOf("tanh", ir.F32)
	tanhAff, _ := unaryAffineLoop("tanh", ir.F32)
	mul, _ := binaryLoopOf("multiply", ir.F32)
	xb, yb, ob := byteview.Bytes(x), byteview.Bytes(y), byteview.Bytes(out)
	run := func(b *testing.B, block func(xs []byte)) {
		for b.Loop() {
			for lo := 0; lo < 4*n; lo += 4 * blk {
				block(xb[lo : lo+4*blk])
				mul(ob[lo:lo+4*blk], buf, yb[lo:lo+4*blk])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e3, "us/run")
	}
	b.Run("separate", func(b *testing.B) {
		run(b, func(xs []byte) { mul2(buf, xs, two); add1(buf, buf, one); tanh(buf, buf) })
	})
	b.Run("affine", func(b *testing.B) {
		run(b, func(xs []byte) { tanhAff(buf, xs, two, one) })
	})
	chain, _ := unaryAffineBinaryLoop("tanh", "multiply", ir.F32, true)
	b.Run("onepass", func(b *testing.B) {
		for b.Loop() {
			for lo := 0; lo < 4*n; lo += 4 * blk {
				chain(ob[lo:lo+4*blk], xb[lo:lo+4*blk], yb[lo:lo+4*blk], two, one)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e3, "us/run")
	})
}
