package collective

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// oneProcess is a kernel.Context outside any manual computation.
type oneProcess struct{}

func (oneProcess) CompileRegion(*ir.Region) (kernel.Callable, error) { return nil, nil }
func (oneProcess) Parallel(n, _ int, fn func(lo, hi int))            { fn(0, n) }

func mkOp(name string, operands, results []ir.Type, attrs ir.Attrs) *ir.Op {
	vals := make([]*ir.Value, len(operands))
	for i, t := range operands {
		vals[i] = &ir.Value{Type: t}
	}
	return ir.NewOp(name, vals, results, attrs)
}

func f32s(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func i64s(v ...int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

func run(t *testing.T, op *ir.Op, ins ...[]byte) [][]byte {
	l, ok := kernel.Lookup(op.Name)
	require.True(t, ok, op.Name)
	step, err := l(oneProcess{}, op)
	require.NoError(t, err)
	outs := make([][]byte, len(op.Results))
	for i, r := range op.Results {
		outs[i] = make([]byte, r.Tensor().ByteSize())
	}
	require.NoError(t, step(ins, outs))
	return outs
}

func lowerErr(op *ir.Op) error {
	l, _ := kernel.Lookup(op.Name)
	_, err := l(oneProcess{}, op)
	return err
}

// Outside a manual computation there is one process: collectives copy, and
// a group naming another process is a compile error.
func TestCollectivesSingleProcess(t *testing.T) {
	groups := &ir.ElementsAttr{Type: ir.Tensor(ir.S64, 1, 1), Data: i64s(0)}
	f3 := []ir.Type{ir.Tensor(ir.F32, 3)}
	for _, name := range []string{"stablehlo.all_reduce", "stablehlo.all_gather", "stablehlo.reduce_scatter",
		"stablehlo.all_to_all", "stablehlo.collective_broadcast", "stablehlo.collective_reduce", "stablehlo.cross-replica-sum"} {
		op := mkOp(name, f3, f3, ir.Attrs{"replica_groups": groups, "split_count": ir.IntAttr{Value: 1},
			"all_gather_dim": ir.IntAttr{Value: 0}, "scatter_dimension": ir.IntAttr{Value: 0},
			"split_dimension": ir.IntAttr{Value: 0}, "concat_dimension": ir.IntAttr{Value: 0}})
		require.Equal(t, f32s(1, 2, 3), run(t, op, f32s(1, 2, 3))[0], name)
		bad := mkOp(name, f3, f3, ir.Attrs{"replica_groups": &ir.ElementsAttr{Type: ir.Tensor(ir.S64, 1, 2), Data: i64s(0, 1)}})
		require.ErrorContains(t, lowerErr(bad), "single process", name)
	}
	// all_gather that would grow the result needs several processes.
	op := mkOp("stablehlo.all_gather", f3, []ir.Type{ir.Tensor(ir.F32, 6)}, ir.Attrs{"all_gather_dim": ir.IntAttr{Value: 0}})
	require.Error(t, lowerErr(op))
	// collective_permute: 0->0 copies, no pairs gives zeros, 0->1 is an error.
	f2 := []ir.Type{ir.Tensor(ir.F32, 2)}
	op = mkOp("stablehlo.collective_permute", f2, f2,
		ir.Attrs{"source_target_pairs": &ir.ElementsAttr{Type: ir.Tensor(ir.S64, 1, 2), Data: i64s(0, 0)}})
	require.Equal(t, f32s(4, 5), run(t, op, f32s(4, 5))[0])
	op = mkOp("stablehlo.collective_permute", f2, f2, ir.Attrs{"source_target_pairs": &ir.ElementsAttr{Type: ir.Tensor(ir.S64, 0, 2)}})
	require.Equal(t, f32s(0, 0), run(t, op, f32s(4, 5))[0])
	op = mkOp("stablehlo.collective_permute", f2, f2,
		ir.Attrs{"source_target_pairs": &ir.ElementsAttr{Type: ir.Tensor(ir.S64, 1, 2), Data: i64s(0, 1)}})
	require.ErrorContains(t, lowerErr(op), "single process")
	for _, name := range []string{"stablehlo.replica_id", "stablehlo.partition_id"} {
		op := mkOp(name, nil, []ir.Type{ir.Tensor(ir.U32)}, nil)
		require.Equal(t, []byte{0, 0, 0, 0}, run(t, op)[0])
	}
	// A manual computation needs the compiler (partitioned compilation).
	mc := mkOp("sdy.manual_computation", f2, f2, nil)
	require.ErrorContains(t, lowerErr(mc), "partitioned compilation")
}
