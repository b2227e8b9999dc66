package shape

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	_ "github.com/gojax/gojax/go/kernels/linalg" // stablehlo.convolution, which dynamic_conv delegates to
)

// dynamicConvOp is the interpreter's dynamic_conv test: a 1x4x4x1 image,
// a 3x3 all-ones kernel, lhs dilation 2, stride 4, padding from an operand.
func dynamicConvOp() *ir.Op {
	return mkOp("stablehlo.dynamic_conv",
		[]ir.Type{ir.Tensor(ir.S64, 1, 4, 4, 1), ir.Tensor(ir.S64, 3, 3, 1, 1), ir.Tensor(ir.S64, 2, 2)},
		[]ir.Type{ir.Tensor(ir.S64, 1, 2, 2, 1)}, ir.Attrs{
			"input_batch_dimension":           ir.IntAttr{Value: 0, Type: ir.S64},
			"input_feature_dimension":         ir.IntAttr{Value: 3, Type: ir.S64},
			"input_spatial_dimensions":        i64a(1, 2),
			"kernel_input_feature_dimension":  ir.IntAttr{Value: 2, Type: ir.S64},
			"kernel_output_feature_dimension": ir.IntAttr{Value: 3, Type: ir.S64},
			"kernel_spatial_dimensions":       i64a(0, 1),
			"output_batch_dimension":          ir.IntAttr{Value: 0, Type: ir.S64},
			"output_feature_dimension":        ir.IntAttr{Value: 3, Type: ir.S64},
			"output_spatial_dimensions":       i64a(1, 2),
			"window_strides":                  i64a(4, 4),
			"lhs_dilation":                    i64a(2, 2),
			"feature_group_count":             ir.IntAttr{Value: 1, Type: ir.S64},
			"batch_group_count":               ir.IntAttr{Value: 1, Type: ir.S64},
		})
}

func TestDynamicConv(t *testing.T) {
	lhs := i64s_(1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17)
	rhs := i64s_(1, 1, 1, 1, 1, 1, 1, 1, 1)
	want := i64s_(1, 5, 10, 14)
	t.Run("runtime padding", func(t *testing.T) {
		for _, ctx := range testCtxs {
			st := lower(t, ctx, dynamicConvOp())
			out := [][]byte{make([]byte, 32)}
			require.NoError(t, st([][]byte{lhs, rhs, i64s_(1, 1, 1, 1)}, out))
			require.Equal(t, want, out[0])
			// Other padding, same result shape: low 0 shifts the windows.
			require.NoError(t, st([][]byte{lhs, rhs, i64s_(0, 2, 0, 2)}, out))
			require.Equal(t, i64s_(1+2+3+4, 5+6+7+8, 10+11+12+13, 14+15+16+17), out[0])
			// Padding that does not give the static result shape fails.
			require.ErrorContains(t, st([][]byte{lhs, rhs, i64s_(5, 5, 1, 1)}, out), "padding [5 5 1 1]")
		}
	})
	t.Run("constant padding", func(t *testing.T) {
		op := dynamicConvOp()
		c := ir.NewOp("stablehlo.constant", nil, []ir.Type{ir.Tensor(ir.S64, 2, 2)},
			ir.Attrs{"value": &ir.ElementsAttr{Type: ir.Tensor(ir.S64, 2, 2), Data: i64s_(1, 1, 1, 1)}})
		op.Operands[2] = c.Result()
		got := runOp(t, testCtxs[0], op, lhs, rhs, nil)
		require.Equal(t, want, got[0])
	})
	t.Run("bad padding operand", func(t *testing.T) {
		op := dynamicConvOp()
		op.Operands[2] = val(ir.Tensor(ir.S64, 4))
		l, _ := lookup("stablehlo.dynamic_conv")
		_, err := l(testCtxs[0], op)
		require.ErrorContains(t, err, "want a 2x2 integer tensor")
	})
}
