package compiler

import (
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/stretchr/testify/require"
)

func init() {
	// Calls its first region on its operands (as ApproxTopK calls its comparator).
	kernel.RegisterCustomCall("gojax.test.callregion", func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
		if len(op.Regions) != 1 {
			return nil, op.Errorf("want one region, got %d", len(op.Regions))
		}
		c, err := ctx.CompileRegion(op.Regions[0])
		if err != nil {
			return nil, err
		}
		return c.Call, nil
	})
}

func TestCalledComputationsBecomeRegions(t *testing.T) {
	mb := newMod()
	mb.fn("helper", "private", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{b.add(a[0], a[0])}
	})
	mb.fn("body", "private", []ir.Type{f32t(2), f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{b.mul(b.call("helper", []ir.Type{f32t(2)}, a[0])[0], a[1])}
	})
	mb.fn("main", "public", []ir.Type{f32t(2), f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		v := b.cc("gojax.test.callregion", f32t(2), a[0], a[1])
		v.Def.Attrs["called_computations"] = ir.ArrayAttr{Elems: []ir.Attr{ir.SymbolRefAttr{Name: "body"}}}
		return []*ir.Value{v}
	})
	e := compile(t, mb.m)
	require.Equal(t, []float32{6, -16}, toF32(run(t, e, f32s(1, 2), f32s(3, -4))[0]))

	mb.m.Funcs[2].Entry().Ops[0].Attrs["called_computations"] = ir.ArrayAttr{Elems: []ir.Attr{ir.SymbolRefAttr{Name: "missing"}}}
	_, err := CompileModule(mb.m, Options{})
	require.ErrorContains(t, err, "missing")
}
