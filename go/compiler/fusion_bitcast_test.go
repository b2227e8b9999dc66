package compiler

import (
	"math"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// TestFusionThroughBitcasts: bitcast_convert between f32 and s32 (JAX's
// float bit tricks: abs by mask, frexp) fuses with its neighbours as a
// relabeling, inside a fusion and as one of its results, over one and
// several blocks; the bits are the unfused plan's and the definition's.
func TestFusionThroughBitcasts(t *testing.T) {
	needOps(t, "stablehlo.and", "stablehlo.multiply", "stablehlo.bitcast_convert", "stablehlo.broadcast_in_dim")
	for _, n := range []int64{1, 16, 5000} {
		mb := newMod()
		mb.fn("main", "public", []ir.Type{f32t(n), i32t()}, []ir.Type{f32t(n), i32t(n)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			bits := b.v("stablehlo.bitcast_convert", i32t(n), nil, a[0])
			mask := b.v("stablehlo.broadcast_in_dim", i32t(n), ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}, a[1])
			y := b.v("stablehlo.bitcast_convert", f32t(n), nil, b.hlo("and", bits, mask))
			z := b.hlo("multiply", y, a[0])
			return []*ir.Value{z, b.v("stablehlo.bitcast_convert", i32t(n), nil, z)}
		})
		ref, err := CompileModule(mb.m, Options{NoFuse: true})
		require.NoError(t, err)
		e := compile(t, mb.m)
		require.Equal(t, 1, e.Stats().KernelSteps, "n=%d: one fusion\n%s", n, e.PlanText())

		x := make([]float32, n)
		for i := range x {
			x[i] = float32(i%37)*0.37 - 5
		}
		x[0] = float32(math.Inf(-1))
		const m = 0x7fffff00
		args := [][]byte{f32s(x...), i32s(m)}
		got := run(t, e, args...)
		require.Equal(t, run(t, ref, args...), got, "n=%d", n)
		z, w := make([]float32, n), make([]int32, n)
		for i, v := range x {
			z[i] = math.Float32frombits(math.Float32bits(v)&m) * v
			w[i] = int32(math.Float32bits(z[i]))
		}
		require.Equal(t, f32s(z...), got[0], "n=%d", n)
		require.Equal(t, i32s(w...), got[1], "n=%d", n)
	}
}
