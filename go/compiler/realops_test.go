package compiler

import (
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/stretchr/testify/require"
)

// These tests use the real kernel families, which the compiler always links
// (compiler.go imports go/kernels/all): a kernel missing for an op they need
// is a regression, and needOps fails the test saying which.

func needOps(t *testing.T, names ...string) {
	t.Helper()
	if n, ok := lookupAll(names...); !ok {
		t.Fatalf("no kernel registered for %s", n)
	}
}

func lookupAll(names ...string) (string, bool) {
	for _, n := range names {
		if _, ok := kernel.Lookup(n); !ok {
			return n, false
		}
	}
	return "", true
}

func (b *blkB) hlo(name string, x, y *ir.Value) *ir.Value {
	return b.v("stablehlo."+name, x.Type, nil, x, y)
}

func (b *blkB) cmp(dir string, x, y *ir.Value) *ir.Value {
	return b.v("stablehlo.compare", ir.Tensor(ir.Pred, x.Tensor().Shape...), ir.Attrs{
		"comparison_direction": ir.EnumAttr{Kind: "comparison_direction", Value: dir},
	}, x, y)
}

func TestRealWhileLoop(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.multiply", "stablehlo.compare")
	// i, acc = 0, 1; while i < n { acc = acc * x; i++ }  → x^n
	mb := newMod()
	mb.fn("main", "public", []ir.Type{i32t(), f32t(4)}, []ir.Type{f32t(4)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		r := b.while([]*ir.Value{b.i32c(0), b.f32c([]int64{4}, 1, 1, 1, 1)},
			func(rb *blkB, c []*ir.Value) *ir.Value { return rb.cmp("LT", c[0], a[0]) },
			func(rb *blkB, c []*ir.Value) []*ir.Value {
				return []*ir.Value{rb.hlo("add", c[0], rb.i32c(1)), rb.hlo("multiply", c[1], a[1])}
			})
		return []*ir.Value{r[1]}
	})
	e := compile(t, mb.m)
	got := run(t, e, i32s(3), f32s(1, 2, 3, -1))
	require.Equal(t, []float32{1, 8, 27, -1}, toF32(got[0]))
}

func TestRealReduceCompilesRegion(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.multiply", "stablehlo.reduce")
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(2, 3)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		half := b.f32c(nil, 0.5) // captured by the body: constants may be
		op := b.op("stablehlo.reduce", []*ir.Value{a[0], b.f32c(nil, 0)}, []ir.Type{f32t(2)},
			ir.Attrs{"dimensions": ir.DenseI64Attr{Values: []int64{1}}})
		// acc + 2*x*0.5, written so the reduce kernel cannot pattern-match it.
		op.AddRegion(b.region([]ir.Type{f32t(), f32t()}, func(rb *blkB, x []*ir.Value) []*ir.Value {
			two := rb.f32c(nil, 2)
			y := rb.hlo("multiply", rb.hlo("multiply", x[1], two), half)
			return []*ir.Value{rb.hlo("add", x[0], y)}
		}))
		return op.Results
	})
	e := compile(t, mb.m)
	got := run(t, e, f32s(1, 2, 3, 4, 5, 6))
	require.Equal(t, []float32{6, 15}, toF32(got[0]))
}

func TestRegionRejectsNonConstantCapture(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.multiply", "stablehlo.reduce")
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(3), f32t()}, []ir.Type{f32t()}, func(b *blkB, a []*ir.Value) []*ir.Value {
		op := b.op("stablehlo.reduce", []*ir.Value{a[0], b.f32c(nil, 0)}, []ir.Type{f32t()},
			ir.Attrs{"dimensions": ir.DenseI64Attr{Values: []int64{0}}})
		op.AddRegion(b.region([]ir.Type{f32t(), f32t()}, func(rb *blkB, x []*ir.Value) []*ir.Value {
			return []*ir.Value{rb.hlo("add", x[0], rb.hlo("multiply", x[1], a[1]))}
		}))
		return op.Results
	})
	_, err := CompileModule(mb.m, Options{})
	require.ErrorContains(t, err, "non-constant value from the enclosing scope")
	require.ErrorContains(t, err, "main.py:")
}

func TestConstantFolding(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.multiply")
	build := func() *ir.Module {
		mb := newMod()
		mb.fn("main", "public", []ir.Type{f32t(2)}, []ir.Type{f32t(2), f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			k := b.hlo("multiply", b.f32c([]int64{2}, 2, 3), b.f32c([]int64{2}, 4, 5)) // folds to 8, 15
			k2 := b.hlo("add", k, k)                                                   // folds to 16, 30
			return []*ir.Value{k2, b.hlo("add", a[0], k2)}
		})
		return mb.m
	}
	folded := compile(t, build())
	require.Equal(t, 1, folded.Stats().KernelSteps)
	unfolded, err := CompileModule(build(), Options{NoFold: true, NoFuse: true})
	require.NoError(t, err)
	require.Equal(t, 3, unfolded.Stats().KernelSteps)
	for _, e := range []*Executable{folded, unfolded} {
		got := run(t, e, f32s(1, 1))
		require.Equal(t, []float32{16, 30}, toF32(got[0]))
		require.Equal(t, []float32{17, 31}, toF32(got[1]))
	}
}

func TestDeadCodeRemoved(t *testing.T) {
	needOps(t, "stablehlo.add")
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		dead := b.hlo("add", a[0], a[0])
		b.hlo("add", dead, dead)
		b.cc("gojax.test.add", f32t(2), a[0], a[0]) // pure custom call with a result: removable
		return []*ir.Value{b.hlo("add", a[0], b.f32c([]int64{2}, 1, 1))}
	})
	e := compile(t, mb.m)
	require.Equal(t, 1, e.Stats().KernelSteps)
	require.Equal(t, []float32{2, 3}, toF32(run(t, e, f32s(1, 2))[0]))
}

func TestDonationElementwiseInPlace(t *testing.T) {
	needOps(t, "stablehlo.add")
	mb := newMod()
	f := mb.fn("main", "public", []ir.Type{f32t(3), f32t(3)}, []ir.Type{f32t(3)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{b.hlo("add", a[0], a[1])} // params.x += grads: in place
	})
	f.ArgAttrs[0]["tf.aliasing_output"] = ir.IntAttr{Value: 0, Type: ir.S32}
	e := compile(t, mb.m)
	require.Equal(t, []int{0}, e.OutputAliases())
	a0 := f32s(1, 2, 3)
	res, err := e.Run([][]byte{a0, f32s(10, 20, 30)}, []bool{true, false})
	require.NoError(t, err)
	require.Equal(t, []int{0}, res.AliasOf)
	require.Equal(t, []float32{11, 22, 33}, toF32(a0))
}

func TestInPlaceElementwiseChain(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.multiply", "stablehlo.negate")
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(64), f32t(64)}, []ir.Type{f32t(64), f32t(64)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		x := b.hlo("add", a[0], a[1])
		for range 10 {
			x = b.hlo("multiply", x, a[1])
			x = b.v("stablehlo.negate", x.Type, nil, x)
		}
		y := b.hlo("add", x, x)
		return []*ir.Value{b.hlo("add", y, a[0]), x}
	})
	e, err := CompileModule(mb.m, Options{NoFuse: true})
	require.NoError(t, err)
	st := e.Stats()
	require.Equal(t, 21, st.Values)
	require.Equal(t, 1, st.Slots, "every step overwrites its dying operand")
	fused := compile(t, mb.m)
	require.Equal(t, 1, fused.Stats().KernelSteps, "one loop computes x and the sum (two results)")
	in0, in1 := make([]float32, 64), make([]float32, 64)
	for i := range in0 {
		in0[i], in1[i] = float32(i), 1+float32(i%3)/4
	}
	got := run(t, e, f32s(in0...), f32s(in1...))
	require.Equal(t, got, run(t, fused, f32s(in0...), f32s(in1...)))
	g0, g1 := toF32(got[0]), toF32(got[1])
	for i := range in0 {
		x := in0[i] + in1[i]
		for range 10 {
			x = -(x * in1[i])
		}
		require.Equal(t, x, g1[i], "element %d", i)
		require.Equal(t, (x+x)+in0[i], g0[i], "element %d", i)
	}
}

func TestInPlaceDynamicUpdateSliceInLoop(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.compare", "stablehlo.dynamic_update_slice", "stablehlo.reshape")
	// for i < 8: buf[i] = i*? (writes i into position i), carried buffer updated in place.
	mb := newMod()
	mb.fn("main", "public", []ir.Type{i32t(8)}, []ir.Type{i32t(8)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		r := b.while([]*ir.Value{b.i32c(0), a[0]},
			func(rb *blkB, c []*ir.Value) *ir.Value { return rb.cmp("LT", c[0], rb.i32c(8)) },
			func(rb *blkB, c []*ir.Value) []*ir.Value {
				upd := rb.v("stablehlo.reshape", i32t(1), nil, rb.hlo("add", c[0], rb.i32c(100)))
				nb := rb.v("stablehlo.dynamic_update_slice", i32t(8), nil, c[1], upd, c[0])
				return []*ir.Value{rb.hlo("add", c[0], rb.i32c(1)), nb}
			})
		return []*ir.Value{r[1]}
	})
	e := compile(t, mb.m)
	w := e.plan.body[0].(*whileInstr)
	require.Empty(t, w.swaps, "the counter and the array are updated in their carried buffers")
	require.Empty(t, w.stage)
	got := run(t, e, i32s(0, 0, 0, 0, 0, 0, 0, 0))
	require.Equal(t, []int32{100, 101, 102, 103, 104, 105, 106, 107}, toI32(got[0]))
}

// TestInPlaceDynamicUpdateSlice: the registry's traits let
// dynamic_update_slice write its result over the array it updates (never
// over the update), so outside any loop the array and the result share one
// slot and the step copies only the update.
func TestInPlaceDynamicUpdateSlice(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.dynamic_update_slice")
	mb := newMod()
	var dus *ir.Op
	mb.fn("main", "public", []ir.Type{i32t(8), i32t(2)}, []ir.Type{i32t(8)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		x := b.hlo("add", a[0], a[0])
		u := b.hlo("add", a[1], a[1])
		y := b.v("stablehlo.dynamic_update_slice", i32t(8), nil, x, u, b.i32c(3))
		dus = y.Def
		return []*ir.Value{b.hlo("add", y, a[0])}
	})
	tr := kernel.TraitsOf("stablehlo.dynamic_update_slice")
	require.True(t, tr.InPlace)
	require.True(t, tr.Overwrites(dus, dus.Operands[0]))
	require.False(t, tr.Overwrites(dus, dus.Operands[1]), "never over the update")
	e := compile(t, mb.m)
	var k *kernelInstr
	for _, in := range e.plan.body {
		if s, ok := in.(*sliceInstr); ok {
			in = s.k // the direct form of the step (dynslice.go)
		}
		if ki, ok := in.(*kernelInstr); ok && ki.op.Name == "stablehlo.dynamic_update_slice" {
			k = ki
		}
	}
	require.NotNil(t, k)
	require.Equal(t, k.ins[0].slot, k.outs[0].slot, "the result is written over the updated array")
	got := run(t, e, i32s(1, 2, 3, 4, 5, 6, 7, 8), i32s(10, 20))
	require.Equal(t, []int32{3, 6, 9, 24, 45, 18, 21, 24}, toI32(got[0]))
}

// TestDonationDynamicUpdateSliceInPlace: a donated array updated by
// dynamic_update_slice (x.at[i].set(v) with donation) is its own output: the
// trait that lets the planner overwrite the array also lets the output take
// the donated buffer, and the step writes only the update.
func TestDonationDynamicUpdateSliceInPlace(t *testing.T) {
	needOps(t, "stablehlo.dynamic_update_slice")
	mb := newMod()
	f := mb.fn("main", "public", []ir.Type{i32t(6), i32t(2)}, []ir.Type{i32t(6)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{b.v("stablehlo.dynamic_update_slice", i32t(6), nil, a[0], a[1], b.i32c(2))}
	})
	f.ArgAttrs[0]["tf.aliasing_output"] = ir.IntAttr{Value: 0, Type: ir.S32}
	e := compile(t, mb.m)
	require.Equal(t, []int{0}, e.OutputAliases())
	a0 := i32s(1, 2, 3, 4, 5, 6)
	res, err := e.Run([][]byte{a0, i32s(30, 40)}, []bool{true, false})
	require.NoError(t, err)
	require.Equal(t, []int{0}, res.AliasOf)
	require.Equal(t, []int32{1, 2, 30, 40, 5, 6}, toI32(a0))
}
