package elementwise

import (
	"math"
	"testing"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/internal/racedetect"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

func TestF32Binary(t *testing.T) {
	a := []float32{1, -2, 0, negz32, inf32, nan32, 3, -inf32, 7}
	b := []float32{2, 4, negz32, 0, inf32, 1, 0, -inf32, -2}
	cases := []struct {
		op   string
		want []float32
	}{
		{"add", []float32{3, 2, 0, 0, inf32, nan32, 3, -inf32, 5}},
		{"subtract", []float32{-1, -6, 0, negz32, nan32, nan32, 3, nan32, 9}},
		{"multiply", []float32{2, -8, negz32, negz32, inf32, nan32, 0, inf32, -14}},
		{"divide", []float32{0.5, -0.5, nan32, nan32, nan32, nan32, inf32, nan32, -3.5}},
		{"maximum", []float32{2, 4, 0, 0, inf32, nan32, 3, -inf32, 7}},
		{"minimum", []float32{1, -2, negz32, negz32, inf32, nan32, 0, -inf32, -2}},
		{"power", []float32{1, 16, 1, 1, inf32, nan32, 1, 0, 1.0 / 49}},
		{"remainder", []float32{1, -2, nan32, nan32, nan32, nan32, nan32, nan32, 1}},
	}
	for _, c := range cases {
		t.Run(c.op, func(t *testing.T) {
			got := dec[float32](runOp(t, c.op, nil, ir.Tensor(ir.F32, int64(len(a))), vec(ir.F32, a...), vec(ir.F32, b...)))
			for i := range got {
				require.Truef(t, sameF32(got[i], c.want[i]), "%s(%v, %v) = %v, want %v", c.op, a[i], b[i], got[i], c.want[i])
			}
		})
	}
}

func TestF64Unary(t *testing.T) {
	x := []float64{0, negz64, 1, -1, 4, inf64, -inf64, nan64, 0.5}
	cases := []struct {
		op string
		f  func(float64) float64
	}{
		{"negate", func(v float64) float64 { return -v }},
		{"abs", math.Abs},
		{"sqrt", math.Sqrt},
		{"rsqrt", func(v float64) float64 { return 1 / math.Sqrt(v) }},
		{"exponential", math.Exp},
		{"log", math.Log},
		{"tanh", math.Tanh},
		{"logistic", func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }},
		{"sign", func(v float64) float64 {
			if v > 0 {
				return 1
			} else if v < 0 {
				return -1
			}
			return v
		}},
	}
	for _, c := range cases {
		t.Run(c.op, func(t *testing.T) {
			got := dec[float64](runOp(t, c.op, nil, ir.Tensor(ir.F64, int64(len(x))), vec(ir.F64, x...)))
			for i := range got {
				want := c.f(x[i])
				require.Truef(t, sameF64(got[i], want) || math.Abs(got[i]-want) <= 1e-15*math.Abs(want), "%s(%v) = %v, want %v", c.op, x[i], got[i], want)
			}
		})
	}
	// Spot values stated by hand.
	got := dec[float64](runOp(t, "logistic", nil, ir.Tensor(ir.F64, 3), vec[float64](ir.F64, 0, -1000, 1000)))
	require.Equal(t, []float64{0.5, 0, 1}, got)
	got = dec[float64](runOp(t, "rsqrt", nil, ir.Tensor(ir.F64, 3), vec[float64](ir.F64, 4, 0, negz64)))
	require.Equal(t, []float64{0.5, inf64, -inf64}, got)
}

func TestI32Binary(t *testing.T) {
	const mn = math.MinInt32
	a := []int32{7, -7, mn, mn, 5, 0, math.MaxInt32, -8}
	b := []int32{2, 2, -1, 0, 0, -3, 1, 3}
	cases := []struct {
		op   string
		want []int32
	}{
		{"add", []int32{9, -5, math.MaxInt32, mn, 5, -3, mn, -5}},
		{"subtract", []int32{5, -9, mn + 1, mn, 5, 3, math.MaxInt32 - 1, -11}},
		{"multiply", []int32{14, -14, mn, 0, 0, 0, math.MaxInt32, -24}},
		{"divide", []int32{3, -3, mn, -1, -1, 0, math.MaxInt32, -2}},
		{"remainder", []int32{1, -1, 0, mn, 5, 0, 0, -2}},
		{"maximum", []int32{7, 2, -1, 0, 5, 0, math.MaxInt32, 3}},
		{"minimum", []int32{2, -7, mn, mn, 0, -3, 1, -8}},
		{"power", []int32{49, 49, 0, 1, 1, 0, math.MaxInt32, -512}},
		{"and", []int32{2, 0, mn, 0, 0, 0, 1, 0}},
		{"or", []int32{7, -5, -1, mn, 5, -3, math.MaxInt32, -5}},
		{"xor", []int32{5, -5, math.MaxInt32, mn, 5, -3, math.MaxInt32 - 1, -5}},
		{"shift_left", []int32{28, -28, 0, mn, 5, 0, -2, -64}},
		{"shift_right_arithmetic", []int32{1, -2, -1, mn, 5, 0, math.MaxInt32 >> 1, -1}},
		{"shift_right_logical", []int32{1, 0x3FFFFFFE, 0, mn, 5, 0, math.MaxInt32 >> 1, 0x1FFFFFFF}},
	}
	for _, c := range cases {
		t.Run(c.op, func(t *testing.T) {
			got := dec[int32](runOp(t, c.op, nil, ir.Tensor(ir.S32, int64(len(a))), vec(ir.S32, a...), vec(ir.S32, b...)))
			require.Equal(t, c.want, got)
		})
	}
}

func TestI32Unary(t *testing.T) {
	x := []int32{0, 1, -1, math.MinInt32, math.MaxInt32, 12}
	for _, c := range []struct {
		op   string
		want []int32
	}{
		{"negate", []int32{0, -1, 1, math.MinInt32, -math.MaxInt32, -12}},
		{"abs", []int32{0, 1, 1, math.MinInt32, math.MaxInt32, 12}},
		{"sign", []int32{0, 1, -1, -1, 1, 1}},
		{"not", []int32{-1, -2, 0, math.MaxInt32, math.MinInt32, -13}},
		{"popcnt", []int32{0, 1, 32, 1, 31, 2}},
		{"count_leading_zeros", []int32{32, 31, 0, 0, 1, 28}},
	} {
		got := dec[int32](runOp(t, c.op, nil, ir.Tensor(ir.S32, int64(len(x))), vec(ir.S32, x...)))
		require.Equal(t, c.want, got, c.op)
	}
}

func TestPredOps(t *testing.T) {
	a := vec[uint8](ir.Pred, 0, 0, 1, 1)
	b := vec[uint8](ir.Pred, 0, 1, 0, 1)
	ty := ir.Tensor(ir.Pred, 4)
	for _, c := range []struct {
		op   string
		want []uint8
	}{
		{"and", []uint8{0, 0, 0, 1}}, {"or", []uint8{0, 1, 1, 1}}, {"xor", []uint8{0, 1, 1, 0}},
		{"add", []uint8{0, 1, 1, 1}}, {"multiply", []uint8{0, 0, 0, 1}},
		{"maximum", []uint8{0, 1, 1, 1}}, {"minimum", []uint8{0, 0, 0, 1}},
	} {
		require.Equal(t, c.want, runOp(t, c.op, nil, ty, a, b), c.op)
	}
	require.Equal(t, []uint8{1, 1, 0, 0}, runOp(t, "not", nil, ty, a))
	_, err := tryOp("subtract", nil, ty, a, b)
	require.ErrorContains(t, err, "stablehlo.subtract")
}

func cmpAttrs(dir, typ string) ir.Attrs {
	a := ir.Attrs{"comparison_direction": ir.EnumAttr{Kind: "comparison_direction", Value: dir}}
	if typ != "" {
		a["compare_type"] = ir.EnumAttr{Kind: "comparison_type", Value: typ}
	}
	return a
}

func TestCompare(t *testing.T) {
	fa := vec(ir.F32, 1, 2, nan32, negz32, -inf32, nan32)
	fb := vec(ir.F32, 2, 2, nan32, 0, inf32, 1)
	ia := vec[int32](ir.S32, -1, 2, 3)
	ib := vec[int32](ir.S32, 1, 2, -3)
	ua := vec[uint32](ir.U32, 0xFFFFFFFF, 2, 3)
	ub := vec[uint32](ir.U32, 1, 2, 0xFFFFFFFD)
	p6, p3 := ir.Tensor(ir.Pred, 6), ir.Tensor(ir.Pred, 3)
	for _, c := range []struct {
		dir, typ  string
		f, fTotal []uint8
		i, u      []uint8
	}{
		{"EQ", "", []uint8{0, 1, 0, 1, 0, 0}, []uint8{0, 1, 1, 0, 0, 0}, []uint8{0, 1, 0}, []uint8{0, 1, 0}},
		{"NE", "", []uint8{1, 0, 1, 0, 1, 1}, []uint8{1, 0, 0, 1, 1, 1}, []uint8{1, 0, 1}, []uint8{1, 0, 1}},
		{"LT", "", []uint8{1, 0, 0, 0, 1, 0}, []uint8{1, 0, 0, 1, 1, 0}, []uint8{1, 0, 0}, []uint8{0, 0, 1}},
		{"LE", "", []uint8{1, 1, 0, 1, 1, 0}, []uint8{1, 1, 1, 1, 1, 0}, []uint8{1, 1, 0}, []uint8{0, 1, 1}},
		{"GT", "", []uint8{0, 0, 0, 0, 0, 0}, []uint8{0, 0, 0, 0, 0, 1}, []uint8{0, 0, 1}, []uint8{1, 0, 0}},
		{"GE", "", []uint8{0, 1, 0, 1, 0, 0}, []uint8{0, 1, 1, 0, 0, 1}, []uint8{0, 1, 1}, []uint8{1, 1, 0}},
	} {
		require.Equal(t, c.f, runOp(t, "compare", cmpAttrs(c.dir, "FLOAT"), p6, fa, fb), c.dir)
		require.Equal(t, c.f, runOp(t, "compare", cmpAttrs(c.dir, ""), p6, fa, fb), c.dir)
		require.Equal(t, c.fTotal, runOp(t, "compare", cmpAttrs(c.dir, "TOTALORDER"), p6, fa, fb), c.dir+" total")
		require.Equal(t, c.i, runOp(t, "compare", cmpAttrs(c.dir, "SIGNED"), p3, ia, ib), c.dir)
		require.Equal(t, c.u, runOp(t, "compare", cmpAttrs(c.dir, "UNSIGNED"), p3, ua, ub), c.dir)
	}
	_, err := tryOp("compare", cmpAttrs("LT", "UNSIGNED"), p3, ia, ib)
	require.Error(t, err)
}

func TestSelectClamp(t *testing.T) {
	p := vec[uint8](ir.Pred, 1, 0, 1)
	a := vec[int32](ir.S32, 1, 2, 3)
	b := vec[int32](ir.S32, 10, 20, 30)
	ty := ir.Tensor(ir.S32, 3)
	require.Equal(t, []int32{1, 20, 3}, dec[int32](runOp(t, "select", nil, ty, p, a, b)))
	require.Equal(t, []int32{10, 20, 30}, dec[int32](runOp(t, "select", nil, ty, scalarArg[uint8](ir.Pred, 0), a, b)))
	fa := vec[float64](ir.F64, 1, 2, 3)
	fb := vec[float64](ir.F64, -1, -2, -3)
	require.Equal(t, []float64{1, 2, 3}, dec[float64](runOp(t, "select", nil, ir.Tensor(ir.F64, 3), scalarArg[uint8](ir.Pred, 1), fa, fb)))

	x := vec(ir.F32, -5, 0.5, 9, nan32)
	f4 := ir.Tensor(ir.F32, 4)
	got := dec[float32](runOp(t, "clamp", nil, f4, scalarArg[float32](ir.F32, 0), x, scalarArg[float32](ir.F32, 1)))
	require.Equal(t, []float32{0, 0.5, 1}, got[:3])
	require.True(t, got[3] != got[3])
	got = dec[float32](runOp(t, "clamp", nil, f4, vec[float32](ir.F32, -6, 1, 0, 0), x, scalarArg[float32](ir.F32, 2)))
	require.Equal(t, []float32{-5, 1, 2}, got[:3])
	gi := dec[int32](runOp(t, "clamp", nil, ty, vec[int32](ir.S32, 2, 2, 2), a, vec[int32](ir.S32, 2, 5, 2)))
	require.Equal(t, []int32{2, 2, 2}, gi)
}

func TestConvertCore(t *testing.T) {
	f := vec(ir.F32, nan32, inf32, -inf32, 3e9, -3e9, 2.7, -2.7, negz32)
	require.Equal(t, []int32{0, math.MaxInt32, math.MinInt32, math.MaxInt32, math.MinInt32, 2, -2, 0},
		dec[int32](runOp(t, "convert", nil, ir.Tensor(ir.S32, 8), f)))
	require.Equal(t, []uint32{0, math.MaxUint32, 0, 3000000000, 0, 2, 0, 0},
		dec[uint32](runOp(t, "convert", nil, ir.Tensor(ir.U32, 8), f)))
	require.Equal(t, []int8{0, 127, -128, 127, -128, 2, -2, 0},
		dec[int8](runOp(t, "convert", nil, ir.Tensor(ir.S8, 8), f)))
	require.Equal(t, []uint8{1, 1, 1, 1, 1, 1, 1, 0}, runOp(t, "convert", nil, ir.Tensor(ir.Pred, 8), f))
	i := vec[int32](ir.S32, 16777217, -1, 0, math.MaxInt32)
	require.Equal(t, []float32{16777216, -1, 0, 2147483648}, dec[float32](runOp(t, "convert", nil, ir.Tensor(ir.F32, 4), i)))
	require.Equal(t, []float64{16777217, -1, 0, math.MaxInt32}, dec[float64](runOp(t, "convert", nil, ir.Tensor(ir.F64, 4), i)))
	require.Equal(t, []uint8{1, 1, 0, 1}, runOp(t, "convert", nil, ir.Tensor(ir.Pred, 4), i))
	p := vec[uint8](ir.Pred, 1, 0)
	require.Equal(t, []float32{1, 0}, dec[float32](runOp(t, "convert", nil, ir.Tensor(ir.F32, 2), p)))
	require.Equal(t, []int32{1, 0}, dec[int32](runOp(t, "convert", nil, ir.Tensor(ir.S32, 2), p)))
	require.Equal(t, []float32{1e40 * 0, 1.5}[1:], dec[float32](runOp(t, "convert", nil, ir.Tensor(ir.F32, 1), vec[float64](ir.F64, 1.5))))
	require.Equal(t, []float32{inf32}, dec[float32](runOp(t, "convert", nil, ir.Tensor(ir.F32, 1), vec[float64](ir.F64, 1e300))))
	require.Equal(t, []int32{-2147483648, 300}, dec[int32](runOp(t, "convert", nil, ir.Tensor(ir.S32, 2), vec[int64](ir.S64, 1<<31, 300))))
}

func TestParallelPathAndNoAlloc(t *testing.T) {
	n := 3*grain + 5
	a := make([]float32, n)
	b := make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i), 2
	}
	ty := ir.Tensor(ir.F32, int64(n))
	ctx := &fakeCtx{}
	step, err := lowerOp(ctx, "multiply", nil, ty, arg{ty, enc(a...)}, arg{ty, enc(b...)})
	require.NoError(t, err)
	out := make([]byte, ty.ByteSize())
	ins := [][]byte{enc(a...), enc(b...)}
	outs := [][]byte{out}
	require.NoError(t, step(ins, outs))
	require.Equal(t, 4, ctx.chunks)
	got := byteview.As[float32](out)
	for i := range got {
		require.Equal(t, float32(2*i), got[i])
	}
	if !racedetect.Enabled { // sync.Pool drops items under the race detector
		require.Zero(t, testing.AllocsPerRun(20, func() { _ = step(ins, outs) }))
	}
	// Wrong buffer sizes are errors, not panics.
	require.ErrorContains(t, step([][]byte{ins[0][:8], ins[1]}, outs), "stablehlo.multiply")
}

func TestStepsDoNotAllocate(t *testing.T) {
	const n = 3*grain + 1 // parallel path
	mk := func(e ir.ElemType) arg {
		ty := ir.Tensor(e, n)
		return arg{ty, make([]byte, ty.ByteSize())}
	}
	rp := ir.Attrs{"exponent_bits": ir.IntAttr{Value: 5}, "mantissa_bits": ir.IntAttr{Value: 3}}
	for _, c := range []struct {
		op    string
		attrs ir.Attrs
		out   ir.ElemType
		args  []arg
	}{
		{"add", nil, ir.BF16, []arg{mk(ir.BF16), mk(ir.BF16)}},
		{"multiply", nil, ir.F8E4M3FN, []arg{mk(ir.F8E4M3FN), mk(ir.F8E4M3FN)}},
		{"exponential", nil, ir.F32, []arg{mk(ir.F32)}},
		{"compare", cmpAttrs("LT", ""), ir.Pred, []arg{mk(ir.F16), mk(ir.F16)}},
		{"convert", nil, ir.S32, []arg{mk(ir.F32)}},
		{"convert", nil, ir.BF16, []arg{mk(ir.F64)}},
		{"convert", nil, ir.F8E5M2, []arg{mk(ir.S64)}},
		{"select", nil, ir.C128, []arg{scalarArg[uint8](ir.Pred, 1), mk(ir.C128), mk(ir.C128)}},
		{"clamp", nil, ir.F16, []arg{scalarArg[uint16](ir.F16, 0), mk(ir.F16), scalarArg[uint16](ir.F16, 0x3C00)}},
		{"shift_left", nil, ir.S4, []arg{mk(ir.S4), mk(ir.S4)}},
		{"reduce_precision", rp, ir.F16, []arg{mk(ir.F16)}},
		{"power", nil, ir.C64, []arg{mk(ir.C64), mk(ir.C64)}},
	} {
		step, err := lowerOp(&fakeCtx{}, c.op, c.attrs, ir.Tensor(c.out, n), c.args...)
		require.NoError(t, err, c.op)
		ins := make([][]byte, len(c.args))
		for i, a := range c.args {
			ins[i] = a.data
		}
		outs := [][]byte{make([]byte, ir.Tensor(c.out, n).ByteSize())}
		require.NoError(t, step(ins, outs))
		if !racedetect.Enabled {
			require.Zero(t, testing.AllocsPerRun(5, func() { _ = step(ins, outs) }), "%s -> %s", c.op, c.out)
		}
	}
}

func TestGrainByCost(t *testing.T) {
	n := 3 * costlyGrain
	ty := ir.Tensor(ir.F32, int64(n))
	in := arg{ty, make([]byte, ty.ByteSize())}
	ins, outs := [][]byte{in.data}, [][]byte{make([]byte, ty.ByteSize())}
	ctx := &fakeCtx{}
	step, err := lowerOp(ctx, "exponential", nil, ty, in)
	require.NoError(t, err)
	require.NoError(t, step(ins, outs))
	require.Equal(t, 3, ctx.chunks) // transcendental: small chunks
	ctx.chunks = 0
	step, err = lowerOp(ctx, "add", nil, ty, in, in)
	require.NoError(t, err)
	require.NoError(t, step([][]byte{in.data, in.data}, outs))
	require.Zero(t, ctx.chunks) // cheap: one goroutine's worth
}
