package reduce

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
)

// randPoolCase makes a rank-3 or rank-4 window. With nhwc the last dim is a
// channel block (unit window and stride, no padding); otherwise the last
// dim is windowed too (NCHW-like). Leading dims get windows 1..3, strides
// 1..3, low/high padding 0..2 and sometimes base or window dilation.
func randPoolCase(rng *rand.Rand, nhwc bool, it int) rwCase {
	r := 3 + rng.Intn(2)
	c := rwCase{name: fmt.Sprint(it), shape: make([]int64, r), win: make([]int64, r), strides: make([]int64, r),
		bdil: make([]int64, r), wdil: make([]int64, r), pads: make([]int64, 2*r)}
	for d := range r {
		c.shape[d] = int64(1 + rng.Intn(6))
		c.win[d] = int64(1 + rng.Intn(3))
		c.strides[d] = int64(1 + rng.Intn(3))
		c.bdil[d], c.wdil[d] = 1, 1
		if rng.Intn(6) == 0 {
			c.bdil[d] = int64(2 + rng.Intn(2))
		}
		if rng.Intn(6) == 0 {
			c.wdil[d] = int64(2 + rng.Intn(2))
		}
		c.pads[2*d] = int64(rng.Intn(3))
		c.pads[2*d+1] = int64(rng.Intn(3))
	}
	c.win[0], c.strides[0] = 1, 1 // a batch dim
	l := r - 1
	if nhwc {
		c.shape[l] = []int64{1, 3, 4, 5, 8, 17, 64}[rng.Intn(7)]
		c.win[l], c.strides[l], c.bdil[l], c.pads[2*l], c.pads[2*l+1] = 1, 1, 1, 0, 0
		c.win[1] = max(c.win[1], 2)
	} else {
		c.win[l] = max(c.win[l], 2)
	}
	return c
}

// TestReduceWindowPoolMatchesGeneral: the channel-block fold (pool.go) gives
// the same bits as the general window walk, for every type and body, NHWC
// and NCHW-like layouts, padding, strides and dilations; it is taken exactly
// for windows with a channel block of at least poolMinC elements.
func TestReduceWindowPoolMatchesGeneral(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	types := []ir.ElemType{ir.F32, ir.F64, ir.F16, ir.BF16, ir.C64, ir.S8, ir.S32, ir.U8, ir.U64, ir.S4, ir.U2, ir.Pred}
	bodies := []string{"stablehlo.add", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum",
		"stablehlo.and", "stablehlo.or", "stablehlo.xor"}
	taken, declined := 0, 0
	for it := range 1200 {
		et := types[it%len(types)]
		body := bodies[rng.Intn(len(bodies))]
		kind := binaryBody(binRegion(body, et), et)
		if kind == opNone || newTyped(et, kind) == nil {
			continue
		}
		nhwc := rng.Intn(4) != 0
		c := randPoolCase(rng, nhwc, it)
		op := rwOp(c, et, binRegion(body, et))
		if d, _ := scanForm(op, c.shape); d >= 0 {
			continue // the cumulative path, tested elsewhere
		}
		out := c.outShape()
		g, err := newWindowGeom(op, c.shape, out, "base_dilations")
		require.NoError(t, err, "%+v", c)
		g.directOut = !subByte(et)
		g.kind = kind
		// The channel block: the trailing dims with unit window and
		// stride, no padding and no base dilation.
		k, block := len(c.shape), int64(1)
		for k > 0 && c.win[k-1] == 1 && c.strides[k-1] == 1 && c.bdil[k-1] == 1 && c.pads[2*k-2] == 0 && c.pads[2*k-1] == 0 {
			k--
			block *= c.shape[k]
		}
		want := k > 0 && k < len(c.shape) && block >= poolMinC
		require.False(t, want && !nhwc)
		p := poolFormOf(g)
		require.Equal(t, want, p != nil, "%+v", c)
		if p != nil {
			taken++
			require.Equal(t, int(block), p.c)
			require.Equal(t, k, p.k)
		} else {
			declined++
		}
		in := genElems(rng, et, int(lowerutil.Numel(c.shape)))
		var init []byte
		switch rng.Intn(3) {
		case 0:
			init = make([]byte, et.ByteSize())
		case 1:
			init = oneOf(et)
		default:
			init = genElems(rng, et, 1)
		}
		ref := make([]byte, int(lowerutil.Numel(out))*et.ByteSize())
		require.NoError(t, newTyped(et, kind).windowStep(nil, g)([][]byte{in, init}, [][]byte{ref}))
		for _, ctx := range testCtxs {
			got := runOp(t, ctx, op, in, init)
			requireSameUpToNaNPayload(t, et, ref, got[0], fmt.Sprint(et, body, c, ctx.chunk))
		}
	}
	require.Greater(t, taken, 300)
	require.Greater(t, declined, 100)
}

// TestPoolFormDeclines: windowed, strided, padded or base-dilated innermost
// dims, small channel blocks and all-unit windows keep the general walk.
func TestPoolFormDeclines(t *testing.T) {
	base := rwCase{shape: []int64{2, 6, 6, 8}, win: []int64{1, 2, 2, 1}, strides: []int64{1, 2, 2, 1},
		bdil: []int64{1, 1, 1, 1}, wdil: []int64{1, 1, 1, 1}, pads: make([]int64, 8)}
	form := func(edit func(c *rwCase)) *poolForm {
		c := base
		c.shape, c.win, c.strides = append([]int64(nil), c.shape...), append([]int64(nil), c.win...), append([]int64(nil), c.strides...)
		c.bdil, c.wdil, c.pads = append([]int64(nil), c.bdil...), append([]int64(nil), c.wdil...), append([]int64(nil), c.pads...)
		edit(&c)
		g, err := newWindowGeom(rwOp(c, ir.F32, binRegion("stablehlo.add", ir.F32)), c.shape, c.outShape(), "base_dilations")
		require.NoError(t, err)
		return poolFormOf(g)
	}
	p := form(func(*rwCase) {})
	require.NotNil(t, p)
	require.Equal(t, poolForm{k: 3, c: 8, rows: 2 * 3 * 3, tab: [][]int64{{0, 288}, {0, 48, 96, 144, 192, 240}, {0, 8, 16, 24, 32, 40}}}, *p)
	p = form(func(c *rwCase) { c.pads[2], c.win[2], c.strides[2] = 1, 3, 1 }) // H padded low by 1, W windowed 3 at stride 1
	require.NotNil(t, p)
	require.Equal(t, []int64{-1, 0, 48, 96, 144, 192}, p.tab[1])
	require.Equal(t, []int64{0, 8, 16, 8, 16, 24, 16, 24, 32, 24, 32, 40}, p.tab[2])
	p = form(func(c *rwCase) { c.win[2], c.strides[2] = 1, 1; c.shape[3] = 2; c.shape[2] = 3 })
	require.NotNil(t, p, "a block of two dims")
	require.Equal(t, 2, p.k)
	require.Equal(t, 6, p.c)
	require.Nil(t, form(func(c *rwCase) { c.win[3] = 2 }))
	require.Nil(t, form(func(c *rwCase) { c.strides[3] = 2 }))
	require.Nil(t, form(func(c *rwCase) { c.pads[7] = 1 }))
	require.Nil(t, form(func(c *rwCase) { c.bdil[3] = 2 }))
	require.Nil(t, form(func(c *rwCase) { c.shape[3] = 3 }))
	require.Nil(t, form(func(c *rwCase) { c.win = []int64{1, 1, 1, 1}; c.strides = []int64{1, 1, 1, 1} }))
	require.Nil(t, form(func(c *rwCase) { c.win[1] = 0 }))
	require.Nil(t, form(func(c *rwCase) {
		c.shape[1], c.win[1], c.strides[1], c.pads[2] = 1000, 1000, 1, 999 // cumulative over 1000
	}), "offset table too large")
}
