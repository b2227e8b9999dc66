package compiler

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// callChainModule is main → f{depth-1} → … → f0, each fk(x) = f{k-1}(x) + x
// and f0(x) = x + x; with cycle, f0 calls f{depth-1} instead.
func callChainModule(depth int, cycle bool) *ir.Module {
	mb := newMod()
	mb.fn("f0", "private", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		if cycle {
			return b.call(fmt.Sprintf("f%d", depth-1), []ir.Type{f32t(2)}, a[0])
		}
		return []*ir.Value{b.add(a[0], a[0])}
	})
	for k := 1; k < depth; k++ {
		mb.fn(fmt.Sprintf("f%d", k), "private", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			c := b.call(fmt.Sprintf("f%d", k-1), []ir.Type{f32t(2)}, a[0])
			return []*ir.Value{b.add(c[0], a[0])}
		})
	}
	mb.fn("main", "public", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return b.call(fmt.Sprintf("f%d", depth-1), []ir.Type{f32t(2)}, a[0])
	})
	return mb.m
}

// A chain of 5000 nested calls (XLA takes any depth) inlines into one
// function with the right result; a cycle closed at its far end is still
// found, and named with its chain.
func TestDeepCallChain(t *testing.T) {
	const depth = 5000
	e := compile(t, callChainModule(depth, false))
	require.Equal(t, []float32{depth + 1, 2 * (depth + 1)}, toF32(run(t, e, f32s(1, 2))[0]))
	_, err := CompileModule(callChainModule(50, true), Options{})
	require.ErrorContains(t, err, "recursive call to @f49 (call chain main → f49 → f48")
}

// Calls inside the regions of an inlined body (a case branch) are inlined
// too, and a function called from two places is not a cycle.
func TestCallsInsideInlinedRegions(t *testing.T) {
	mb := newMod()
	mb.fn("sq", "private", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{b.mul(a[0], a[0])}
	})
	mb.fn("pick", "private", []ir.Type{ir.Tensor(ir.S32), f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return b.caseOp(a[0], []ir.Type{f32t(2)},
			func(rb *blkB) []*ir.Value { return rb.call("sq", []ir.Type{f32t(2)}, a[1]) },
			func(rb *blkB) []*ir.Value {
				return []*ir.Value{rb.add(a[1], rb.call("sq", []ir.Type{f32t(2)}, a[1])[0])}
			})
	})
	mb.fn("main", "public", []ir.Type{ir.Tensor(ir.S32), f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return b.call("pick", []ir.Type{f32t(2)}, a[0], a[1])
	})
	e := compile(t, mb.m)
	require.Equal(t, []float32{4, 9}, toF32(run(t, e, i32s(0), f32s(2, 3))[0]))
	require.Equal(t, []float32{6, 12}, toF32(run(t, e, i32s(1), f32s(2, 3))[0]))
}

// A call marked for XLA's late inlining stays a call: a one-branch case the
// planner runs as a sub-plan (so nothing fuses across it), calls inside its
// callee are inlined there, a recursive one is still an error, and export
// prints it as a func.call that jaxlib turns into an HLO call.
func TestLateInlinedCallIsKept(t *testing.T) {
	late := ir.Attrs{"mhlo.frontend_attributes": ir.DictAttr{Entries: ir.Attrs{"inlineable": ir.StringAttr{Value: "xla_late"}}}}
	build := func(recursive bool) *ir.Module {
		mb := newMod()
		mb.fn("sq", "private", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			if recursive {
				return b.op("func.call", a, []ir.Type{f32t(2)}, ir.Attrs{"callee": ir.SymbolRefAttr{Name: "sub"}}).Results
			}
			return []*ir.Value{b.mul(a[0], a[0])}
		})
		mb.fn("sub", "private", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			s := b.call("sq", []ir.Type{f32t(2)}, a[0])
			return []*ir.Value{b.add(s[0], a[0])}
		})
		mb.fn("main", "public", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			attrs := ir.Attrs{"callee": ir.SymbolRefAttr{Name: "sub"}}
			for k, v := range late {
				attrs[k] = v
			}
			c := b.op("func.call", a, []ir.Type{f32t(2)}, attrs).Results
			return []*ir.Value{b.add(c[0], a[0])}
		})
		return mb.m
	}
	e := compile(t, build(false))
	require.Equal(t, []float32{3, 8}, toF32(run(t, e, f32s(1, 2))[0]))
	var kept []*ir.Op
	e.optimized.Main().Body.Walk(func(op *ir.Op) bool {
		if keptCallee(op) != "" {
			kept = append(kept, op)
		}
		require.NotEqual(t, "func.call", op.Name)
		return true
	})
	require.Len(t, kept, 1)
	require.Equal(t, "sub", keptCallee(kept[0]))

	text, err := e.OptimizedStableHLO()
	require.NoError(t, err)
	require.Contains(t, text, `"func.call"`)
	hlo := convertWithJaxlib(t, map[string]string{"kept": text})["kept"]
	require.Contains(t, hlo, "call(")

	_, err = CompileModule(build(true), Options{})
	require.ErrorContains(t, err, "recursive call to @sub")
}
