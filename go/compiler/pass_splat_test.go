package compiler

import (
	"math"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// TestFoldSplats: elementwise ops on splats (NaN, -0 and a width-changing
// bitcast among them) give the unfolded program's bits; a select on a
// splat or rank-0 constant predicate becomes the operand it picks, and a
// while loop computing only the dropped operand is then removed, as
// jax.random.poisson's unused sampler is; a varying predicate keeps its
// select.
func TestFoldSplats(t *testing.T) {
	const n = 1000
	vt, pt := f32t(n), ir.Tensor(ir.Pred, n)
	bc := func(b *blkB, v *ir.Value, to *ir.TensorType) *ir.Value {
		return b.v("stablehlo.broadcast_in_dim", to, ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}, v)
	}
	cmp := func(b *blkB, dir string, x, y *ir.Value) *ir.Value {
		return b.v("stablehlo.compare", pt, ir.Attrs{
			"comparison_direction": ir.EnumAttr{Kind: "comparison_direction", Value: dir},
			"compare_type":         ir.EnumAttr{Kind: "comparison_type", Value: "FLOAT"},
		}, x, y)
	}
	bytesT := ir.Tensor(ir.U8, n, 4)
	mb := newMod()
	mb.fn("main", "public", []ir.Type{vt, i32t()}, []ir.Type{vt, vt, vt, vt, bytesT, vt}, func(b *blkB, a []*ir.Value) []*ir.Value {
		lam := b.v("stablehlo.convert", vt, nil, bc(b, b.f32c(nil, 3), vt))
		use := b.hlo("or", cmp(b, "NE", lam, lam), cmp(b, "LT", lam, bc(b, b.f32c(nil, 10), vt)))
		// The dropped side: a loop over the argument.
		loop := b.while([]*ir.Value{a[1], a[0]},
			func(rb *blkB, c []*ir.Value) *ir.Value { return rb.cmp("LT", c[0], rb.i32c(5)) },
			func(rb *blkB, c []*ir.Value) []*ir.Value {
				return []*ir.Value{rb.hlo("add", c[0], rb.i32c(1)), rb.hlo("multiply", c[1], c[1])}
			})
		kept := b.hlo("add", a[0], lam)
		picked := b.v("stablehlo.select", vt, nil, use, kept, loop[1])
		picked = b.v("stablehlo.select", vt, nil, b.constant(ir.Tensor(ir.Pred), []byte{0}), loop[1], picked)
		nan := bc(b, b.f32c(nil, float32(math.NaN())), vt)
		negZero := bc(b, b.f32c(nil, float32(math.Copysign(0, -1))), vt)
		arith := b.hlo("add", b.hlo("multiply", nan, lam), negZero)
		zeroSum := b.hlo("add", negZero, negZero)
		tanh := b.v("stablehlo.tanh", vt, nil, lam)
		bits := b.v("stablehlo.bitcast_convert", bytesT, nil, lam)
		varying := b.v("stablehlo.select", vt, nil, cmp(b, "LT", a[0], lam), a[0], lam)
		return []*ir.Value{picked, arith, zeroSum, tanh, bits, varying}
	})
	e := compile(t, mb.m)
	ops := opCounts(e)
	require.Zero(t, ops["stablehlo.while"], "the loop feeding only the dropped operand is removed")
	require.Equal(t, 1, ops["stablehlo.select"], "only the varying select is left")
	ref, err := CompileModule(mb.m, Options{NoFold: true})
	require.NoError(t, err)
	require.Equal(t, 1, opCounts(ref)["stablehlo.while"])
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i%17) - 8
	}
	x[3] = float32(math.NaN())
	got := run(t, e, f32s(x...), i32s(0))
	want := run(t, ref, f32s(x...), i32s(0))
	require.Equal(t, want, got)
	for i, v := range toF32(got[0]) {
		if i == 3 {
			require.True(t, math.IsNaN(float64(v)))
			continue
		}
		require.Equal(t, x[i]+3, v)
	}
}
