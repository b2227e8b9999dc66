package compiler

import (
	"math"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// The expectations below are worked out by hand from the spec's formulas:
// quantize(x) = round_half_even(clamp(min, x/scale + zp, max)) and
// dequantize(q) = (q - zp) * scale.

func perTensor(scale float64, zp int64) *ir.Quant {
	return &ir.Quant{Expressed: ir.F32, Scales: []float64{scale}, ZeroPoints: []int64{zp}, Axis: -1, Min: -128, Max: 127}
}

func toI8(b []byte) []int8 {
	out := make([]int8, len(b))
	for i, v := range b {
		out[i] = int8(v)
	}
	return out
}

// Quantize rounds half to even after adding the zero point and clamps to
// the storage range; dequantize subtracts the zero point and scales.
func TestQuantizeDequantize(t *testing.T) {
	q := ir.Quantized(ir.S8, perTensor(0.5, -3), 5)
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(5)}, []ir.Type{q, f32t(5)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		x := b.v("stablehlo.uniform_quantize", q, nil, a[0])
		return []*ir.Value{x, b.v("stablehlo.uniform_dequantize", f32t(5), nil, x)}
	})
	out := run(t, compile(t, mb.m), f32s(0.25, 0.75, 100, -100, 1.25))
	// 0.25/0.5-3 = -2.5 → -2; 0.75/0.5-3 = -1.5 → -2; 197 → 127; -203 → -128; 2.5-3 = -0.5 → -0.
	require.Equal(t, []int8{-2, -2, 127, -128, 0}, toI8(out[0]))
	require.Equal(t, []float32{0.5, 0.5, 65, -62.5, 1.5}, toF32(out[1]))
}

// uniform_quantize of a quantized operand requantizes: dequantize, then
// quantize to the new parameters.
func TestRequantize(t *testing.T) {
	q1 := ir.Quantized(ir.S8, perTensor(0.5, 0), 2)
	q2 := ir.Quantized(ir.S8, perTensor(1, 10), 2)
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(2)}, []ir.Type{q2}, func(b *blkB, a []*ir.Value) []*ir.Value {
		x := b.v("stablehlo.uniform_quantize", q1, nil, a[0])
		return []*ir.Value{b.v("stablehlo.uniform_quantize", q2, nil, x)}
	})
	// [3, -1.5] → [6, -3] → [3, -1.5] → [13, 8.5 → 8].
	require.Equal(t, []int8{13, 8}, toI8(run(t, compile(t, mb.m), f32s(3, -1.5))[0]))
}

// add on quantized operands of different scales is dequantize, add in
// f32, quantize to the result's scale.
func TestQuantizedAdd(t *testing.T) {
	lq := ir.Quantized(ir.S8, perTensor(0.5, 0), 2)
	rq := ir.Quantized(ir.S8, perTensor(0.25, 0), 2)
	oq := ir.Quantized(ir.S8, perTensor(1, 0), 2)
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(2), f32t(2)}, []ir.Type{oq}, func(b *blkB, a []*ir.Value) []*ir.Value {
		l := b.v("stablehlo.uniform_quantize", lq, nil, a[0])
		r := b.v("stablehlo.uniform_quantize", rq, nil, a[1])
		return []*ir.Value{b.v("stablehlo.add", oq, nil, l, r)}
	})
	// lhs [1, 2.2] → [2, 4] = [1, 2]; rhs [1, 0.3] → [4, 1] = [1, 0.25];
	// sums [2, 2.25] → [2, 2].
	require.Equal(t, []int8{2, 2}, toI8(run(t, compile(t, mb.m), f32s(1, 2.2), f32s(1, 0.3))[0]))
}

// Per-axis parameters apply along the quantized dimension, and a transpose
// moves stored integers with that dimension.
func TestPerAxisQuantization(t *testing.T) {
	axis := func(a int) *ir.Quant {
		return &ir.Quant{Expressed: ir.F32, Scales: []float64{0.5, 0.25}, ZeroPoints: []int64{0, 1}, Axis: a, Min: -128, Max: 127}
	}
	q := ir.Quantized(ir.S8, axis(1), 2, 2)
	qt := ir.Quantized(ir.S8, axis(0), 2, 2)
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(2, 2)}, []ir.Type{q, f32t(2, 2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		x := b.v("stablehlo.uniform_quantize", q, nil, a[0])
		tr := b.v("stablehlo.transpose", qt, ir.Attrs{"permutation": ir.DenseI64Attr{Values: []int64{1, 0}}}, x)
		return []*ir.Value{x, b.v("stablehlo.uniform_dequantize", f32t(2, 2), nil, tr)}
	})
	out := run(t, compile(t, mb.m), f32s(1, 2, 3, 4))
	// Column 0 (scale 0.5, zp 0): 1 → 2, 3 → 6; column 1 (0.25, zp 1): 2 → 9, 4 → 17.
	require.Equal(t, []int8{2, 9, 6, 17}, toI8(out[0]))
	// Transposed, rows carry the parameters: [[2, 6], [9, 17]] → [[1, 3], [2, 4]].
	require.Equal(t, []float32{1, 3, 2, 4}, toF32(out[1]))
}

// A bound that rounds up in f32 (2^31 for i32) still saturates to the
// storage range.
func TestQuantizeSaturatesWideStorage(t *testing.T) {
	q := ir.Quantized(ir.S32, &ir.Quant{Expressed: ir.F32, Scales: []float64{1}, ZeroPoints: []int64{0}, Axis: -1, Min: math.MinInt32, Max: math.MaxInt32}, 3)
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(3)}, []ir.Type{q}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{b.v("stablehlo.uniform_quantize", q, nil, a[0])}
	})
	require.Equal(t, []int32{math.MaxInt32, math.MinInt32, 6}, toI32(run(t, compile(t, mb.m), f32s(3e9, -3e9, 6.5))[0])) // 6.5 rounds half to even
}

// reduce and reduce_window run on stored integers with a body that is a
// quantized add (dequantize, add, quantize). Halves add exactly, so any
// reduction order gives the hand-computed sums.
func TestQuantizedReductions(t *testing.T) {
	s := ir.Quantized(ir.S8, perTensor(0.5, -1))
	q := ir.Quantized(ir.S8, perTensor(0.5, -1), 4)
	w := ir.Quantized(ir.S8, perTensor(0.5, -1), 3)
	body := func(b *blkB) *ir.Region {
		return b.region([]ir.Type{s, s}, func(rb *blkB, args []*ir.Value) []*ir.Value {
			return []*ir.Value{rb.v("stablehlo.add", s, nil, args[0], args[1])}
		})
	}
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(4)}, []ir.Type{f32t(), f32t(3)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		x := b.v("stablehlo.uniform_quantize", q, nil, a[0])
		init := b.v("stablehlo.uniform_quantize", s, nil, b.f32c(nil, 0))
		red := b.op("stablehlo.reduce", []*ir.Value{x, init}, []ir.Type{s}, ir.Attrs{"dimensions": ir.DenseI64Attr{Values: []int64{0}}})
		red.AddRegion(body(b))
		win := b.op("stablehlo.reduce_window", []*ir.Value{x, init}, []ir.Type{w}, ir.Attrs{
			"window_dimensions": ir.DenseI64Attr{Values: []int64{2}}, "window_strides": ir.DenseI64Attr{Values: []int64{1}}})
		win.AddRegion(body(b))
		return []*ir.Value{
			b.v("stablehlo.uniform_dequantize", f32t(), nil, red.Result()),
			b.v("stablehlo.uniform_dequantize", f32t(3), nil, win.Result()),
		}
	})
	out := run(t, compile(t, mb.m), f32s(1, 2.5, -0.5, 3))
	require.Equal(t, []float32{6}, toF32(out[0]))
	require.Equal(t, []float32{3.5, 2, 2.5}, toF32(out[1]))
}

// select_and_scatter's two bodies are not supported on quantized tensors:
// an error naming the op.
func TestQuantizedSelectAndScatterIsAnError(t *testing.T) {
	s := ir.Quantized(ir.S8, perTensor(0.5, 0))
	q := ir.Quantized(ir.S8, perTensor(0.5, 0), 4)
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(4)}, []ir.Type{q}, func(b *blkB, a []*ir.Value) []*ir.Value {
		x := b.v("stablehlo.uniform_quantize", q, nil, a[0])
		src := b.v("stablehlo.uniform_quantize", ir.Quantized(ir.S8, perTensor(0.5, 0), 2), nil, b.f32c([]int64{2}, 1, 2))
		init := b.v("stablehlo.uniform_quantize", s, nil, b.f32c(nil, 0))
		op := b.op("stablehlo.select_and_scatter", []*ir.Value{x, src, init}, []ir.Type{q}, ir.Attrs{
			"window_dimensions": ir.DenseI64Attr{Values: []int64{2}}, "window_strides": ir.DenseI64Attr{Values: []int64{2}}})
		op.AddRegion(b.region([]ir.Type{s, s}, func(rb *blkB, args []*ir.Value) []*ir.Value {
			return []*ir.Value{rb.v("stablehlo.compare", ir.Tensor(ir.Pred), ir.Attrs{"comparison_direction": ir.EnumAttr{Kind: "comparison_direction", Value: "GE"}}, args[0], args[1])}
		}))
		op.AddRegion(b.region([]ir.Type{s, s}, func(rb *blkB, args []*ir.Value) []*ir.Value {
			return []*ir.Value{rb.v("stablehlo.add", s, nil, args[0], args[1])}
		}))
		return op.Results
	})
	_, err := CompileModule(mb.m, Options{})
	require.ErrorContains(t, err, "stablehlo.select_and_scatter")
}

// A quantized constant holds stored integers.
func TestQuantizedConstant(t *testing.T) {
	q := ir.Quantized(ir.S8, perTensor(0.25, 2), 3)
	mb := newMod()
	mb.fn("main", "public", nil, []ir.Type{f32t(3)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		c := b.constant(q, []byte{6, 0xfe, 2}) // 6, -2, 2
		return []*ir.Value{b.v("stablehlo.uniform_dequantize", f32t(3), nil, c)}
	})
	// (6-2)*0.25, (-2-2)*0.25, (2-2)*0.25
	require.Equal(t, []float32{1, -1, 0}, toF32(run(t, compile(t, mb.m))[0]))
}

// Where stored integers are not exact in the expressed type (i32 in f32),
// the zero point is subtracted in integers, before the one rounding:
// 2^24+5 - 5 = 2^24, where f32(2^24+5) - 5 would give 2^24-1.
func TestDequantizeWideStorageSubtractsExactly(t *testing.T) {
	q := ir.Quantized(ir.S32, &ir.Quant{Expressed: ir.F32, Scales: []float64{1}, ZeroPoints: []int64{5}, Axis: -1, Min: math.MinInt32, Max: math.MaxInt32}, 1)
	mb := newMod()
	mb.fn("main", "public", nil, []ir.Type{f32t(1)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		c := b.constant(q, i32s(1<<24+5))
		return []*ir.Value{b.v("stablehlo.uniform_dequantize", f32t(1), nil, c)}
	})
	require.Equal(t, []float32{1 << 24}, toF32(run(t, compile(t, mb.m))[0]))
}
