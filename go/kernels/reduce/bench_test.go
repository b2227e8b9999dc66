package reduce

import (
	"math"
	"testing"

	"github.com/gojax/gojax/go/ir"
)

func benchOp(b *testing.B, op *ir.Op, ins ...[]byte) {
	ctx := &fakeCtx{}
	l, _ := lookupOp(op.Name)
	st, err := l(ctx, op)
	if err != nil {
		b.Fatal(err)
	}
	outs := make([][]byte, len(op.Results))
	for i, r := range op.Results {
		outs[i] = make([]byte, r.Tensor().ByteSize())
	}
	b.SetBytes(int64(len(ins[0])))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := st(ins, outs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSumLastAxisF32(b *testing.B) {
	benchOp(b, reduceOp(ir.F32, []int64{4096, 1024}, []int64{1}, binRegion("stablehlo.add", ir.F32)),
		make([]byte, 4096*1024*4), f32s(0))
}

func BenchmarkSumFirstAxisF32(b *testing.B) {
	benchOp(b, reduceOp(ir.F32, []int64{4096, 1024}, []int64{0}, binRegion("stablehlo.add", ir.F32)),
		make([]byte, 4096*1024*4), f32s(0))
}

func BenchmarkSumAllF32(b *testing.B) {
	benchOp(b, reduceOp(ir.F32, []int64{4096, 1024}, []int64{0, 1}, binRegion("stablehlo.add", ir.F32)),
		make([]byte, 4096*1024*4), f32s(0))
}

func BenchmarkMaxMiddleAxisF32(b *testing.B) {
	benchOp(b, reduceOp(ir.F32, []int64{64, 256, 256}, []int64{1}, binRegion("stablehlo.maximum", ir.F32)),
		make([]byte, 64*256*256*4), f32s(0))
}

func BenchmarkSumLastAxisSmallRowsF32(b *testing.B) {
	benchOp(b, reduceOp(ir.F32, []int64{1 << 20, 4}, []int64{1}, binRegion("stablehlo.add", ir.F32)),
		make([]byte, 4<<22), f32s(0))
}

func BenchmarkSumBF16(b *testing.B) {
	benchOp(b, reduceOp(ir.BF16, []int64{4096, 1024}, []int64{1}, binRegion("stablehlo.add", ir.BF16)),
		make([]byte, 4096*1024*2), []byte{0, 0})
}

func BenchmarkSortF32(b *testing.B) {
	n := 1 << 16
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = float32((i * 7919) % 10007)
	}
	benchOp(b, sortOp(0, jaxF32Comparator(), ir.Tensor(ir.F32, int64(n))), f32s(vals...))
}

func BenchmarkMaxPool3x3(b *testing.B) {
	c := rwCase{"pool", []int64{8, 64, 64, 32}, []int64{1, 3, 3, 1}, []int64{1, 2, 2, 1}, []int64{1, 1, 1, 1}, []int64{1, 1, 1, 1}, []int64{0, 0, 1, 1, 1, 1, 0, 0}}
	benchOp(b, rwOp(c, ir.F32, binRegion("stablehlo.maximum", ir.F32)), make([]byte, 8*64*64*32*4), f32s(0))
}

func BenchmarkMaxLastAxisF32(b *testing.B) {
	in := make([]float32, 4096*1024)
	for i := range in {
		in[i] = float32(i%1013) * 0.5
	}
	benchOp(b, reduceOp(ir.F32, []int64{4096, 1024}, []int64{1}, binRegion("stablehlo.maximum", ir.F32)),
		f32s(in...), f32s(float32(math.Inf(-1))))
}

// The 4096² float32 sums of the sum_axis{0,1}_4096 artifacts (64 MB read
// once). The input is written first: untouched pages all map the kernel's
// zero page, which is read from cache, not from memory.
func BenchmarkSumAxis0Square(b *testing.B) {
	benchOp(b, reduceOp(ir.F32, []int64{4096, 4096}, []int64{0}, binRegion("stablehlo.add", ir.F32)),
		squareInput(), f32s(0))
}

func BenchmarkSumAxis1Square(b *testing.B) {
	benchOp(b, reduceOp(ir.F32, []int64{4096, 4096}, []int64{1}, binRegion("stablehlo.add", ir.F32)),
		squareInput(), f32s(0))
}

func squareInput() []byte {
	in := make([]float32, 4096*4096)
	for i := range in {
		in[i] = float32(i%1013) * 0.25
	}
	return f32s(in...)
}
