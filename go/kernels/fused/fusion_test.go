package fused

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/gojax/gojax/go/ir"
	_ "github.com/gojax/gojax/go/kernels/elementwise" // the members' kernels and loops
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/stretchr/testify/require"
)

// seqCtx runs Parallel chunks one after another, split by grain.
type seqCtx struct{}

func (seqCtx) CompileRegion(*ir.Region) (kernel.Callable, error) { return nil, nil }
func (seqCtx) Parallel(n, grain int, fn func(lo, hi int)) {
	for lo := 0; lo < n; lo += max(grain, 1) {
		fn(lo, min(lo+max(grain, 1), n))
	}
}

func f32bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// TestFusionMatchesMembers builds select(x > 0, tanh(x*s + o) * y, y) over
// several blocks, with s and o broadcast scalars (the affine fold) and
// checks the fused kernel against each member's own kernel run in turn.
func TestFusionMatchesMembers(t *testing.T) {
	const n = 5000
	vec, sc := ir.Tensor(ir.F32, n), ir.Tensor(ir.F32)
	body := ir.NewBlock(vec, vec, sc, sc) // x, y, s, o
	x, y, s, o := body.Args[0], body.Args[1], body.Args[2], body.Args[3]
	bcast := func(v *ir.Value) *ir.Value {
		return body.Append(ir.NewOp("stablehlo.broadcast_in_dim", []*ir.Value{v}, []ir.Type{vec},
			ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}})).Result()
	}
	op := func(name string, t ir.Type, attrs ir.Attrs, args ...*ir.Value) *ir.Value {
		return body.Append(ir.NewOp(name, args, []ir.Type{t}, attrs)).Result()
	}
	bs, bo := bcast(s), bcast(o)
	r := op("stablehlo.multiply", vec, nil, op("stablehlo.tanh", vec, nil, op("stablehlo.add", vec, nil, op("stablehlo.multiply", vec, nil, x, bs), bo)), y)
	zero := bcast(o)
	pos := op("stablehlo.compare", ir.Tensor(ir.Pred, n), ir.Attrs{"comparison_direction": ir.EnumAttr{Kind: "comparison_direction", Value: "GT"}}, x, zero)
	res := op("stablehlo.select", vec, nil, pos, r, y)
	body.Append(ir.NewOp("stablehlo.return", []*ir.Value{res}, nil, nil))

	outer := ir.NewBlock(vec, vec, sc, sc)
	f := ir.NewOp(Op, outer.Args, []ir.Type{vec}, nil)
	f.AddRegion(ir.NewRegion(body))
	outer.Append(f)

	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i] = float32(i%97)/13 - 3
		ys[i] = float32(i%31) / 7
	}
	xs[17], xs[99] = float32(math.NaN()), float32(math.Inf(-1))
	ins := [][]byte{f32bytes(xs), f32bytes(ys), f32bytes([]float32{1.7}), f32bytes([]float32{-0.3})}

	// Reference: every member through its own kernel.
	vals := map[*ir.Value][]byte{}
	for i, a := range body.Args {
		vals[a] = ins[i]
	}
	for _, m := range body.Ops[:len(body.Ops)-1] {
		var args [][]byte
		for _, v := range m.Operands {
			args = append(args, vals[v])
		}
		lower, ok := kernel.Lookup(m.Name)
		if m.Name == "stablehlo.broadcast_in_dim" { // not an elementwise kernel: fill by hand
			b := make([]byte, 4*n)
			for k := 0; k < n; k++ {
				copy(b[4*k:], args[0])
			}
			vals[m.Result()] = b
			continue
		}
		require.True(t, ok, m.Name)
		step, err := lower(seqCtx{}, m)
		require.NoError(t, err, m.Name)
		out := make([]byte, m.Result().Tensor().ByteSize())
		require.NoError(t, step(args, [][]byte{out}))
		vals[m.Result()] = out
	}
	want := vals[res]

	lower, ok := kernel.Lookup(Op)
	require.True(t, ok)
	for _, ctx := range []kernel.Context{nil, seqCtx{}} {
		before := AffineFolds()
		step, err := lower(ctx, f)
		require.NoError(t, err)
		require.Greater(t, AffineFolds(), before, "tanh(x*s + o) * y folds into one loop")
		got := make([]byte, 4*n)
		require.NoError(t, step(ins, [][]byte{got}))
		require.Equal(t, want, got)
	}

	tr := kernel.TraitsOf(Op)
	require.True(t, tr.InPlace)
	require.True(t, tr.Overwrites(f, outer.Args[0]), "x is read at the result's index")
	require.False(t, tr.Overwrites(f, outer.Args[2]), "s is broadcast")
}
