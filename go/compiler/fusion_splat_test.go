package compiler

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// TestFusionSplatsAndMergedChains: a threefry-like round (sums read by two
// rotate-and-xor chains, rotation counts and float coefficients given as
// full-shape splat constants, as JAX writes them) becomes one fusion with
// several results whose operands hold no full-size constant, and computes
// what the unfused plan does.
func TestFusionSplatsAndMergedChains(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.xor", "stablehlo.or", "stablehlo.shift_left",
		"stablehlo.shift_right_logical", "stablehlo.convert", "stablehlo.select", "stablehlo.compare", "stablehlo.multiply")
	const n = 3000
	u := ir.Tensor(ir.U32, n)
	f := ir.Tensor(ir.F32, n)
	splat := func(b *blkB, t *ir.TensorType, v uint32) *ir.Value {
		data := make([]byte, 4*n)
		for i := range n {
			binary.LittleEndian.PutUint32(data[4*i:], v)
		}
		return b.constant(t, data)
	}
	mb := newMod()
	mb.fn("main", "public", []ir.Type{u, u}, []ir.Type{u, u, f}, func(b *blkB, a []*ir.Value) []*ir.Value {
		x0, x1 := a[0], a[1]
		for _, r := range []uint32{13, 15, 26, 6} {
			x0 = b.hlo("add", x0, x1)
			rot := b.hlo("or", b.hlo("shift_left", x1, splat(b, u, r)), b.hlo("shift_right_logical", x1, splat(b, u, 32-r)))
			x1 = b.hlo("xor", rot, x0)
		}
		fl := b.v("stablehlo.convert", f, nil, x1)
		half := splat(b, f, 0x3f000000)
		sel := b.v("stablehlo.select", f, nil, b.cmp("LT", b.hlo("multiply", fl, half), splat(b, f, 0x4f000000)), splat(b, f, 0x3f800000), fl)
		return []*ir.Value{x0, x1, sel}
	})
	fused := compile(t, mb.m)
	ref, err := CompileModule(mb.m, Options{NoFuse: true})
	require.NoError(t, err)
	fusions := 0
	for _, in := range fused.plan.body {
		if k, ok := in.(*kernelInstr); ok && k.op.Name == fusionOp {
			fusions++
			big := 0
			for _, r := range k.ins {
				if r.size > 4 {
					big++
				}
			}
			require.Equal(t, 2, big, "only the arguments are full size: splat constants are read as scalars\n%s", fused.PlanText())
		}
	}
	require.Equal(t, 1, fusions, "one fusion computes every result\n%s", fused.PlanText())
	r := rand.New(rand.NewPCG(1, 2))
	for range 3 {
		x, y := make([]byte, 4*n), make([]byte, 4*n)
		for i := range x {
			x[i], y[i] = byte(r.Uint32()), byte(r.Uint32())
		}
		want, got := run(t, ref, x, y), run(t, fused, x, y)
		for k := range want {
			require.True(t, bytes.Equal(want[k], got[k]), "result %d", k)
		}
	}
}

// TestFusionMergeKeepsBroadcastsInside: a value read by a broadcast that
// feeds an unfused op and by another chain must not merge the broadcast's
// group with the chain's, whichever comes last (a broadcast cannot be a
// fusion result).
func TestFusionMergeKeepsBroadcastsInside(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.tanh", "stablehlo.broadcast_in_dim", "stablehlo.reverse")
	const n = 100
	for _, bcastFirst := range []bool{true, false} {
		mb := newMod()
		row := ir.Tensor(ir.F32, 1, n)
		mb.fn("main", "public", []ir.Type{f32t(n), f32t(n)}, []ir.Type{f32t(n), row}, func(b *blkB, a []*ir.Value) []*ir.Value {
			x := b.hlo("add", a[0], a[1])
			var bc, y *ir.Value
			bcast := func() {
				bc = b.v("stablehlo.broadcast_in_dim", row, ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: []int64{1}}}, x)
			}
			if bcastFirst {
				bcast()
			}
			y = b.v("stablehlo.tanh", x.Type, nil, x)
			if !bcastFirst {
				bcast()
			}
			rev := b.v("stablehlo.reverse", row, ir.Attrs{"dimensions": ir.DenseI64Attr{Values: []int64{1}}}, bc)
			return []*ir.Value{y, rev}
		})
		fused := compile(t, mb.m)
		ref, err := CompileModule(mb.m, Options{NoFuse: true})
		require.NoError(t, err)
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(i)/50 - 1
		}
		require.Equal(t, run(t, ref, f32s(x...), f32s(x...)), run(t, fused, f32s(x...), f32s(x...)), "broadcast first: %v", bcastFirst)
	}
}
