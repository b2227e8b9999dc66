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

// gridProcess is a kernel.Context for one process of a registered grid.
type gridProcess struct{ part *kernel.Partition }

func (gridProcess) CompileRegion(*ir.Region) (kernel.Callable, error) { return nil, nil }
func (gridProcess) Parallel(n, _ int, fn func(lo, hi int))            { fn(0, n) }
func (g gridProcess) Partition() *kernel.Partition                    { return g.part }
func (gridProcess) CompileRegionAs(*ir.Region, *kernel.Partition) (kernel.Callable, error) {
	return nil, nil
}

// runGrid lowers op for every process of a replicas x partitions grid, runs
// them concurrently with ins[i] as process i's operand and returns each
// process's result.
func runGrid(t *testing.T, replicas, partitions int, op *ir.Op, ins [][]byte) [][]byte {
	t.Helper()
	n := replicas * partitions
	meet := kernel.NewRendezvous(n)
	defer RegisterGrid(meet, Grid{Replicas: replicas, Partitions: partitions})()
	l, ok := kernel.Lookup(op.Name)
	require.True(t, ok, op.Name)
	outs := make([][]byte, n)
	errs := make([]error, n)
	done := make(chan int)
	for i := 0; i < n; i++ {
		step, err := l(gridProcess{&kernel.Partition{Self: i, Count: n, Meet: meet}}, op)
		require.NoError(t, err, "process %d", i)
		outs[i] = make([]byte, op.Results[0].Tensor().ByteSize())
		go func(i int) {
			var in [][]byte
			if ins != nil {
				in = [][]byte{ins[i]}
			}
			errs[i] = step(in, [][]byte{outs[i]})
			done <- i
		}(i)
	}
	for range n {
		<-done
	}
	for i, err := range errs {
		require.NoError(t, err, "process %d", i)
	}
	return outs
}

// Replica and partition ids as the StableHLO spec defines them for a grid of
// whole-program processes (the interpreter's run_parallel).
func TestCollectivesOnAGrid(t *testing.T) {
	u32 := []ir.Type{ir.Tensor(ir.U32)}
	rid := runGrid(t, 2, 3, mkOp("stablehlo.replica_id", nil, u32, nil), nil)
	pid := runGrid(t, 2, 3, mkOp("stablehlo.partition_id", nil, u32, nil), nil)
	for i := range 6 {
		require.Equal(t, uint32(i/3), binary.LittleEndian.Uint32(rid[i]), "replica of process %d", i)
		require.Equal(t, uint32(i%3), binary.LittleEndian.Uint32(pid[i]), "partition of process %d", i)
	}
	groups := func(v ...int64) *ir.ElementsAttr {
		return &ir.ElementsAttr{Type: ir.Tensor(ir.S64, 1, int64(len(v))), Data: i64s(v...)}
	}
	in := [][]byte{i64s(1), i64s(2), i64s(3), i64s(4)} // processes (0,0) (0,1) (1,0) (1,1)
	i1, i2, i4 := []ir.Type{ir.Tensor(ir.S64, 1)}, []ir.Type{ir.Tensor(ir.S64, 2)}, []ir.Type{ir.Tensor(ir.S64, 4)}
	// cross_replica: a group of replicas, per partition.
	out := runGrid(t, 2, 2, mkOp("stablehlo.all_gather", i1, i2, ir.Attrs{"all_gather_dim": ir.IntAttr{Value: 0},
		"replica_groups": groups(1, 0)}), in)
	require.Equal(t, [][]byte{i64s(3, 1), i64s(4, 2), i64s(3, 1), i64s(4, 2)}, out)
	// cross_replica_and_partition: every partition of the replicas,
	// partition-major.
	out = runGrid(t, 2, 2, mkOp("stablehlo.all_gather", i1, i4, ir.Attrs{"all_gather_dim": ir.IntAttr{Value: 0},
		"replica_groups": groups(0, 1), "channel_id": ir.IntAttr{Value: 1}}), in)
	for i := range out {
		require.Equal(t, i64s(1, 3, 2, 4), out[i])
	}
	// flattened_ids: process ids.
	out = runGrid(t, 2, 2, mkOp("stablehlo.all_gather", i1, i2, ir.Attrs{"all_gather_dim": ir.IntAttr{Value: 0},
		"replica_groups": &ir.ElementsAttr{Type: ir.Tensor(ir.S64, 2, 2), Data: i64s(3, 0, 1, 2)},
		"channel_id":     ir.IntAttr{Value: 1}, "use_global_device_ids": ir.UnitAttr{}}), in)
	require.Equal(t, [][]byte{i64s(4, 1), i64s(2, 3), i64s(2, 3), i64s(4, 1)}, out)
	// collective_permute with a channel: partitions of this replica.
	out = runGrid(t, 2, 2, mkOp("stablehlo.collective_permute", i1, i1, ir.Attrs{"channel_id": ir.IntAttr{Value: 1},
		"source_target_pairs": &ir.ElementsAttr{Type: ir.Tensor(ir.S64, 1, 2), Data: i64s(0, 1)}}), in)
	require.Equal(t, [][]byte{i64s(0), i64s(1), i64s(0), i64s(3)}, out)
	// collective_broadcast: a process in no group gets zeros.
	out = runGrid(t, 2, 2, mkOp("stablehlo.collective_broadcast", i1, i1, ir.Attrs{"replica_groups": groups(1)}), in)
	require.Equal(t, [][]byte{i64s(0), i64s(0), i64s(3), i64s(4)}, out)
}
