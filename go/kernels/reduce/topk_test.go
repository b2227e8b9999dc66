package reduce

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

func TestTopK(t *testing.T) {
	nan := float32(math.NaN())
	negNaN := math.Float32frombits(0xffc00000)
	inf := float32(math.Inf(1))
	negZero := float32(math.Copysign(0, -1))
	x := []float32{1, nan, inf, negZero, 0, negNaN, 1, -inf}
	// As XLA:CPU returns for jax.lax.top_k(x, 8).
	wantIdx := []int32{1, 2, 0, 6, 4, 3, 7, 5}
	op := mkOp("chlo.top_k", []ir.Type{ir.Tensor(ir.F32, 8)}, []ir.Type{ir.Tensor(ir.F32, 8), ir.Tensor(ir.S32, 8)},
		ir.Attrs{"k": ir.IntAttr{Value: 8}})
	got := runOp(t, testCtxs[0], op, f32s(x...))
	require.Equal(t, wantIdx, toI32(got[1]))
	// Dynamic form, two rows, k = 2.
	op = mkOp("stablehlo.dynamic_top_k", []ir.Type{ir.Tensor(ir.S32, 2, 3), ir.Tensor(ir.S32)},
		[]ir.Type{ir.Tensor(ir.S32, 2, 2), ir.Tensor(ir.S32, 2, 2)}, nil)
	l, ok := lookupCustomCall("stablehlo.dynamic_top_k")
	require.True(t, ok)
	st, err := l(testCtxs[0], op)
	require.NoError(t, err)
	outs := [][]byte{make([]byte, 16), make([]byte, 16)}
	require.NoError(t, st([][]byte{i32s(3, -1, 3, 0, 9, -9), i32s(2)}, outs))
	require.Equal(t, []int32{3, 3, 9, 0}, toI32(outs[0]))
	require.Equal(t, []int32{0, 2, 1, 0}, toI32(outs[1]))
	require.Error(t, st([][]byte{i32s(3, -1, 3, 0, 9, -9), i32s(1)}, outs))
}
