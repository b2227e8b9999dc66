package reduce

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/floatconv"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
)

type rwCase struct {
	name                                  string
	shape, win, strides, bdil, wdil, pads []int64 // pads: lo0, hi0, lo1, hi1, ...
}

func (c rwCase) outShape() []int64 {
	out := make([]int64, len(c.shape))
	for d := range c.shape {
		padded := c.pads[2*d] + c.pads[2*d+1]
		if c.shape[d] > 0 {
			padded += (c.shape[d]-1)*c.bdil[d] + 1
		}
		dw := (c.win[d]-1)*c.wdil[d] + 1
		if padded >= dw {
			out[d] = (padded-dw)/c.strides[d] + 1
		}
	}
	return out
}

// refReduceWindow materializes the padded, dilated input (holes hold init)
// and folds every window in row-major order, as the spec describes.
func refReduceWindow(c rwCase, in []float64, init float64, f func(a, b float64) float64) []float64 {
	r := len(c.shape)
	pshape := make([]int64, r)
	for d := range r {
		pshape[d] = c.pads[2*d] + c.pads[2*d+1]
		if c.shape[d] > 0 {
			pshape[d] += (c.shape[d]-1)*c.bdil[d] + 1
		}
	}
	padded := make([]float64, lowerutil.Numel(pshape))
	for i := range padded {
		padded[i] = init
	}
	for i := range lowerutil.Numel(c.shape) {
		idx := unravel(i, c.shape)
		p := int64(0)
		ok := true
		for d := range r {
			q := c.pads[2*d] + idx[d]*c.bdil[d]
			if q < 0 || q >= pshape[d] {
				ok = false
			}
			p = p*pshape[d] + q
		}
		if ok {
			padded[p] = in[i]
		}
	}
	out := c.outShape()
	res := make([]float64, lowerutil.Numel(out))
	for o := range lowerutil.Numel(out) {
		oi := unravel(o, out)
		acc := init
		for w := range lowerutil.Numel(c.win) {
			wi := unravel(w, c.win)
			p := int64(0)
			for d := range r {
				p = p*pshape[d] + oi[d]*c.strides[d] + wi[d]*c.wdil[d]
			}
			acc = f(acc, padded[p])
		}
		res[o] = acc
	}
	return res
}

func rwOp(c rwCase, et ir.ElemType, body *ir.Region) *ir.Op {
	pad := &ir.ElementsAttr{Type: ir.Tensor(ir.S64, int64(len(c.shape)), 2), Data: u64sFromI(c.pads)}
	return mkOp("stablehlo.reduce_window", []ir.Type{ir.Tensor(et, c.shape...), ir.Tensor(et)},
		[]ir.Type{ir.Tensor(et, c.outShape()...)}, ir.Attrs{
			"window_dimensions": i64a(c.win...), "window_strides": i64a(c.strides...),
			"base_dilations": i64a(c.bdil...), "window_dilations": i64a(c.wdil...), "padding": pad}, body)
}

func u64sFromI(v []int64) []byte {
	u := make([]uint64, len(v))
	for i, x := range v {
		u[i] = uint64(x)
	}
	return u64s(u...)
}

func TestReduceWindowMatchesSpec(t *testing.T) {
	cases := []rwCase{
		{"pool 2x2 s2", []int64{4, 6}, []int64{2, 2}, []int64{2, 2}, []int64{1, 1}, []int64{1, 1}, []int64{0, 0, 0, 0}},
		{"pool 3x3 s1 same", []int64{5, 5}, []int64{3, 3}, []int64{1, 1}, []int64{1, 1}, []int64{1, 1}, []int64{1, 1, 1, 1}},
		{"cumsum", []int64{8, 3}, []int64{8, 1}, []int64{1, 1}, []int64{1, 1}, []int64{1, 1}, []int64{7, 0, 0, 0}},
		{"reverse cumsum", []int64{6}, []int64{6}, []int64{1}, []int64{1}, []int64{1}, []int64{0, 5}},
		{"base dilation", []int64{4, 3}, []int64{2, 2}, []int64{1, 2}, []int64{2, 1}, []int64{1, 1}, []int64{1, 0, 0, 1}},
		{"window dilation", []int64{7, 5}, []int64{2, 2}, []int64{1, 1}, []int64{1, 1}, []int64{3, 2}, []int64{0, 0, 0, 0}},
		{"negative padding", []int64{6}, []int64{2}, []int64{1}, []int64{1}, []int64{1}, []int64{-1, -2}},
		{"nchw", []int64{2, 3, 6, 6}, []int64{1, 1, 3, 3}, []int64{1, 1, 2, 2}, []int64{1, 1, 1, 1}, []int64{1, 1, 1, 1}, []int64{0, 0, 0, 0, 1, 1, 1, 1}},
		{"big", []int64{64, 600}, []int64{3, 3}, []int64{1, 1}, []int64{1, 1}, []int64{1, 1}, []int64{1, 1, 1, 1}},
		{"empty out", []int64{1, 4}, []int64{2, 2}, []int64{1, 1}, []int64{1, 1}, []int64{1, 1}, []int64{0, 0, 0, 0}},
		{"scalar", []int64{}, []int64{}, []int64{}, []int64{}, []int64{}, []int64{}},
	}
	rng := rand.New(rand.NewSource(6))
	bodies := []struct {
		name string
		init float64
		f    func(a, b float64) float64
	}{
		{"stablehlo.add", 0.25, func(a, b float64) float64 { return float64(float32(a + b)) }},
		{"stablehlo.maximum", math.Inf(-1), math.Max},
		{"stablehlo.minimum", 1.5, math.Min},
	}
	for _, c := range cases {
		vals := make([]float32, lowerutil.Numel(c.shape))
		ref := make([]float64, len(vals))
		for i := range vals {
			vals[i] = float32(rng.Intn(17) - 8)
			ref[i] = float64(vals[i])
		}
		for _, b := range bodies {
			want := refReduceWindow(c, ref, b.init, b.f)
			for _, ctx := range testCtxs {
				t.Run(fmt.Sprint(c.name, b.name, ctx.chunk), func(t *testing.T) {
					got := runOp(t, ctx, rwOp(c, ir.F32, binRegion(b.name, ir.F32)), f32s(vals...), f32s(float32(b.init)))
					g := toF32(got[0])
					require.Len(t, g, len(want))
					for i := range want {
						require.Equal(t, float32(want[i]), g[i], "output %d", i)
					}
				})
			}
		}
	}
}

// TestReduceWindowScanExact: the cumulative-scan fast path reproduces the
// window definition bit for bit (same operation order).
func TestReduceWindowScanExact(t *testing.T) {
	c := rwCase{"cumsum", []int64{3, 1000}, []int64{1, 1000}, []int64{1, 1}, []int64{1, 1}, []int64{1, 1}, []int64{0, 0, 999, 0}}
	rng := rand.New(rand.NewSource(7))
	vals := make([]float32, lowerutil.Numel(c.shape))
	for i := range vals {
		vals[i] = float32(rng.NormFloat64())
	}
	got := toF32(runOp(t, testCtxs[0], rwOp(c, ir.F32, binRegion("stablehlo.add", ir.F32)), f32s(vals...), f32s(0))[0])
	for l := range 3 {
		acc := float32(0)
		for i := range 1000 {
			acc += vals[l*1000+i]
			require.Equal(t, acc, got[l*1000+i])
		}
	}
}

func TestReduceWindowGenericTwoOperands(t *testing.T) {
	// Body: (a0 + x0, max(a1, x1)) over a 1-D window of 2 with stride 1.
	f, s := scalarT(ir.F32), scalarT(ir.S32)
	rb := regionBuilder{ir.NewBlock(f, s, f, s)}
	r := rb.ret(rb.bin("stablehlo.add", rb.b.Args[0], rb.b.Args[2]), rb.bin("stablehlo.maximum", rb.b.Args[1], rb.b.Args[3]))
	op := mkOp("stablehlo.reduce_window",
		[]ir.Type{ir.Tensor(ir.F32, 4), ir.Tensor(ir.S32, 4), ir.Tensor(ir.F32), ir.Tensor(ir.S32)},
		[]ir.Type{ir.Tensor(ir.F32, 4), ir.Tensor(ir.S32, 4)},
		ir.Attrs{"window_dimensions": i64a(2), "padding": i64a(0, 1)}, r)
	for _, ctx := range testCtxs {
		got := runOp(t, ctx, op, f32s(1, 2, 3, 4), i32s(5, -1, 7, 2), f32s(10), i32s(0))
		require.Equal(t, []float32{13, 15, 17, 24}, toF32(got[0]))
		require.Equal(t, []int32{5, 7, 7, 2}, toI32(got[1]))
	}
}

func TestReduceWindowInts(t *testing.T) {
	c := rwCase{"i32", []int64{5}, []int64{2}, []int64{2}, []int64{1}, []int64{1}, []int64{0, 1}}
	got := runOp(t, testCtxs[0], rwOp(c, ir.S32, binRegion("stablehlo.add", ir.S32)), i32s(1, 2, 3, 4, 5), i32s(100))
	require.Equal(t, []int32{103, 107, 205}, toI32(got[0]))
}

// TestReduceWindowBF16RoundsEachStep: XLA folds windows in the element type,
// rounding after every add (stablehlo testdata cumsum_bfloat16_8_9 relies on it).
func TestReduceWindowBF16RoundsEachStep(t *testing.T) {
	bf := func(v ...float32) []byte {
		b := make([]byte, 2*len(v))
		for i, x := range v {
			h := floatconv.F32ToBF16(x)
			b[2*i], b[2*i+1] = byte(h), byte(h>>8)
		}
		return b
	}
	// 256 + 1 rounds to 256 in bf16 at every step; an f32 accumulator would reach 258.
	in := bf(256, 1, 1)
	for _, c := range []rwCase{
		{"scan", []int64{3}, []int64{3}, []int64{1}, []int64{1}, []int64{1}, []int64{2, 0}},
		{"window", []int64{3}, []int64{3}, []int64{1}, []int64{1}, []int64{1}, []int64{0, 0}},
	} {
		got := runOp(t, testCtxs[0], rwOp(c, ir.BF16, binRegion("stablehlo.add", ir.BF16)), in, bf(0))
		want := bf(256, 256, 256)
		if c.name == "window" {
			want = bf(256)
		}
		require.Equal(t, want, got[0], c.name)
	}
}
