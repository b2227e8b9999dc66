package compiler

import (
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// TestRelabelCopies: a lone small reshape, same-width bitcast or unit-dim
// broadcast runs as a copy of its operand's bytes; broadcasts that
// replicate or permute, and large relabelings, keep their kernel step; the
// results are the kernel steps' (observed runs take them).
func TestRelabelCopies(t *testing.T) {
	needOps(t, "stablehlo.reshape", "stablehlo.bitcast_convert", "stablehlo.broadcast_in_dim")
	bcast := func(dims ...int64) ir.Attrs {
		return ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: dims}}
	}
	for _, c := range []struct {
		name     string
		in, out  *ir.TensorType
		attrs    ir.Attrs
		copyOnly bool
	}{
		{"stablehlo.reshape", f32t(4, 4), f32t(16), nil, true},
		{"stablehlo.bitcast_convert", f32t(16), i32t(16), nil, true},
		{"stablehlo.broadcast_in_dim", f32t(16), f32t(1, 16), bcast(1), true},
		{"stablehlo.broadcast_in_dim", f32t(4, 4), f32t(4, 1, 4), bcast(0, 2), true},
		{"stablehlo.broadcast_in_dim", f32t(1), f32t(16), bcast(0), false},
		{"stablehlo.broadcast_in_dim", f32t(4, 4), f32t(4, 4), bcast(1, 0), false},
		{"stablehlo.reshape", f32t(128, 256), f32t(256 * 128), nil, false},
	} {
		mb := newMod()
		mb.fn("main", "public", []ir.Type{c.in}, []ir.Type{c.out}, func(b *blkB, a []*ir.Value) []*ir.Value {
			return []*ir.Value{b.v(c.name, c.out, c.attrs, a[0])}
		})
		e := compile(t, mb.m)
		var k *kernelInstr
		for _, in := range e.plan.body {
			if ki, ok := in.(*kernelInstr); ok {
				k = ki
			}
		}
		require.NotNil(t, k, "%s %s -> %s", c.name, c.in, c.out)
		require.Equal(t, c.copyOnly, k.copyOnly, "%s %s -> %s", c.name, c.in, c.out)
		x := make([]float32, c.in.NumElements())
		for i := range x {
			x[i] = float32(i)*0.75 - 3
		}
		got := run(t, e, f32s(x...))
		AddObserver(nopObserver{})
		want := run(t, e, f32s(x...))
		RemoveObserver(nopObserver{})
		require.Equal(t, want, got, "%s %s -> %s", c.name, c.in, c.out)
	}
}
