package elementwise

import (
	"math"
	"testing"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/internal/racedetect"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/floatconv"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/stretchr/testify/require"
)

func TestSubByteInts(t *testing.T) {
	s4 := ir.Tensor(ir.S4, 4)
	u4 := ir.Tensor(ir.U4, 4)
	a := vec[int8](ir.S4, 7, -8, -1, 3)
	b := vec[int8](ir.S4, 1, -1, 4, 2)
	require.Equal(t, []int8{-8, 7, 3, 5}, dec[int8](runOp(t, "add", nil, s4, a, b)))
	require.Equal(t, []int8{7, -8, -4, 6}, dec[int8](runOp(t, "multiply", nil, s4, a, b)))
	require.Equal(t, []int8{7, -8, 0, 1}, dec[int8](runOp(t, "divide", nil, s4, a, b)))
	require.Equal(t, []int8{-2, 0, 0, -4}, dec[int8](runOp(t, "shift_left", nil, s4, a, b)))
	require.Equal(t, []int8{3, 0, 0, 0}, dec[int8](runOp(t, "shift_right_logical", nil, s4, a, vec[int8](ir.S4, 1, -1, 4, 2))))
	require.Equal(t, []int8{3, -1, -1, 0}, dec[int8](runOp(t, "shift_right_arithmetic", nil, s4, a, b)))
	require.Equal(t, []int8{-7, -8, 1, -3}, dec[int8](runOp(t, "negate", nil, s4, a)))
	require.Equal(t, []int8{1, 0, 0, 2}, dec[int8](runOp(t, "count_leading_zeros", nil, s4, a)))
	ua := vec[uint8](ir.U4, 15, 0, 8, 3)
	ub := vec[uint8](ir.U4, 1, 1, 3, 0)
	require.Equal(t, []uint8{0, 1, 11, 3}, runOp(t, "add", nil, u4, ua, ub))
	require.Equal(t, []uint8{14, 15, 5, 3}, runOp(t, "subtract", nil, u4, ua, ub))
	require.Equal(t, []uint8{0, 15, 7, 12}, runOp(t, "not", nil, u4, ua))
	require.Equal(t, []uint8{15, 0, 15, 15}, runOp(t, "divide", nil, u4, ua, vec[uint8](ir.U4, 1, 2, 0, 0)))
	require.Equal(t, []uint8{15, 0, 15, 3}, runOp(t, "shift_right_arithmetic", nil, u4, ua, ub))
	// Conversions saturate (floats) or wrap (ints) at the logical width.
	require.Equal(t, []int8{7, -8, -1, 0}, dec[int8](runOp(t, "convert", nil, s4, vec(ir.F32, 100, -100, -1.5, nan32))))
	require.Equal(t, []int8{-8, 7, -1, 1}, dec[int8](runOp(t, "convert", nil, s4, vec[int32](ir.S32, 8, -9, 15, 17))))
	require.Equal(t, []uint8{0, 7, 15, 1}, runOp(t, "convert", nil, u4, vec[int32](ir.S32, 16, -9, -1, 17)))
	require.Equal(t, []uint8{3, 1, 3, 0}, runOp(t, "convert", nil, ir.Tensor(ir.U2, 4), vec(ir.F64, 1e9, 1.9, 3.0, -2.0)))
}

func TestTotalOrder(t *testing.T) {
	negNaN := math.Float64frombits(0xFFF8000000000000)
	vals := []float64{negNaN, math.Inf(-1), -1, negz64, 0, 1, math.Inf(1), nan64}
	// Every pair: LT in total order must equal index order.
	var a, b []float64
	var want []uint8
	for i := range vals {
		for j := range vals {
			a, b = append(a, vals[i]), append(b, vals[j])
			want = append(want, b2u(i < j))
		}
	}
	n := int64(len(a))
	p := ir.Tensor(ir.Pred, n)
	require.Equal(t, want, runOp(t, "compare", cmpAttrs("LT", "TOTALORDER"), p, vec(ir.F64, a...), vec(ir.F64, b...)))
	// Same through f32 and bf16 (emulated) storage.
	var a32, b32 []float32
	var abf, bbf []uint16
	for i := range a {
		a32, b32 = append(a32, float32(a[i])), append(b32, float32(b[i]))
		abf, bbf = append(abf, floatconv.F32ToBF16(float32(a[i]))), append(bbf, floatconv.F32ToBF16(float32(b[i])))
	}
	require.Equal(t, want, runOp(t, "compare", cmpAttrs("LT", "TOTALORDER"), p, vec(ir.F32, a32...), vec(ir.F32, b32...)))
	require.Equal(t, want, runOp(t, "compare", cmpAttrs("LT", "TOTALORDER"), p, vec(ir.BF16, abf...), vec(ir.BF16, bbf...)))
	// Complex: lexicographic on (real, imag).
	ca := vec(ir.C128, complex(1, 2), complex(1, 2), complex(negz64, 1), complex(nan64, 0))
	cb := vec(ir.C128, complex(1, 3), complex(0, 9), complex(0, 0), complex(nan64, 0))
	require.Equal(t, []uint8{1, 0, 1, 0}, runOp(t, "compare", cmpAttrs("LT", "TOTALORDER"), ir.Tensor(ir.Pred, 4), ca, cb))
	require.Equal(t, []uint8{1, 0, 0, 0}, runOp(t, "compare", cmpAttrs("LT", "FLOAT"), ir.Tensor(ir.Pred, 4), ca, cb))
	require.Equal(t, []uint8{0, 0, 1, 0}, runOp(t, "compare", cmpAttrs("EQ", "FLOAT"), ir.Tensor(ir.Pred, 4), vec(ir.C128, complex(1, 2), complex(1, 2), complex(negz64, 0), complex(nan64, 0)), vec(ir.C128, complex(1, 3), complex(0, 2), complex(0, 0), complex(nan64, 0))))
	_, err := tryOp("compare", cmpAttrs("LT", "TOTALORDER"), ir.Tensor(ir.Pred, 3), vec[int32](ir.S32, 1, 2, 3), vec[int32](ir.S32, 1, 2, 3))
	require.Error(t, err)
	_, err = tryOp("compare", cmpAttrs("XX", ""), ir.Tensor(ir.Pred, 3), vec[int32](ir.S32, 1, 2, 3), vec[int32](ir.S32, 1, 2, 3))
	require.ErrorContains(t, err, "XX")
}

func TestReducePrecisionInterpreterCases(t *testing.T) {
	// From the reference interpreter's reduce_precision tests.
	attrs := func(e, m int64) ir.Attrs {
		return ir.Attrs{"exponent_bits": ir.IntAttr{Value: e, Type: ir.S32}, "mantissa_bits": ir.IntAttr{Value: m, Type: ir.S32}}
	}
	in := []uint64{0x7FF0000000000000, 0x7FFFFFFFFFFFFFFF, 0x0000000000000001, 0, math.Float64bits(65505), math.Float64bits(65520)}
	got := dec[uint64](runOp(t, "reduce_precision", attrs(5, 10), ir.Tensor(ir.F64, 6), vec(ir.F64, in...)))
	require.Equal(t, []uint64{0x7FF0000000000000, 0x7FFFFFFFFFFFFFFF, 0, 0, math.Float64bits(65504), 0x7FF0000000000000}, got)
	got = dec[uint64](runOp(t, "reduce_precision", attrs(5, 0), ir.Tensor(ir.F64), scalarArg(ir.F64, uint64(0x7FFFFFFFFFFFFFFF))))
	require.Equal(t, []uint64{0x7FF0000000000000}, got)
	got32 := dec[float32](runOp(t, "reduce_precision", attrs(8, 7), ir.Tensor(ir.F32, 3), vec[float32](ir.F32, 1+1.0/256, 1+3.0/256, 1+1.0/256+1.0/65536)))
	require.Equal(t, []float32{1, 1 + 4.0/256, 1 + 2.0/256}, got32)
	_, err := tryOp("reduce_precision", nil, ir.Tensor(ir.F32, 1), vec[float32](ir.F32, 1))
	require.ErrorContains(t, err, "exponent_bits")
}

func TestBitcastPacked(t *testing.T) {
	// f4E2M1FN codes to u4 and back, i8 pairs into i16, shape rules.
	codes := vec[uint8](ir.F4E2M1FN, 0x0, 0x7, 0x8, 0xF)
	require.Equal(t, []uint8{0, 7, 8, 15}, runOp(t, "bitcast_convert", nil, ir.Tensor(ir.U4, 4), codes))
	require.Equal(t, []int8{0, 7, -8, -1}, dec[int8](runOp(t, "bitcast_convert", nil, ir.Tensor(ir.S4, 4), codes)))
	require.Equal(t, []uint8{0xF, 0x8}, runOp(t, "bitcast_convert", nil, ir.Tensor(ir.F4E2M1FN, 2), vec[int8](ir.S4, -1, -8)))
	pairs := arg{ir.Tensor(ir.S4, 2, 2), enc[int8](1, -1, 7, -8)}
	require.Equal(t, []uint8{0xF1, 0x87}, runOp(t, "bitcast_convert", nil, ir.Tensor(ir.U8, 2), pairs))
	require.Equal(t, []int16{0x0201, -1}, dec[int16](runOp(t, "bitcast_convert", nil, ir.Tensor(ir.S16, 2), arg{ir.Tensor(ir.U8, 2, 2), enc[uint8](1, 2, 0xFF, 0xFF)})))
	_, err := tryOp("bitcast_convert", nil, ir.Tensor(ir.S16, 3), arg{ir.Tensor(ir.U8, 2, 2), enc[uint8](1, 2, 3, 4)})
	require.Error(t, err)
	_, err = tryOp("bitcast_convert", nil, ir.Tensor(ir.U8, 4), vec[uint32](ir.U32, 1, 2, 3, 4))
	require.Error(t, err)
}

// addRegion is a fake compiled region adding two f32 scalars.
type addRegion struct{ calls int }

func (r *addRegion) Call(ins, outs [][]byte) error {
	r.calls++
	byteview.As[float32](outs[0])[0] = byteview.As[float32](ins[0])[0] + byteview.As[float32](ins[1])[0]
	return nil
}

func TestMap(t *testing.T) {
	ty := ir.Tensor(ir.F32, 3)
	body := ir.NewBlock(ir.Tensor(ir.F32), ir.Tensor(ir.F32))
	a, b := &ir.Value{Type: ty}, &ir.Value{Type: ty}
	op := ir.NewOp("stablehlo.map", []*ir.Value{a, b}, []ir.Type{ty}, ir.Attrs{"dimensions": ir.DenseI64Attr{Values: []int64{0}}})
	op.AddRegion(ir.NewRegion(body))
	reg := &addRegion{}
	ctx := &fakeCtx{compile: func(*ir.Region) (kernel.Callable, error) { return reg, nil }}
	l, ok := kernel.Lookup("stablehlo.map")
	require.True(t, ok)
	step, err := l(ctx, op)
	require.NoError(t, err)
	out := make([]byte, 12)
	require.NoError(t, step([][]byte{enc[float32](1, 2, 3), enc[float32](10, 20, 30)}, [][]byte{out}))
	require.Equal(t, []float32{11, 22, 33}, dec[float32](out))
	require.Equal(t, 3, reg.calls)
	ins := [][]byte{enc[float32](1, 2, 3), enc[float32](10, 20, 30)}
	outs := [][]byte{out}
	if !racedetect.Enabled {
		require.Zero(t, testing.AllocsPerRun(10, func() { _ = step(ins, outs) }))
	}
	// Without a region compiler the error surfaces.
	_, err = l(&fakeCtx{}, op)
	require.Error(t, err)
	op.Attrs["dimensions"] = ir.DenseI64Attr{Values: []int64{1}}
	_, err = l(ctx, op)
	require.ErrorContains(t, err, "dimensions")
}

func TestEmulatedBroadcastAndSelect(t *testing.T) {
	bf := func(vs ...float32) []uint16 {
		out := make([]uint16, len(vs))
		for i, v := range vs {
			out[i] = floatconv.F32ToBF16(v)
		}
		return out
	}
	x := vec(ir.BF16, bf(-3, 0.5, 7, nan32)...)
	got := dec[uint16](runOp(t, "clamp", nil, ir.Tensor(ir.BF16, 4), scalarArg(ir.BF16, floatconv.F32ToBF16(0)), x, scalarArg(ir.BF16, floatconv.F32ToBF16(2))))
	require.Equal(t, bf(0, 0.5, 2), got[:3])
	require.True(t, math.IsNaN(float64(floatconv.BF16ToF32(got[3]))))
	sel := dec[uint16](runOp(t, "select", nil, ir.Tensor(ir.BF16, 4), vec[uint8](ir.Pred, 1, 0, 0, 1), x, vec(ir.BF16, bf(1, 2, 3, 4)...)))
	require.Equal(t, []uint16{floatconv.F32ToBF16(-3), floatconv.F32ToBF16(2), floatconv.F32ToBF16(3), got[3]}, sel)
	c := vec(ir.C128, complex(1, 2), complex(3, 4))
	require.Equal(t, []complex128{complex(5, 6), complex(3, 4)}, dec[complex128](runOp(t, "select", nil, ir.Tensor(ir.C128, 2), vec[uint8](ir.Pred, 0, 1), vec(ir.C128, complex(1, 1), complex(3, 4)), arg{c.t, enc(complex(5, 6), complex(7, 8))})))
	// f16 arithmetic rounds once from f32: 2049 is not representable (ties to even → 2048).
	h := func(v float32) uint16 { return floatconv.F32ToF16(v) }
	require.Equal(t, []uint16{h(2048), h(2052)}, dec[uint16](runOp(t, "add", nil, ir.Tensor(ir.F16, 2), vec(ir.F16, h(2048), h(2050)), vec(ir.F16, h(1), h(1)))))
}

func TestComplexSpecials(t *testing.T) {
	c := ir.Tensor(ir.C128, 4)
	x := vec(ir.C128, 0, complex(3, 4), complex(inf64, 1), complex(0, -2))
	got := dec[complex128](runOp(t, "sign", nil, c, x))
	require.Equal(t, complex128(0), got[0])
	require.Equal(t, complex(0.6, 0.8), got[1])
	require.True(t, math.IsNaN(real(got[2])))
	require.Equal(t, complex(0, -1), got[3])
	require.Equal(t, []float64{0, 5, inf64, 2}, dec[float64](runOp(t, "abs", nil, ir.Tensor(ir.F64, 4), x)))
	require.Equal(t, []float64{0, 3, inf64, 0}, dec[float64](runOp(t, "real", nil, ir.Tensor(ir.F64, 4), x)))
	require.Equal(t, []float64{0, 4, 1, -2}, dec[float64](runOp(t, "imag", nil, ir.Tensor(ir.F64, 4), x)))
	require.Equal(t, []float32{0, 0}, dec[float32](runOp(t, "imag", nil, ir.Tensor(ir.F32, 2), vec[float32](ir.F32, 1, 2))))
	require.Equal(t, []complex64{complex(1, 3), complex(2, 4)}, dec[complex64](runOp(t, "complex", nil, ir.Tensor(ir.C64, 2), vec[float32](ir.F32, 1, 2), vec[float32](ir.F32, 3, 4))))
	mx := dec[complex128](runOp(t, "maximum", nil, ir.Tensor(ir.C128, 3), vec(ir.C128, complex(1, 2), complex(1, 7), complex(0, 1.5)), vec(ir.C128, complex(7, 1), complex(1, 2), complex(negz64, 2.5))))
	require.Equal(t, []complex128{complex(7, 1), complex(1, 7), complex(negz64, 2.5)}, mx)
	_, err := tryOp("abs", nil, ir.Tensor(ir.F32, 4), x)
	require.Error(t, err)
	_, err = tryOp("atan2", nil, c, x, x)
	require.NoError(t, err)
	// Large arguments where naive formulas give 0·∞ (values from XLA's CPU backend).
	big := vec(ir.C128, complex(0, 800), complex(700, 1), complex(1e308, 1e308))
	c3 := ir.Tensor(ir.C128, 3)
	gotSin := dec[complex128](runOp(t, "sine", nil, c3, big))
	require.Equal(t, complex(0, inf64), gotSin[0])
	gotCos := dec[complex128](runOp(t, "cosine", nil, c3, big))
	require.Equal(t, inf64, real(gotCos[0]))
	require.Zero(t, imag(gotCos[0]))
	gotTan := dec[complex128](runOp(t, "tan", nil, c3, big))
	require.Equal(t, complex(0, 1), gotTan[0])
	require.Equal(t, 1.0, imag(gotTan[2]))
	gotTanh := dec[complex128](runOp(t, "tanh", nil, c3, big))
	require.Equal(t, complex(1, 0), gotTanh[1])
	require.Equal(t, 1.0, real(gotTanh[2]))
	// Principal cube root (reference interpreter's case).
	cb := dec[complex128](runOp(t, "cbrt", nil, ir.Tensor(ir.C128), scalarArg(ir.C128, complex(3, 4))))
	require.InDelta(t, 1.6289371459221759, real(cb[0]), 1e-15)
	require.InDelta(t, 0.5201745023045458, imag(cb[0]), 1e-15)
	_, err = tryOp("is_finite", nil, ir.Tensor(ir.Pred, 4), x)
	require.ErrorContains(t, err, "complex<f64>")
}

func TestLoweringErrors(t *testing.T) {
	f3 := vec[float32](ir.F32, 1, 2, 3)
	_, err := tryOp("add", nil, ir.Tensor(ir.F32, 3), f3, vec[float64](ir.F64, 1, 2, 3))
	require.ErrorContains(t, err, "stablehlo.add")
	_, err = tryOp("add", nil, ir.Tensor(ir.F32, 3), f3, vec[float32](ir.F32, 1, 2))
	require.Error(t, err)
	_, err = tryOp("select", nil, ir.Tensor(ir.F32, 3), vec[uint8](ir.Pred, 1, 0), f3, f3)
	require.Error(t, err)
	_, err = tryOp("clamp", nil, ir.Tensor(ir.F32, 3), f3, scalarArg[float32](ir.F32, 1), f3)
	require.Error(t, err)
	_, err = tryOp("popcnt", nil, ir.Tensor(ir.F32, 3), f3)
	require.Error(t, err)
	_, err = tryOp("shift_left", nil, ir.Tensor(ir.F32, 3), f3, f3)
	require.Error(t, err)
	_, err = tryOp("not", nil, ir.Tensor(ir.F32, 3), f3)
	require.Error(t, err)
}

func TestEveryOpRegistered(t *testing.T) {
	want := opNames(unaryOps, binaryOps)
	want = append(want, "compare", "select", "clamp", "convert", "real", "imag", "complex", "is_finite",
		"bitcast_convert", "reduce_precision", "map")
	for _, n := range want {
		_, ok := kernel.Lookup("stablehlo." + n)
		require.True(t, ok, n)
	}
}

// TestTotalOrderEveryDir checks every direction of the total-order compare
// on values listed in total order (NaN payloads, subnormals, signed zeros),
// over more pairs than one key block, in f64 and f32.
func TestTotalOrderEveryDir(t *testing.T) {
	vals := []float64{
		math.Float64frombits(0xFFFFFFFFFFFFFFFF), math.Float64frombits(0xFFF8000000000000),
		math.Float64frombits(0xFFF0000000000001), math.Inf(-1), -math.MaxFloat32, -1.5, -1,
		-math.SmallestNonzeroFloat32, negz64, 0, math.SmallestNonzeroFloat32, 1, 1.5,
		math.MaxFloat32, math.Inf(1), math.Float64frombits(0x7FF0000000000001), nan64,
		math.Float64frombits(0x7FFFFFFFFFFFFFFF),
	}
	f32bits := func(v float64) float32 {
		// NaN payloads keep their sign and top payload bits in f32.
		if v != v {
			b := math.Float64bits(v)
			return math.Float32frombits(uint32(b>>32)&0x80000000 | 0x7F800000 | uint32(b>>29)&0x7FFFFF | 1)
		}
		return float32(v)
	}
	var ia, ib []int
	for r := 0; r < 3; r++ {
		for i := range vals {
			for j := range vals {
				ia, ib = append(ia, i), append(ib, j)
			}
		}
	}
	n := int64(len(ia))
	require.Greater(t, n, int64(256))
	for _, dir := range []string{"EQ", "NE", "LT", "LE", "GT", "GE"} {
		want := make([]uint8, n)
		a64, b64 := make([]float64, n), make([]float64, n)
		a32, b32 := make([]float32, n), make([]float32, n)
		for k := range ia {
			want[k] = b2u(holds(dir, cmp3(int64(ia[k]), int64(ib[k]))))
			a64[k], b64[k] = vals[ia[k]], vals[ib[k]]
			a32[k], b32[k] = f32bits(vals[ia[k]]), f32bits(vals[ib[k]])
		}
		p := ir.Tensor(ir.Pred, n)
		require.Equal(t, want, runOp(t, "compare", cmpAttrs(dir, "TOTALORDER"), p, vec(ir.F64, a64...), vec(ir.F64, b64...)), dir+" f64")
		require.Equal(t, want, runOp(t, "compare", cmpAttrs(dir, "TOTALORDER"), p, vec(ir.F32, a32...), vec(ir.F32, b32...)), dir+" f32")
	}
}
