package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/internal/racedetect"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

func TestCompositeWithRegionsCallsDecomposition(t *testing.T) {
	mb := newMod()
	mb.fn("impl", "private", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{b.add(a[0], a[0])}
	})
	mb.fn("main", "public", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		c := b.op("stablehlo.composite", []*ir.Value{a[0]}, []ir.Type{f32t(2)}, ir.Attrs{
			"name":          ir.StringAttr{Value: "chlo.scan"},
			"decomposition": ir.StringAttr{Value: "impl"},
		})
		// A descriptive region that would compute something else.
		c.AddRegion(b.region([]ir.Type{f32t(2)}, func(rb *blkB, x []*ir.Value) []*ir.Value {
			return []*ir.Value{rb.mul(x[0], x[0])}
		}))
		return c.Results
	})
	got := run(t, compile(t, mb.m), f32s(3, 4))
	require.Equal(t, []float32{6, 8}, toF32(got[0]))
}

func TestNestedTuples(t *testing.T) {
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(2), i32t()}, []ir.Type{f32t(2), i32t()}, func(b *blkB, a []*ir.Value) []*ir.Value {
		inner := b.v("stablehlo.tuple", &ir.TupleType{Elems: []ir.Type{i32t()}}, nil, a[1])
		outer := b.v("stablehlo.tuple", &ir.TupleType{Elems: []ir.Type{f32t(2), inner.Type}}, nil, a[0], inner)
		x := b.v("stablehlo.get_tuple_element", f32t(2), ir.Attrs{"index": ir.IntAttr{Value: 0, Type: ir.S32}}, outer)
		tmp := b.v("stablehlo.get_tuple_element", inner.Type, ir.Attrs{"index": ir.IntAttr{Value: 1, Type: ir.S32}}, outer)
		y := b.v("stablehlo.get_tuple_element", i32t(), ir.Attrs{"index": ir.IntAttr{Value: 0, Type: ir.S32}}, tmp)
		return []*ir.Value{b.add(x, x), y}
	})
	got := run(t, compile(t, mb.m), f32s(1, 2), i32s(7))
	require.Equal(t, []float32{2, 4}, toF32(got[0]))
	require.Equal(t, []int32{7}, toI32(got[1]))
}

func TestShardyManualComputationInlined(t *testing.T) {
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		mc := b.op("sdy.manual_computation", []*ir.Value{a[0]}, []ir.Type{f32t(2)}, ir.Attrs{
			"in_shardings": ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.sharding_per_value<[<@mesh, [{"a"}]>]>`},
			"manual_axes":  ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy<manual_axes{"a"}>`},
		})
		blk := ir.NewBlock(f32t(2))
		rb := &blkB{b: blk, file: "main.py", line: b.line}
		x := rb.add(blk.Args[0], blk.Args[0])
		rb.ret("sdy.return", x)
		mc.AddRegion(ir.NewRegion(blk))
		y := b.cc("annotate_device_placement", f32t(2), mc.Result())
		k := b.v("sdy.constant", f32t(2), ir.Attrs{"value": &ir.ElementsAttr{Type: f32t(2), Data: f32s(10, 20)}})
		return []*ir.Value{b.add(b.cc("xla.sdy.FuncResultSharding", f32t(2), y), k)}
	})
	mb.m.Globals = append(mb.m.Globals, ir.NewOp("sdy.mesh", nil, nil, ir.Attrs{
		"sym_name": ir.StringAttr{Value: "mesh"},
		"mesh":     ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.mesh<["a"=1, "b"=1]>`},
	}))
	e := compile(t, mb.m)
	require.Equal(t, 2, e.Stats().KernelSteps)
	require.Equal(t, []float32{12, 24}, toF32(run(t, e, f32s(1, 2))[0]))
}

func TestPassThroughRejectsTypeChange(t *testing.T) {
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(4)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{b.cc("SPMDFullToShardShape", f32t(2), a[0])}
	})
	_, err := CompileModule(mb.m, Options{})
	require.ErrorContains(t, err, "not a pass-through on one device")
	require.ErrorContains(t, err, "main.py:1:1")
}

func TestPlanableNamesOpAndLocation(t *testing.T) {
	op := ir.NewOp("stablehlo.no_such_op", nil, []ir.Type{f32t()}, nil)
	op.Loc = &ir.Location{File: "model.py", Line: 7, Col: 3}
	require.EqualError(t, planable(op), "stablehlo.no_such_op at model.py:7:3: no kernel for this op")
}

func TestInvariantChecker(t *testing.T) {
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{b.add(a[0], a[0])}
	})
	require.NoError(t, checkInvariants(mb.m))

	// Use before definition.
	m := cloneModule(mb.m)
	ops := m.Funcs[0].Entry().Ops
	late := ir.NewOp("stablehlo.custom_call", []*ir.Value{a0(m)}, []ir.Type{f32t(2)}, nil)
	late.Block = ops[0].Block
	ops[0].Operands[1] = late.Results[0]
	require.ErrorContains(t, checkInvariants(m), "operand 1 is not defined before its use")

	// Wrong block pointer.
	m = cloneModule(mb.m)
	m.Funcs[0].Entry().Ops[0].Block = nil
	require.ErrorContains(t, checkInvariants(m), "wrong block pointer")

	// Missing terminator.
	m = cloneModule(mb.m)
	e := m.Funcs[0].Entry()
	e.Ops = e.Ops[:1]
	require.ErrorContains(t, checkInvariants(m), "block ends with stablehlo.custom_call, want func.return")
}

func a0(m *ir.Module) *ir.Value { return m.Funcs[0].Entry().Args[0] }

func TestCloneLeavesInputUntouched(t *testing.T) {
	m := whileModule(true)
	var before strings.Builder
	writeModule(&before, m)
	compile(t, m)
	var after strings.Builder
	writeModule(&after, m)
	require.Equal(t, before.String(), after.String())
}

func TestDumpDir(t *testing.T) {
	dir := t.TempDir()
	m := whileModule(false)
	m.Attrs["sym_name"] = ir.StringAttr{Value: "jit_f"}
	e, err := CompileModule(m, Options{DumpDir: dir})
	require.NoError(t, err)
	for _, stage := range []string{"input", "optimized"} {
		path := filepath.Join(dir, "jit_f."+e.Fingerprint()[:12]+"."+stage+".mlir")
		data, err := os.ReadFile(path)
		require.NoError(t, err, stage)
		require.Contains(t, string(data), "stablehlo.while")
	}

	plan, err := os.ReadFile(filepath.Join(dir, "jit_f."+e.Fingerprint()[:12]+".plan.txt"))
	require.NoError(t, err)
	require.Contains(t, string(plan), "while init")
	require.Contains(t, string(plan), "stablehlo.custom_call")

	// The environment plays no part: the caller passes the directory.
	t.Setenv("GOJAX_DUMP_DIR", filepath.Join(dir, "env"))
	_, err = CompileModule(whileModule(false), Options{})
	require.NoError(t, err)
	require.NoDirExists(t, filepath.Join(dir, "env"))
}

// A directory that cannot be written does not fail the compile; the error
// goes to OnDumpError once.
func TestDumpDirUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	var errs []error
	for _, dir := range []string{file, filepath.Join(file, "sub")} {
		errs = errs[:0]
		e, err := CompileModule(whileModule(false), Options{DumpDir: dir, OnDumpError: func(err error) { errs = append(errs, err) }})
		require.NoError(t, err)
		require.NotNil(t, e)
		require.Len(t, errs, 1, dir)
		_, err = CompileModule(whileModule(false), Options{DumpDir: dir})
		require.NoError(t, err)
	}
}

func TestRunAllocations(t *testing.T) {
	e := compile(t, whileModule(false))
	args := [][]byte{i32s(50), f32s(1, 2, 3)}
	// Warm the frame pool, then count: no allocation may depend on the
	// number of steps or loop iterations (50 here).
	res, err := e.Run(args, nil)
	require.NoError(t, err)
	freeAll(res)
	if racedetect.Enabled { // run frames come from a sync.Pool
		return
	}
	allocs := testing.AllocsPerRun(20, func() {
		res, err := e.Run(args, nil)
		if err != nil {
			t.Fatal(err)
		}
		freeAll(res)
	})
	require.LessOrEqual(t, allocs, 6.0)
}

func freeAll(res *RunResult) {
	for _, o := range res.Outputs {
		devmem.Free(o)
	}
}

// A pass that breaks the IR is named in the error: at once when every pass
// is checked (go test), and through the second, checked run that a
// production compile makes after any failure.
func TestBrokenInvariantNamesThePass(t *testing.T) {
	saved, savedCheck := passes, checkEachPass
	defer func() { passes, checkEachPass = saved, savedCheck }()
	breaker := pass{"breaker", func(st *passState) error {
		st.entry.Entry().Ops[0].Block = nil // a wrong back-pointer
		return nil
	}}
	passes = append(saved[:len(saved):len(saved)], breaker)
	for _, each := range []bool{true, false} {
		checkEachPass = each
		_, err := CompileModule(callChainModule(3, false), Options{})
		require.ErrorContains(t, err, "IR invariant broken after pass breaker", "checkEachPass=%v", each)
	}
	st := &passState{module: callChainModule(3, false), opts: Options{}, ctx: newCompileCtx()}
	st.entry = st.module.Main()
	require.ErrorContains(t, runPasses(st, false), "IR invariant broken by the passes")
}
