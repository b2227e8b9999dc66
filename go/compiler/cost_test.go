package compiler

import (
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

func costOf(t *testing.T, m *ir.Module, opts Options) Cost {
	t.Helper()
	e, err := CompileModule(m, opts)
	require.NoError(t, err)
	return e.Cost()
}

func propMap(c Cost) map[string]float64 {
	out := map[string]float64{}
	for _, p := range c.Properties() {
		_, dup := out[p.Name]
		if dup {
			panic("duplicate property " + p.Name)
		}
		out[p.Name] = p.Value
	}
	return out
}

func TestCostOfMatmul(t *testing.T) {
	needOps(t, "stablehlo.dot_general")
	const m, k, n = 7, 5, 3
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(m, k), f32t(k, n)}, []ir.Type{f32t(m, n)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{b.v("stablehlo.dot_general", f32t(m, n), ir.Attrs{
			"lhs_contracting_dimensions": ir.DenseI64Attr{Values: []int64{1}},
			"rhs_contracting_dimensions": ir.DenseI64Attr{Values: []int64{0}},
		}, a[0], a[1])}
	})
	p := propMap(costOf(t, mb.m, Options{}))
	require.Equal(t, float64(2*m*n*k), p["flops"])
	require.Equal(t, 0.0, p["transcendentals"])
	require.Equal(t, float64(4*m*k), p["bytes accessed0{}"])
	require.Equal(t, float64(4*k*n), p["bytes accessed1{}"])
	require.Equal(t, float64(4*m*n), p["bytes accessedout{}"])
	require.Equal(t, float64(4*(m*k+k*n+m*n)), p["bytes accessed"])
	require.Equal(t, 1.0, p["utilization0{}"])
}

func TestCostOfTranscendentalsAndFusion(t *testing.T) {
	needOps(t, "stablehlo.exponential", "stablehlo.tanh", "stablehlo.multiply", "stablehlo.add")
	const n = 10
	// exp(x) * tanh(x) + x: two transcendentals and two flops per element,
	// fused or not.
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(n)}, []ir.Type{f32t(n)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		e := b.v("stablehlo.exponential", f32t(n), nil, a[0])
		th := b.v("stablehlo.tanh", f32t(n), nil, a[0])
		return []*ir.Value{b.hlo("add", b.hlo("multiply", e, th), a[0])}
	})
	for _, fuse := range []bool{false, true} {
		c := costOf(t, mb.m, Options{NoFuse: !fuse})
		require.Equal(t, float64(2*n), c.Transcendentals, "fused %v", fuse)
		require.Equal(t, float64(2*n), c.Flops, "fused %v", fuse)
		if fuse {
			// One step reads x once and writes the result.
			require.Equal(t, float64(2*4*n), c.Bytes)
		} else {
			// exp and tanh read x (1 operand), multiply and add read two.
			require.Equal(t, float64(4*n*(2*2+2*3)), c.Bytes)
			require.Equal(t, []float64{4 * 4 * n, 2 * 4 * n}, c.OperandBytes)
		}
	}
}

func TestCostOfReduceWhileAndSlice(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.reduce", "stablehlo.slice", "stablehlo.compare")
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(4, 6)}, []ir.Type{f32t(4), f32t(2, 3)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		red := b.op("stablehlo.reduce", []*ir.Value{a[0], b.f32c(nil, 0)}, []ir.Type{f32t(4)},
			ir.Attrs{"dimensions": ir.DenseI64Attr{Values: []int64{1}}})
		red.AddRegion(b.region([]ir.Type{f32t(), f32t()}, func(rb *blkB, x []*ir.Value) []*ir.Value {
			return []*ir.Value{rb.hlo("add", x[0], x[1])}
		}))
		sl := b.v("stablehlo.slice", f32t(2, 3), ir.Attrs{
			"start_indices": ir.DenseI64Attr{Values: []int64{1, 2}},
			"limit_indices": ir.DenseI64Attr{Values: []int64{3, 5}},
			"strides":       ir.DenseI64Attr{Values: []int64{1, 1}},
		}, a[0])
		// A loop doubling the slice three times counts one iteration:
		// the compare and the add of the counter, the add of the values.
		r := b.while([]*ir.Value{b.i32c(0), sl},
			func(rb *blkB, c []*ir.Value) *ir.Value { return rb.cmp("LT", c[0], rb.i32c(3)) },
			func(rb *blkB, c []*ir.Value) []*ir.Value {
				return []*ir.Value{rb.hlo("add", c[0], rb.i32c(1)), rb.hlo("add", c[1], c[1])}
			})
		return []*ir.Value{red.Results[0], r[1]}
	})
	c := costOf(t, mb.m, Options{NoFold: true})
	// reduce: 24 inputs into 4 results, 20 adds; loop: compare, counter
	// add, 6 adds.
	require.Equal(t, float64(20+1+1+6), c.Flops)
}

func TestCostOfSliceCountsTheBytesItCopies(t *testing.T) {
	needOps(t, "stablehlo.slice")
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(4, 6)}, []ir.Type{f32t(2, 3)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{b.v("stablehlo.slice", f32t(2, 3), ir.Attrs{
			"start_indices": ir.DenseI64Attr{Values: []int64{1, 2}},
			"limit_indices": ir.DenseI64Attr{Values: []int64{3, 5}},
			"strides":       ir.DenseI64Attr{Values: []int64{1, 1}},
		}, a[0])}
	})
	p := propMap(costOf(t, mb.m, Options{}))
	// 6 of the operand's 24 elements.
	require.Equal(t, 24.0, p["bytes accessed0{}"])
	require.Equal(t, 0.25, p["utilization0{}"])
	require.Equal(t, 24.0, p["bytes accessedout{}"])
	require.Equal(t, 48.0, p["bytes accessed"])
	require.Equal(t, 0.0, p["flops"])
}

func TestCostOfConvolutionCountsValidTaps(t *testing.T) {
	needOps(t, "stablehlo.convolution")
	// 1-D, batch 2, 3 input and 4 output features, width 5, kernel 3,
	// padding 1 on both sides: of the 5·3 output/tap pairs, the two
	// taps that fall in the padding at each end do not count.
	mb := newMod()
	lt, rt, ot := f32t(2, 3, 5), f32t(4, 3, 3), f32t(2, 4, 5)
	mb.fn("main", "public", []ir.Type{lt, rt}, []ir.Type{ot}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{b.v("stablehlo.convolution", ot, ir.Attrs{
			"input_batch_dimension":           ir.IntAttr{Value: 0},
			"input_feature_dimension":         ir.IntAttr{Value: 1},
			"input_spatial_dimensions":        ir.DenseI64Attr{Values: []int64{2}},
			"kernel_output_feature_dimension": ir.IntAttr{Value: 0},
			"kernel_input_feature_dimension":  ir.IntAttr{Value: 1},
			"kernel_spatial_dimensions":       ir.DenseI64Attr{Values: []int64{2}},
			"output_batch_dimension":          ir.IntAttr{Value: 0},
			"output_feature_dimension":        ir.IntAttr{Value: 1},
			"output_spatial_dimensions":       ir.DenseI64Attr{Values: []int64{2}},
			"padding":                         ir.DenseI64Attr{Values: []int64{1, 1}},
			"feature_group_count":             ir.IntAttr{Value: 1},
			"batch_group_count":               ir.IntAttr{Value: 1},
		}, a[0], a[1])}
	})
	c := costOf(t, mb.m, Options{})
	require.Equal(t, float64(2*2*3*4*(5*3-2)), c.Flops)
}
