package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/internal/cancel"
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

// newPartitionedExec is squareAndSum on two devices, device 1 holding
// partition 0.
func newPartitionedExec(t *testing.T, c *Client, copts compiler.Options) *Executable {
	t.Helper()
	da := &DeviceAssignment{Replicas: 1, Partitions: 2, IDs: [][]int{{1, 0}}}
	ebo := appendVarintField(nil, 5, 2)
	ebo = appendBytesField(ebo, 9, da.Marshal())
	e, err := newExecutable(c, squareAndSum(t, false), []byte("code"), appendBytesField(nil, 3, ebo), copts)
	require.NoError(t, err)
	require.NotNil(t, e.parts, "the partitioner accepts the program")
	return e
}

// spinPartitions makes every partition of e a program that runs until its
// token stops it.
func spinPartitions(e *Executable) *spinProg {
	p := &spinProg{fakeProg: &fakeProg{n: 2}, started: make(chan struct{}, len(e.parts.progs))}
	p.spin.Store(true)
	for d := range e.parts.progs {
		e.parts.progs[d] = p
	}
	return p
}

func TestPartitionedRunStopsWhenItsOutputsAreDeleted(t *testing.T) {
	c := newTestClient(t, 2)
	e := newPartitionedExec(t, c, compiler.Options{})
	p := spinPartitions(e)
	args := [][]*Buffer{{hostF32(t, c, 1, 2)}, {hostF32(t, c, 3, 4)}}
	outs, done, err := e.Execute(args, nil, ExecuteOptions{})
	require.NoError(t, err)
	<-p.started
	<-p.started
	// One device's outputs alone do not stop the run: the other's can
	// still be read.
	for _, o := range outs[0] {
		o.Destroy()
	}
	require.False(t, done[0].IsReady())
	for _, o := range outs[1] {
		o.Destroy()
	}
	for d := range done {
		err := waitEvent(t, done[d])
		require.ErrorIs(t, err, errAbandoned)
		require.Equal(t, CodeCancelled, CodeOf(err))
	}
}

func TestPartitionedRunStopsWithItsToken(t *testing.T) {
	c := newTestClient(t, 2)
	e := newPartitionedExec(t, c, compiler.Options{})
	p := spinPartitions(e)
	tok := cancel.New(false)
	args := [][]*Buffer{{hostF32(t, c, 1, 2)}, {hostF32(t, c, 3, 4)}}
	outs, done, err := e.Execute(args, nil, ExecuteOptions{Cancel: tok})
	require.NoError(t, err)
	<-p.started
	<-p.started
	stop := errors.New("stopped by the test")
	tok.Cancel(stop)
	for d := range done {
		err := waitEvent(t, done[d])
		require.ErrorIs(t, err, stop)
		require.Equal(t, CodeCancelled, CodeOf(err))
		for _, o := range outs[d] {
			_, rerr := o.bytes()
			require.Error(t, rerr, "a cancelled run's outputs carry its error")
		}
	}
}

func TestPartitionedCompileGetsTheExecutablesOptions(t *testing.T) {
	c := newTestClient(t, 2)
	dir := t.TempDir()
	newPartitionedExec(t, c, compiler.Options{DumpDir: dir})
	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	var optimized []string
	for _, f := range files {
		if strings.Contains(f.Name(), ".optimized") {
			optimized = append(optimized, f.Name())
		}
	}
	// The global program was compiled without a dump directory: the dumps
	// are the partitions' programs, whose sum is an all_reduce.
	found := false
	for _, name := range optimized {
		text, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		if strings.Contains(string(text), "all_reduce") {
			found = true
		}
	}
	require.True(t, found, "no partition program among the dumps %v", optimized)
}

// spinSPMD is spmdDouble (run on global arrays) behind the cancellation
// protocol: a run loops until its token stops it.
type spinSPMD struct {
	*spmdDouble
	started chan struct{}
}

func (p *spinSPMD) RunCancel(args [][]byte, donatable []bool, tok *cancel.Token) (*compiler.RunResult, error) {
	seen := cancel.Epoch()
	p.started <- struct{}{}
	for {
		if e := cancel.Epoch(); e != seen {
			seen = e
			if err := tok.Check(); err != nil {
				return nil, err
			}
		}
	}
}

func TestGlobalSPMDRunStopsWhenItsOutputsAreDeleted(t *testing.T) {
	c := newTestClient(t, 2)
	da := &DeviceAssignment{Replicas: 1, Partitions: 2, IDs: [][]int{{1, 0}}}
	ebo := appendVarintField(nil, 5, 2)
	ebo = appendBytesField(ebo, 9, da.Marshal())
	p := &spinSPMD{spmdDouble: &spmdDouble{outSharded: true}, started: make(chan struct{}, 1)}
	e, err := NewExecutable(c, p, []byte("code"), appendBytesField(nil, 3, ebo))
	require.NoError(t, err)
	require.Nil(t, e.parts, "runs on global arrays")
	outs, done, err := e.Execute([][]*Buffer{{hostF32(t, c, 1, 2)}, {hostF32(t, c, 3, 4)}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	<-p.started
	for d := range outs {
		for _, o := range outs[d] {
			o.Destroy()
		}
	}
	for d := range done {
		err := waitEvent(t, done[d])
		require.ErrorIs(t, err, errAbandoned)
		require.Equal(t, CodeCancelled, CodeOf(err))
	}
}
