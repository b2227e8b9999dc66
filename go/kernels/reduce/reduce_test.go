package reduce

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/internal/racedetect"
	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
)

func reduceOp(et ir.ElemType, shape, dims []int64, body *ir.Region) *ir.Op {
	red := map[int64]bool{}
	for _, d := range dims {
		red[d] = true
	}
	var kept []int64
	for i, s := range shape {
		if !red[int64(i)] {
			kept = append(kept, s)
		}
	}
	return mkOp("stablehlo.reduce", []ir.Type{ir.Tensor(et, shape...), ir.Tensor(et)}, []ir.Type{ir.Tensor(et, kept...)},
		ir.Attrs{"dimensions": i64a(dims...)}, body)
}

// refReduce folds in float64 in row-major order.
func refReduce(in []float64, shape, dims []int64, init float64, f func(a, b float64) float64) []float64 {
	red := map[int64]bool{}
	for _, d := range dims {
		red[d] = true
	}
	var kept []int64
	for i, s := range shape {
		if !red[int64(i)] {
			kept = append(kept, s)
		}
	}
	out := make([]float64, lowerutil.Numel(kept))
	for i := range out {
		out[i] = init
	}
	for i := range lowerutil.Numel(shape) {
		idx := unravel(i, shape)
		o := int64(0)
		for d, s := range shape {
			if !red[int64(d)] {
				o = o*s + idx[d]
			}
		}
		out[o] = f(out[o], in[i])
	}
	return out
}

func TestReduceSumF32Layouts(t *testing.T) {
	cases := []struct{ shape, dims []int64 }{
		{[]int64{5}, []int64{0}},
		{[]int64{3, 4}, []int64{1}},
		{[]int64{3, 4}, []int64{0}},
		{[]int64{3, 4}, []int64{0, 1}},
		{[]int64{3, 4}, nil},
		{[]int64{2, 3, 4}, []int64{1}},
		{[]int64{2, 3, 4, 5}, []int64{0, 2}},
		{[]int64{2, 3, 4, 5}, []int64{1, 3}},
		{[]int64{2, 1, 4, 1}, []int64{1, 2}},
		{[]int64{70, 600}, []int64{0}},     // inner kept, more than one column chunk
		{[]int64{3, 20000}, []int64{1}},    // segmented rows, few outputs
		{[]int64{100000}, []int64{0}},      // full reduction, parallel segments
		{[]int64{2000, 3, 40}, []int64{0}}, // inner kept, deep tree
		{[]int64{}, nil},
	}
	rng := rand.New(rand.NewSource(1))
	for _, c := range cases {
		n := lowerutil.Numel(c.shape)
		vals := make([]float32, n)
		ref := make([]float64, n)
		for i := range vals {
			vals[i] = float32(rng.NormFloat64())
			ref[i] = float64(vals[i])
		}
		want := refReduce(ref, c.shape, c.dims, 0.5, func(a, b float64) float64 { return a + b })
		var first []byte
		for _, ctx := range testCtxs {
			t.Run(fmt.Sprint(c.shape, c.dims, ctx.chunk), func(t *testing.T) {
				op := reduceOp(ir.F32, c.shape, c.dims, binRegion("stablehlo.add", ir.F32))
				got := runOp(t, ctx, op, f32s(vals...), f32s(0.5))
				g := toF32(got[0])
				require.Len(t, g, len(want))
				for i := range want {
					require.InDelta(t, want[i], float64(g[i]), 1e-4*math.Sqrt(float64(n))+1e-5, "output %d", i)
				}
				if first == nil {
					first = got[0]
				}
				require.Equal(t, first, got[0], "result depends on the parallel split")
			})
		}
	}
}

func TestReduceSumAccuracy(t *testing.T) {
	// 2^22 copies of 0.1f: a naive f32 loop drifts by about 1%; pairwise stays close.
	n := 1 << 22
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = 0.1
	}
	op := reduceOp(ir.F32, []int64{int64(n)}, []int64{0}, binRegion("stablehlo.add", ir.F32))
	got := toF32(runOp(t, testCtxs[3], op, f32s(vals...), f32s(0))[0])[0]
	require.InEpsilon(t, float64(n)*float64(float32(0.1)), float64(got), 1e-6)
}

func TestReduceOpsAndTypes(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	nan := float32(math.NaN())
	cases := []struct {
		name  string
		et    ir.ElemType
		body  string
		shape []int64
		dims  []int64
		in    []byte
		init  []byte
		want  []byte
	}{
		{"max f32 nan", ir.F32, "stablehlo.maximum", []int64{2, 3}, []int64{1}, f32s(1, nan, 3, -1, -5, -2), f32s(float32(math.Inf(-1))), f32s(nan, -1)},
		{"min f32", ir.F32, "stablehlo.minimum", []int64{2, 3}, []int64{0}, f32s(1, 7, 3, -1, 9, 2), f32s(float32(math.Inf(1))), f32s(-1, 7, 2)},
		{"max f32 init wins", ir.F32, "stablehlo.maximum", []int64{2}, []int64{0}, f32s(1, 2), f32s(5), f32s(5)},
		{"prod f64", ir.F64, "stablehlo.multiply", []int64{4}, []int64{0}, f64s(1, 2, 3, 4), f64s(0.5), f64s(12)},
		{"sum i8 wraps", ir.S8, "stablehlo.add", []int64{3}, []int64{0}, []byte{100, 100, 100}, []byte{0}, []byte{44}},
		{"max i8 signed", ir.S8, "stablehlo.maximum", []int64{3}, []int64{0}, []byte{0xff, 0x80, 5}, []byte{0x80}, []byte{5}},
		{"max u8 unsigned", ir.U8, "stablehlo.maximum", []int64{3}, []int64{0}, []byte{0xff, 0x80, 5}, []byte{0}, []byte{0xff}},
		{"sum i32", ir.S32, "stablehlo.add", []int64{2, 2}, []int64{0}, i32s(1, 2, 3, 4), i32s(10), i32s(14, 16)},
		{"and i32", ir.S32, "stablehlo.and", []int64{3}, []int64{0}, i32s(7, 6, 14), i32s(-1), i32s(6)},
		{"or u64", ir.U64, "stablehlo.or", []int64{3}, []int64{0}, u64s(1, 2, 1<<63), u64s(0), u64s(1<<63 | 3)},
		{"xor i32", ir.S32, "stablehlo.xor", []int64{3}, []int64{0}, i32s(1, 3, 4), i32s(0), i32s(6)},
		{"any pred", ir.Pred, "stablehlo.or", []int64{2, 2}, []int64{1}, []byte{0, 1, 0, 0}, []byte{0}, []byte{1, 0}},
		{"all pred", ir.Pred, "stablehlo.and", []int64{2, 2}, []int64{1}, []byte{1, 1, 0, 1}, []byte{1}, []byte{1, 0}},
		{"sum pred is or", ir.Pred, "stablehlo.add", []int64{3}, []int64{0}, []byte{1, 1, 0}, []byte{0}, []byte{1}},
		{"prod pred is and", ir.Pred, "stablehlo.multiply", []int64{3}, []int64{0}, []byte{1, 1, 0}, []byte{1}, []byte{0}},
		{"max f32 prefers +0", ir.F32, "stablehlo.maximum", []int64{2}, []int64{0}, f32s(negZero, 0), f32s(negZero), f32s(0)},
		{"min f32 prefers -0", ir.F32, "stablehlo.minimum", []int64{2}, []int64{0}, f32s(0, negZero), f32s(0), f32s(negZero)},
		{"max f64 -0 then +0 inner kept", ir.F64, "stablehlo.maximum", []int64{2, 1}, []int64{0}, f64s(math.Copysign(0, -1), 0), f64s(math.Inf(-1)), f64s(0)},
		{"sum s4 wraps", ir.S4, "stablehlo.add", []int64{2}, []int64{0}, []byte{7, 1}, []byte{0}, []byte{0xf8}},
		{"sum u4 wraps", ir.U4, "stablehlo.add", []int64{2}, []int64{0}, []byte{15, 2}, []byte{0}, []byte{1}},
		{"sum bf16", ir.BF16, "stablehlo.add", []int64{3}, []int64{0}, []byte{0x80, 0x3f, 0x00, 0x40, 0x40, 0x40}, []byte{0, 0}, []byte{0xc0, 0x40}},
		{"sum f16", ir.F16, "stablehlo.add", []int64{2}, []int64{0}, []byte{0x00, 0x3c, 0x00, 0x40}, []byte{0, 0}, []byte{0x00, 0x42}},
		{"sum c64", ir.C64, "stablehlo.add", []int64{2}, []int64{0}, f32s(1, 2, 3, 4), f32s(0, 1), f32s(4, 7)},
		{"prod c128", ir.C128, "stablehlo.multiply", []int64{2}, []int64{0}, f64s(0, 1, 0, 1), f64s(1, 0), f64s(-1, 0)},
		{"empty reduced dim gives init", ir.F32, "stablehlo.add", []int64{2, 0}, []int64{1}, nil, f32s(3), f32s(3, 3)},
		{"empty kept dim", ir.F32, "stablehlo.add", []int64{0, 2}, []int64{1}, nil, f32s(3), nil},
	}
	for _, c := range cases {
		for _, ctx := range testCtxs {
			t.Run(c.name, func(t *testing.T) {
				op := reduceOp(c.et, c.shape, c.dims, binRegion(c.body, c.et))
				got := runOp(t, ctx, op, c.in, c.init)
				if c.want == nil {
					require.Empty(t, got[0])
					return
				}
				require.Equal(t, c.want, got[0])
			})
		}
	}
}

// TestReduceFastPathUsed checks the recognized bodies never reach the region.
func TestReduceFastPathUsed(t *testing.T) {
	ctx := &fakeCtx{chunk: 1}
	op := reduceOp(ir.F32, []int64{4, 4}, []int64{0}, binRegion("stablehlo.add", ir.F32))
	runOp(t, ctx, op, f32s(make([]float32, 16)...), f32s(0))
	require.Zero(t, ctx.calls)
	// add(a, a) is not a fold of both arguments: generic path through the region.
	b := binRegion("stablehlo.add", ir.F32)
	b.Blocks[0].Ops[0].Operands[1] = b.Blocks[0].Args[0]
	op = reduceOp(ir.F32, []int64{4}, []int64{0}, b)
	got := runOp(t, ctx, op, f32s(1, 5, 2, 3), f32s(1))
	require.Equal(t, []float32{16}, toF32(got[0]))
	require.Equal(t, int64(4), ctx.calls)
}

// argmaxRegion is the body jnp.argmax emits: (value, index) pairs, NaN wins,
// ties go to the smaller index.
func argmaxRegion() *ir.Region {
	f, u := scalarT(ir.F32), scalarT(ir.S32)
	b := ir.NewBlock(f, u, f, u)
	a0, a1, x0, x1 := b.Args[0], b.Args[1], b.Args[2], b.Args[3]
	pred := scalarT(ir.Pred)
	cmp := func(d string, x, y *ir.Value, ct string) *ir.Value {
		return b.Append(ir.NewOp("stablehlo.compare", []*ir.Value{x, y}, []ir.Type{pred},
			ir.Attrs{"comparison_direction": ir.EnumAttr{Kind: "comparison_direction", Value: d},
				"compare_type": ir.EnumAttr{Kind: "comparison_type", Value: ct}})).Result()
	}
	bin := func(name string, x, y *ir.Value) *ir.Value {
		return b.Append(ir.NewOp(name, []*ir.Value{x, y}, []ir.Type{x.Type}, nil)).Result()
	}
	sel := func(c, x, y *ir.Value) *ir.Value {
		return b.Append(ir.NewOp("stablehlo.select", []*ir.Value{c, x, y}, []ir.Type{x.Type}, nil)).Result()
	}
	gt := cmp("GT", a0, x0, "FLOAT")
	isnan := cmp("NE", a0, a0, "FLOAT")
	pick := bin("stablehlo.or", gt, isnan)
	eq := cmp("EQ", a0, x0, "FLOAT")
	lt := cmp("LT", a1, x1, "SIGNED")
	pickIdx := bin("stablehlo.or", pick, bin("stablehlo.and", eq, lt))
	b.Append(ir.NewOp("stablehlo.return", []*ir.Value{sel(pick, a0, x0), sel(pickIdx, a1, x1)}, nil, nil))
	return ir.NewRegion(b)
}

func TestReduceGenericArgmax(t *testing.T) {
	for _, ctx := range testCtxs {
		op := mkOp("stablehlo.reduce",
			[]ir.Type{ir.Tensor(ir.F32, 3, 4), ir.Tensor(ir.S32, 3, 4), ir.Tensor(ir.F32), ir.Tensor(ir.S32)},
			[]ir.Type{ir.Tensor(ir.F32, 3), ir.Tensor(ir.S32, 3)},
			ir.Attrs{"dimensions": i64a(1)}, argmaxRegion())
		nan := float32(math.NaN())
		vals := f32s(1, 5, 5, 2, -1, -3, -2, -9, 0, nan, 7, nan)
		idx := i32s(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3)
		got := runOp(t, ctx, op, vals, idx, f32s(float32(math.Inf(-1))), i32s(0))
		require.Equal(t, []int32{1, 0, 1}, toI32(got[1]))
		v := toF32(got[0])
		require.Equal(t, float32(5), v[0])
		require.Equal(t, float32(-1), v[1])
		require.True(t, math.IsNaN(float64(v[2])))
	}
}

func TestReduceErrors(t *testing.T) {
	op := reduceOp(ir.F32, []int64{3}, []int64{1}, binRegion("stablehlo.add", ir.F32))
	require.ErrorContains(t, lowerErr(testCtxs[0], op), "stablehlo.reduce")
}

// argRegion builds jnp.argmax/argmin's body for value type ve, index type ie.
func argRegion(dir string, ve, ie ir.ElemType, vt, it string) *ir.Region {
	v, i := scalarT(ve), scalarT(ie)
	rb := regionBuilder{ir.NewBlock(v, i, v, i)}
	a, ai, b, bi := rb.b.Args[0], rb.b.Args[1], rb.b.Args[2], rb.b.Args[3]
	c1 := rb.cmp(dir, vt, a, b)
	ne := rb.cmp("NE", vt, a, a)
	pick := rb.bin("stablehlo.or", c1, ne)
	eq := rb.cmp("EQ", vt, a, b)
	lt := rb.cmp("LT", it, ai, bi)
	keep := rb.bin("stablehlo.or", pick, rb.bin("stablehlo.and", eq, lt))
	return rb.ret(rb.sel(pick, a, b), rb.sel(keep, ai, bi))
}

func TestArgReduceFastMatchesGeneric(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	type tc struct {
		shape, dims []int64
		ve, ie      ir.ElemType
		vt, it, dir string
	}
	var cases []tc
	for _, dir := range []string{"GT", "LT"} {
		cases = append(cases,
			tc{[]int64{6, 7}, []int64{1}, ir.F32, ir.S32, "FLOAT", "SIGNED", dir},
			tc{[]int64{6, 7}, []int64{0}, ir.F32, ir.S32, "FLOAT", "SIGNED", dir},
			tc{[]int64{3, 4, 5}, []int64{0, 2}, ir.F32, ir.U64, "FLOAT", "UNSIGNED", dir},
			tc{[]int64{5, 9}, []int64{1}, ir.S32, ir.S32, "SIGNED", "SIGNED", dir},
			tc{[]int64{40, 300}, []int64{1}, ir.F32, ir.S32, "FLOAT", "SIGNED", dir},
			tc{[]int64{40, 300}, []int64{1}, ir.F32, ir.S64, "FLOAT", "SIGNED", dir},
			tc{[]int64{2, 3, 8}, []int64{1, 2}, ir.F32, ir.S32, "FLOAT", "SIGNED", dir})
	}
	for _, c := range cases {
		n := lowerutil.Numel(c.shape)
		var vals []byte
		if c.ve == ir.F32 {
			v := make([]float32, n)
			for i := range v {
				v[i] = float32(rng.Intn(5))
				if rng.Intn(8) == 0 {
					v[i] = float32(math.NaN())
				}
				if rng.Intn(10) == 0 {
					v[i] = float32(math.Copysign(0, -1)) // ties with +0 keep the element's bits
				}
			}
			vals = f32s(v...)
		} else {
			v := make([]int32, n)
			for i := range v {
				v[i] = int32(rng.Intn(5) - 2)
			}
			vals = i32s(v...)
		}
		// Index operand: iota along the first reduced dim, like jnp.argmax.
		idx := make([]byte, int(n)*c.ie.ByteSize())
		for i := range n {
			p := unravel(i, c.shape)[c.dims[0]]
			if c.ie.ByteSize() == 8 {
				copy(idx[8*i:], u64s(uint64(p)))
			} else {
				copy(idx[4*i:], i32s(int32(p)))
			}
		}
		mkArg := func(r *ir.Region) *ir.Op {
			red := map[int64]bool{}
			for _, d := range c.dims {
				red[d] = true
			}
			var kept []int64
			for i, s := range c.shape {
				if !red[int64(i)] {
					kept = append(kept, s)
				}
			}
			return mkOp("stablehlo.reduce",
				[]ir.Type{ir.Tensor(c.ve, c.shape...), ir.Tensor(c.ie, c.shape...), ir.Tensor(c.ve), ir.Tensor(c.ie)},
				[]ir.Type{ir.Tensor(c.ve, kept...), ir.Tensor(c.ie, kept...)}, ir.Attrs{"dimensions": i64a(c.dims...)}, r)
		}
		slowRegion := argRegion(c.dir, c.ve, c.ie, c.vt, c.it)
		b := slowRegion.Blocks[0]
		extra := ir.NewOp("stablehlo.constant", nil, []ir.Type{scalarT(ir.F32)},
			ir.Attrs{"value": &ir.ElementsAttr{Type: scalarT(ir.F32), Data: f32s(1)}})
		extra.Block = b
		b.Ops = append([]*ir.Op{extra}, b.Ops...)
		initV := f32s(float32(math.Inf(map[string]int{"GT": -1, "LT": 1}[c.dir])))
		if c.ve == ir.S32 {
			initV = i32s(map[string]int32{"GT": math.MinInt32, "LT": math.MaxInt32}[c.dir])
		}
		initI := make([]byte, c.ie.ByteSize())
		t.Run(fmt.Sprint(c.shape, c.dims, c.ve, c.ie, c.dir), func(t *testing.T) {
			fastCtx, slowCtx := &fakeCtx{chunk: 3}, &fakeCtx{}
			fast := runOp(t, fastCtx, mkArg(argRegion(c.dir, c.ve, c.ie, c.vt, c.it)), vals, idx, initV, initI)
			slow := runOp(t, slowCtx, mkArg(slowRegion), vals, idx, initV, initI)
			require.Zero(t, fastCtx.calls)
			require.NotZero(t, slowCtx.calls)
			require.Equal(t, slow, fast)
		})
	}
}

func TestReduceStepAllocations(t *testing.T) {
	for _, dims := range [][]int64{{1}, {0}} {
		op := reduceOp(ir.F32, []int64{40, 50}, dims, binRegion("stablehlo.add", ir.F32))
		l, _ := lookupOp(op.Name)
		st, err := l(testCtxs[0], op)
		require.NoError(t, err)
		ins := [][]byte{make([]byte, 40*50*4), f32s(0)}
		outs := [][]byte{make([]byte, op.Results[0].Tensor().ByteSize())}
		require.NoError(t, st(ins, outs))
		if !racedetect.Enabled { // the step's scratch comes from a sync.Pool
			allocs := testing.AllocsPerRun(20, func() { _ = st(ins, outs) })
			require.LessOrEqual(t, allocs, 3.0, "dims %v", dims)
		}
	}
}

// TestReduceBytewise checks and/or/xor over one-byte types (the word-at-a-
// time loops: rows shorter than a word, with ragged tails, kept columns,
// size-1 reduced dims) against a fold element by element.
func TestReduceBytewise(t *testing.T) {
	cases := []struct{ shape, dims []int64 }{
		{[]int64{5}, []int64{0}},
		{[]int64{3, 37}, []int64{1}},
		{[]int64{4, 1000}, []int64{1}},
		{[]int64{3, 20000}, []int64{1}},
		{[]int64{37, 21}, []int64{0}},
		{[]int64{256, 300, 1}, []int64{2}},
		{[]int64{6, 7, 9}, []int64{0, 2}},
	}
	ops := map[string]func(a, b int64) int64{
		"stablehlo.and": func(a, b int64) int64 { return a & b },
		"stablehlo.or":  func(a, b int64) int64 { return a | b },
		"stablehlo.xor": func(a, b int64) int64 { return a ^ b },
	}
	rng := rand.New(rand.NewSource(5))
	for _, et := range []ir.ElemType{ir.Pred, ir.U8, ir.S8} {
		for name, f := range ops {
			for _, c := range cases {
				n := lowerutil.Numel(c.shape)
				in := make([]byte, n)
				for i := range in {
					if et == ir.Pred {
						// Mostly true, so that and-reductions are not all false.
						in[i] = byte(min(1, rng.Intn(40)))
					} else {
						in[i] = byte(rng.Intn(256) | rng.Intn(256)) // bits set often
					}
				}
				for _, init := range []byte{0, 1, 0xFF} {
					if et == ir.Pred && init > 1 {
						continue
					}
					vals := make([]float64, n)
					for i, v := range in {
						vals[i] = float64(v)
					}
					want := refReduce(vals, c.shape, c.dims, float64(init), func(a, b float64) float64 {
						return float64(f(int64(a), int64(b)))
					})
					t.Run(fmt.Sprint(et, name, c.shape, c.dims, init), func(t *testing.T) {
						for _, ctx := range testCtxs {
							got := runOp(t, ctx, reduceOp(et, c.shape, c.dims, binRegion(name, et)), in, []byte{init})[0]
							for i, w := range want {
								require.Equal(t, byte(w), got[i], "output %d", i)
							}
						}
					})
				}
			}
		}
	}
}
