package engine

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/ir"
)

// squareAndSum squares an f32[4] split over two partitions (result split
// the same way) and sums the squares (replicated): the partitioner accepts
// it, so each device runs its own program on its shard.
func squareAndSum(t *testing.T, donor bool) *compiler.Executable {
	t.Helper()
	meshOp := ir.NewOp("sdy.mesh", nil, nil, ir.Attrs{
		"sym_name": ir.StringAttr{Value: "mesh"},
		"mesh":     ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.mesh<["i"=2]>`},
	})
	shard := ir.Attrs{"sdy.sharding": ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.sharding<@mesh, [{"i"}]>`}}
	arg := ir.Attrs{"sdy.sharding": shard["sdy.sharding"]}
	if donor {
		arg["jax.buffer_donor"] = ir.BoolAttr{Value: true}
	}
	vec, scalar := ir.Tensor(ir.F32, 4), ir.Tensor(ir.F32)
	blk := ir.NewBlock(vec)
	sq := blk.Append(ir.NewOp("stablehlo.multiply", []*ir.Value{blk.Args[0], blk.Args[0]}, []ir.Type{vec}, nil)).Result()
	zero := blk.Append(ir.NewOp("stablehlo.constant", nil, []ir.Type{scalar}, ir.Attrs{"value": &ir.ElementsAttr{Type: scalar, Data: make([]byte, 4)}})).Result()
	red := ir.NewOp("stablehlo.reduce", []*ir.Value{sq, zero}, []ir.Type{scalar}, ir.Attrs{"dimensions": ir.DenseI64Attr{Values: []int64{0}}})
	body := ir.NewBlock(scalar, scalar)
	s := body.Append(ir.NewOp("stablehlo.add", []*ir.Value{body.Args[0], body.Args[1]}, []ir.Type{scalar}, nil)).Result()
	body.Append(ir.NewOp("stablehlo.return", []*ir.Value{s}, nil, nil))
	red.AddRegion(ir.NewRegion(body))
	sum := blk.Append(red).Result()
	blk.Append(ir.NewOp("func.return", []*ir.Value{sq, sum}, nil, nil))
	f := &ir.Func{Name: "main", Type: ir.FuncType{Inputs: []ir.Type{vec}, Results: []ir.Type{vec, scalar}},
		ArgAttrs: []ir.Attrs{arg}, ResAttrs: []ir.Attrs{shard, {}}, Body: ir.NewRegion(blk)}
	m := &ir.Module{Funcs: []*ir.Func{f}, Globals: []*ir.Op{meshOp},
		Attrs: ir.Attrs{"mhlo.num_partitions": ir.IntAttr{Value: 2, Type: ir.S32}}}
	exe, err := compiler.CompileModule(m, compiler.Options{})
	require.NoError(t, err)
	return exe
}

func TestExecutePartitioned(t *testing.T) {
	for _, donor := range []bool{false, true} {
		c := newTestClient(t, 2)
		da := &DeviceAssignment{Replicas: 1, Partitions: 2, IDs: [][]int{{1, 0}}}
		ebo := appendVarintField(nil, 5, 2)
		ebo = appendBytesField(ebo, 9, da.Marshal())
		e, err := NewExecutable(c, squareAndSum(t, donor), []byte("code"), appendBytesField(nil, 3, ebo))
		require.NoError(t, err)
		require.NotNil(t, e.parts, "the partitioner accepts the program")
		before := ReadStats().PartitionedExecutions
		// Device 1 holds partition 0 = elements 0..1.
		args := [][]*Buffer{{hostF32(t, c, 1, 2)}, {hostF32(t, c, 3, 4)}}
		outs, done, err := e.Execute(args, nil, ExecuteOptions{})
		require.NoError(t, err)
		for d := range outs {
			require.NoError(t, done[d].Wait())
			require.Equal(t, donor, args[d][0].IsDeleted())
		}
		require.Equal(t, before+1, ReadStats().PartitionedExecutions)
		require.Equal(t, []float32{1, 4}, readF32(t, outs[0][0]))
		require.Equal(t, []float32{9, 16}, readF32(t, outs[1][0]))
		for d := range outs {
			require.Equal(t, []float32{30}, readF32(t, outs[d][1]))
		}
		os, ok := e.OutputShardings()
		require.True(t, ok)
		require.NotEmpty(t, os[0])
		require.Empty(t, os[1])
	}
}
