package reduce

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// swappedComparator is ^bb(a, b): compare(b, a).
func swappedComparator(et ir.ElemType, dir string) *ir.Region {
	rb := regionBuilder{ir.NewBlock(scalarT(et), scalarT(et))}
	return rb.ret(rb.cmp(dir, "FLOAT", rb.b.Args[1], rb.b.Args[0]))
}

// interpreted adds an unused constant to r so that pattern matching fails
// and the kernel takes the general walk with the region interpreted.
func interpreted(r *ir.Region, et ir.ElemType) *ir.Region {
	b := r.Blocks[0]
	c := ir.NewOp("stablehlo.constant", nil, []ir.Type{scalarT(et)},
		ir.Attrs{"value": &ir.ElementsAttr{Type: scalarT(et), Data: make([]byte, et.ByteSize())}})
	c.Block = b
	b.Ops = append([]*ir.Op{c}, b.Ops...)
	return r
}

// TestSelectAndScatterPool checks the channel-block path against the
// general walk (regions interpreted), bit for bit: NHWC-like shapes with
// odd sizes, overlapping and disjoint windows, strides above the window,
// padding (windows wholly in padding included), every comparison
// direction in both argument orders, ties, NaNs and signed zeros, f32 and
// f64, and every parallel split.
func TestSelectAndScatterPool(t *testing.T) {
	type geo struct{ shape, win, strides, pads []int64 }
	geos := []geo{
		{[]int64{3, 8, 8, 5}, []int64{1, 2, 2, 1}, []int64{1, 2, 2, 1}, []int64{0, 0, 0, 0, 0, 0, 0, 0}},
		{[]int64{2, 7, 9, 4}, []int64{1, 3, 3, 1}, []int64{1, 2, 2, 1}, []int64{0, 0, 1, 1, 1, 1, 0, 0}},
		{[]int64{2, 7, 5, 6}, []int64{1, 2, 3, 1}, []int64{1, 3, 4, 1}, []int64{0, 0, 0, 1, 2, 0, 0, 0}},
		{[]int64{1, 5, 5, 3, 4}, []int64{1, 2, 2, 1, 1}, []int64{1, 1, 2, 1, 1}, []int64{0, 0, 0, 0, 1, 0, 0, 0, 0, 0}},
		{[]int64{2, 4, 4, 7}, []int64{1, 2, 2, 1}, []int64{1, 2, 2, 1}, []int64{0, 0, 3, 3, 0, 0, 0, 0}}, // whole windows of padding
		{[]int64{4, 6, 9}, []int64{2, 3, 1}, []int64{2, 3, 1}, []int64{1, 1, 0, 0, 0, 0}},
		{[]int64{2, 64, 64, 32}, []int64{1, 2, 2, 1}, []int64{1, 2, 2, 1}, []int64{0, 0, 0, 0, 0, 0, 0, 0}}, // large enough to run in parallel
	}
	specials := []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1)}
	rng := rand.New(rand.NewSource(3))
	for gi, gm := range geos {
		src := make([]int64, len(gm.shape))
		for d := range src {
			padded := gm.shape[d] + gm.pads[2*d] + gm.pads[2*d+1]
			src[d] = (padded-gm.win[d])/gm.strides[d] + 1
		}
		nIn, nSrc := lowerutil.Numel(gm.shape), lowerutil.Numel(src)
		in, source := make([]float64, nIn), make([]float64, nSrc)
		for i := range in {
			in[i] = float64(rng.Intn(4)) // ties
			if rng.Intn(9) == 0 {
				in[i] = specials[rng.Intn(len(specials))]
			}
		}
		for i := range source {
			source[i] = rng.NormFloat64()
		}
		for _, et := range []ir.ElemType{ir.F32, ir.F64} {
			enc := func(v []float64) []byte {
				if et == ir.F64 {
					return f64s(v...)
				}
				f := make([]float32, len(v))
				for i, x := range v {
					f[i] = float32(x)
				}
				return f32s(f...)
			}
			for _, dir := range []string{"GE", "GT", "LE", "LT"} {
				for _, swap := range []bool{false, true} {
					mkSel := func() *ir.Region {
						if swap {
							return swappedComparator(et, dir)
						}
						return simpleComparator(et, dir, "FLOAT", 1)
					}
					fast := sasOp(et, gm.shape, src, gm.win, gm.strides, gm.pads, mkSel(), binRegion("stablehlo.add", et))
					slow := sasOp(et, gm.shape, src, gm.win, gm.strides, gm.pads, interpreted(mkSel(), et), interpreted(binRegion("stablehlo.add", et), et))
					g, err := newWindowGeom(fast, gm.shape, src, "")
					require.NoError(t, err)
					sp := newSASPool(fast, g, et, et)
					require.NotNil(t, sp, "geometry %d takes the channel-block path", gi)
					require.Equal(t, gi == 0 || gi == 6, sp.tiles, "geometry %d", gi)
					require.Nil(t, newSASPool(slow, g, et, et))
					ins := [][]byte{enc(in), enc(source), enc([]float64{0.25})}
					want := runOp(t, testCtxs[0], slow, ins...)[0]
					for _, ctx := range testCtxs {
						t.Run(fmt.Sprint(gi, et, dir, swap, ctx.chunk), func(t *testing.T) {
							require.Equal(t, want, runOp(t, ctx, fast, ins...)[0])
						})
					}
					require.Equal(t, want, runOp(t, nil, fast, ins...)[0])
				}
			}
		}
	}
}

// TestSelectAndScatterPoolNotTaken: shapes and regions outside the path.
func TestSelectAndScatterPoolNotTaken(t *testing.T) {
	sel, add := simpleComparator(ir.F32, "GE", "FLOAT", 1), binRegion("stablehlo.add", ir.F32)
	for _, c := range []struct {
		et                       ir.ElemType
		shape, src, win, strides []int64
		sel, sc                  *ir.Region
	}{
		{ir.F32, []int64{8, 8}, []int64{4, 4}, []int64{2, 2}, []int64{2, 2}, sel, add},                                                            // no channel block
		{ir.F32, []int64{2, 4, 4, 3}, []int64{2, 2, 2, 3}, []int64{1, 2, 2, 1}, []int64{1, 2, 2, 1}, sel, add},                                    // block below poolMinC
		{ir.F32, []int64{2, 4, 4, 8}, []int64{2, 2, 2, 8}, []int64{1, 2, 2, 1}, []int64{1, 2, 2, 1}, sel, binRegion("stablehlo.maximum", ir.F32)}, // scatter not add
		{ir.F32, []int64{2, 4, 4, 8}, []int64{2, 2, 2, 8}, []int64{1, 2, 2, 1}, []int64{1, 2, 2, 1}, simpleComparator(ir.F32, "GE", "TOTALORDER", 1), add},
		{ir.BF16, []int64{2, 4, 4, 8}, []int64{2, 2, 2, 8}, []int64{1, 2, 2, 1}, []int64{1, 2, 2, 1}, simpleComparator(ir.BF16, "GE", "FLOAT", 1), binRegion("stablehlo.add", ir.BF16)},
	} {
		op := sasOp(c.et, c.shape, c.src, c.win, c.strides, make([]int64, 2*len(c.shape)), c.sel, c.sc)
		g, err := newWindowGeom(op, c.shape, c.src, "")
		require.NoError(t, err)
		require.Nil(t, newSASPool(op, g, c.et, c.et), "%v", c.shape)
	}
}

// BenchmarkSelectAndScatterPool: the gradient of a 2x2/2 max pool over a
// 128x28x28x32 f32 activation.
func BenchmarkSelectAndScatterPool(b *testing.B) {
	shape, src := []int64{128, 28, 28, 32}, []int64{128, 14, 14, 32}
	op := sasOp(ir.F32, shape, src, []int64{1, 2, 2, 1}, []int64{1, 2, 2, 1}, make([]int64, 8),
		simpleComparator(ir.F32, "GE", "FLOAT", 1), binRegion("stablehlo.add", ir.F32))
	rng := rand.New(rand.NewSource(1))
	in, source := make([]float32, lowerutil.Numel(shape)), make([]float32, lowerutil.Numel(src))
	for i := range in {
		in[i] = rng.Float32()
	}
	for i := range source {
		source[i] = rng.Float32()
	}
	l, _ := kernel.Lookup(op.Name)
	st, err := l(nil, op)
	require.NoError(b, err)
	ins, outs := [][]byte{f32s(in...), f32s(source...), f32s(0)}, [][]byte{make([]byte, 4*len(in))}
	b.ResetTimer()
	for range b.N {
		require.NoError(b, st(ins, outs))
	}
}
