package compiler

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/fused"
	"github.com/stretchr/testify/require"
)

// tanh fed by a broadcast-scalar multiply and/or add, and feeding a binary
// op, folds into one member loop with the unfused plan's bits.
func TestFusionAffineChainMatchesUnfused(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.multiply", "stablehlo.tanh", "stablehlo.broadcast_in_dim")
	// Small, and large enough to be split over the workers; with x and y
	// donated the chain may write its result over the array it reads.
	for _, n := range []int64{5000, 1 << 18} {
		for _, donate := range []bool{false, true} {
			affineChains(t, n, donate)
		}
	}
}

func affineChains(t *testing.T, n int64, donate bool) {
	shape := f32t(n)
	bc := func(b *blkB, s *ir.Value) *ir.Value {
		return b.v("stablehlo.broadcast_in_dim", shape, ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}, s)
	}
	progs := map[string]func(b *blkB, a []*ir.Value) *ir.Value{
		"tanh(x*s+o)*y": func(b *blkB, a []*ir.Value) *ir.Value {
			x := b.hlo("add", b.hlo("multiply", a[0], bc(b, a[2])), bc(b, a[3]))
			return b.hlo("multiply", b.v("stablehlo.tanh", shape, nil, x), a[1])
		},
		"y-tanh(x*s)": func(b *blkB, a []*ir.Value) *ir.Value {
			return b.hlo("subtract", a[1], b.v("stablehlo.tanh", shape, nil, b.hlo("multiply", a[0], bc(b, a[2]))))
		},
		"tanh(x+o)/y": func(b *blkB, a []*ir.Value) *ir.Value {
			return b.hlo("divide", b.v("stablehlo.tanh", shape, nil, b.hlo("add", a[0], bc(b, a[3]))), a[1])
		},
		"tanh(x)+y": func(b *blkB, a []*ir.Value) *ir.Value {
			return b.hlo("add", b.v("stablehlo.tanh", shape, nil, a[0]), a[1])
		},
		"tanh(x*s+o)": func(b *blkB, a []*ir.Value) *ir.Value {
			return b.v("stablehlo.tanh", shape, nil, b.hlo("add", b.hlo("multiply", a[0], bc(b, a[2])), bc(b, a[3])))
		},
	}
	r := rand.New(rand.NewPCG(7, 8))
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(r.NormFloat64()*3), float32(r.NormFloat64())
		if i%97 == 0 {
			x[i] = float32([]float64{math.NaN(), math.Inf(1), 0, -1e-30}[i%4])
		}
	}
	for name, body := range progs {
		mb := newMod()
		mb.fn("main", "public", []ir.Type{shape, shape, f32t(), f32t()}, []ir.Type{shape}, func(b *blkB, a []*ir.Value) []*ir.Value {
			return []*ir.Value{body(b, a)}
		})
		don := make([]bool, 4)
		if donate {
			for _, i := range []int{0, 1} {
				mb.m.Funcs[0].ArgAttrs[i]["jax.buffer_donor"] = ir.BoolAttr{Value: true}
				don[i] = true
			}
		}
		args := [][]byte{f32s(x...), f32s(y...), f32s(1.7), f32s(-0.3)}
		ref, err := CompileModule(mb.m, Options{NoFuse: true})
		require.NoError(t, err)
		before := fused.AffineFolds()
		fe, err := CompileModule(mb.m, Options{})
		require.NoError(t, err)
		require.Equal(t, 1, fe.Stats().KernelSteps, name)
		require.Greater(t, fused.AffineFolds(), before, "%s folds", name)
		require.Equal(t, runCopy(t, ref, args, make([]bool, 4)), runCopy(t, fe, args, don), "%s n=%d donated=%v", name, n, donate)
	}
}
