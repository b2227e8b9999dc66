package shape

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

func lowerErr(op *ir.Op) error {
	l, _ := lookup(op.Name)
	_, err := l(testCtxs[0], op)
	return err
}

func TestDynamicOpsWithStaticShapes(t *testing.T) {
	op := mkOp("stablehlo.dynamic_reshape", []ir.Type{ir.Tensor(ir.F32, 2, 3), ir.Tensor(ir.S32, 2)},
		[]ir.Type{ir.Tensor(ir.F32, 3, 2)}, nil)
	require.Equal(t, seqF32(6), runOp(t, testCtxs[0], op, seqF32(6), i32s(3, 2))[0])
	st := lower(t, testCtxs[0], op)
	require.Error(t, st([][]byte{seqF32(6), i32s(2, 3)}, [][]byte{make([]byte, 24)}))

	op = mkOp("stablehlo.dynamic_broadcast_in_dim", []ir.Type{ir.Tensor(ir.F32, 2), ir.Tensor(ir.S64, 2)},
		[]ir.Type{ir.Tensor(ir.F32, 2, 2)}, ir.Attrs{"broadcast_dimensions": i64a(1)})
	require.Equal(t, []float32{0, 1, 0, 1}, toF32(runOp(t, testCtxs[0], op, seqF32(2), i64s_(2, 2))[0]))

	op = mkOp("stablehlo.dynamic_iota", []ir.Type{ir.Tensor(ir.S32, 1)}, []ir.Type{ir.Tensor(ir.S32, 4)},
		ir.Attrs{"iota_dimension": ir.IntAttr{Value: 0}})
	require.Equal(t, []int32{0, 1, 2, 3}, toI32(runOp(t, testCtxs[0], op, i32s(4))[0]))

	op = mkOp("stablehlo.real_dynamic_slice", []ir.Type{ir.Tensor(ir.F32, 6), ir.Tensor(ir.S32, 1), ir.Tensor(ir.S32, 1), ir.Tensor(ir.S32, 1)},
		[]ir.Type{ir.Tensor(ir.F32, 2)}, nil)
	require.Equal(t, []float32{1, 4}, toF32(runOp(t, testCtxs[0], op, seqF32(6), i32s(1), i32s(6), i32s(3))[0]))
	st = lower(t, testCtxs[0], op)
	require.Error(t, st([][]byte{seqF32(6), i32s(0), i32s(6), i32s(1)}, [][]byte{make([]byte, 8)}))

	op = mkOp("stablehlo.dynamic_pad", []ir.Type{ir.Tensor(ir.F32, 2), ir.Tensor(ir.F32), ir.Tensor(ir.S32, 1), ir.Tensor(ir.S32, 1), ir.Tensor(ir.S32, 1)},
		[]ir.Type{ir.Tensor(ir.F32, 5)}, nil)
	require.Equal(t, []float32{9, 0, 9, 1, 9}, toF32(runOp(t, testCtxs[0], op, seqF32(2), f32s(9), i32s(1), i32s(1), i32s(1))[0]))
}
