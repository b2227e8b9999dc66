package reduce

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
)

type regionBuilder struct{ b *ir.Block }

func (rb regionBuilder) cmp(dir, ct string, x, y *ir.Value) *ir.Value {
	return rb.b.Append(ir.NewOp("stablehlo.compare", []*ir.Value{x, y}, []ir.Type{scalarT(ir.Pred)},
		ir.Attrs{"comparison_direction": ir.EnumAttr{Kind: "comparison_direction", Value: dir},
			"compare_type": ir.EnumAttr{Kind: "comparison_type", Value: ct}})).Result()
}

func (rb regionBuilder) sel(c, x, y *ir.Value) *ir.Value {
	return rb.b.Append(ir.NewOp("stablehlo.select", []*ir.Value{c, x, y}, []ir.Type{x.Type}, nil)).Result()
}

func (rb regionBuilder) bin(name string, x, y *ir.Value) *ir.Value {
	return rb.b.Append(ir.NewOp(name, []*ir.Value{x, y}, []ir.Type{x.Type}, nil)).Result()
}

func (rb regionBuilder) constF32(v float32) *ir.Value {
	return rb.b.Append(ir.NewOp("stablehlo.constant", nil, []ir.Type{scalarT(ir.F32)},
		ir.Attrs{"value": &ir.ElementsAttr{Type: scalarT(ir.F32), Data: f32s(v)}})).Result()
}

func (rb regionBuilder) ret(vs ...*ir.Value) *ir.Region {
	rb.b.Append(ir.NewOp("stablehlo.return", vs, nil, nil))
	return ir.NewRegion(rb.b)
}

// jaxF32Comparator is what jnp.sort emits for f32 (num_keys=1): canonicalize
// -0 and NaN, then TOTALORDER LT on operand 0; extra operands are ignored.
func jaxF32Comparator(extra ...ir.ElemType) *ir.Region {
	types := []ir.Type{scalarT(ir.F32), scalarT(ir.F32)}
	for _, e := range extra {
		types = append(types, scalarT(e), scalarT(e))
	}
	rb := regionBuilder{ir.NewBlock(types...)}
	canon := func(x *ir.Value) *ir.Value {
		z := rb.constF32(0)
		v := rb.sel(rb.cmp("EQ", "FLOAT", x, z), rb.constF32(0), x)
		return rb.sel(rb.cmp("NE", "FLOAT", x, x), rb.constF32(float32(math.NaN())), v)
	}
	a, b := canon(rb.b.Args[0]), canon(rb.b.Args[1])
	return rb.ret(rb.cmp("LT", "TOTALORDER", a, b))
}

func simpleComparator(et ir.ElemType, dir, ct string, n int) *ir.Region {
	types := make([]ir.Type, 2*n)
	for i := range types {
		types[i] = scalarT(et)
	}
	rb := regionBuilder{ir.NewBlock(types...)}
	return rb.ret(rb.cmp(dir, ct, rb.b.Args[0], rb.b.Args[1]))
}

func sortOp(dim int64, region *ir.Region, types ...*ir.TensorType) *ir.Op {
	ts := make([]ir.Type, len(types))
	for i, t := range types {
		ts[i] = t
	}
	return mkOp("stablehlo.sort", ts, ts, ir.Attrs{"dimension": ir.IntAttr{Value: dim}, "is_stable": ir.BoolAttr{Value: true}}, region)
}

func TestSortJaxFloatOrder(t *testing.T) {
	nan := float32(math.NaN())
	negNaN := math.Float32frombits(0xffc00000)
	inf := float32(math.Inf(1))
	negZero := float32(math.Copysign(0, -1))
	vals := []float32{3, nan, negZero, -inf, 0, negNaN, 1, inf, negZero}
	idx := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8}
	for _, c := range testCtxs {
		ctx := &fakeCtx{chunk: c.chunk}
		op := sortOp(0, jaxF32Comparator(ir.S32), ir.Tensor(ir.F32, 9), ir.Tensor(ir.S32, 9))
		got := runOp(t, ctx, op, f32s(vals...), i32s(idx...))
		// -0 and +0 tie (original order kept); every NaN ties and goes last.
		require.Equal(t, []int32{3, 2, 4, 8, 6, 0, 7, 1, 5}, toI32(got[1]))
		require.Zero(t, ctx.calls, "fast path expected")
	}
}

func TestSortTypesAndDirections(t *testing.T) {
	cases := []struct {
		name string
		et   ir.ElemType
		dir  string
		ct   string
		in   []byte
		want []byte
	}{
		{"i32 asc", ir.S32, "LT", "SIGNED", i32s(3, -1, 2, -5), i32s(-5, -1, 2, 3)},
		{"i32 desc", ir.S32, "GT", "SIGNED", i32s(3, -1, 2, -5), i32s(3, 2, -1, -5)},
		{"u64 asc", ir.U64, "LT", "UNSIGNED", u64s(1<<63, 2, 1), u64s(1, 2, 1<<63)},
		{"u8 asc", ir.U8, "LT", "UNSIGNED", []byte{200, 3, 100}, []byte{3, 100, 200}},
		{"i8 asc", ir.S8, "LT", "SIGNED", []byte{200, 3, 100}, []byte{200, 3, 100}},
		{"pred", ir.Pred, "LT", "UNSIGNED", []byte{1, 0, 1, 0}, []byte{0, 0, 1, 1}},
		{"f64 float", ir.F64, "LT", "FLOAT", f64s(2, -1, 0.5), f64s(-1, 0.5, 2)},
		{"f32 totalorder", ir.F32, "LT", "TOTALORDER", f32s(0, float32(math.Copysign(0, -1)), -1), f32s(-1, float32(math.Copysign(0, -1)), 0)},
		{"bf16 desc", ir.BF16, "GT", "FLOAT", []byte{0x80, 0x3f, 0x00, 0x40, 0x80, 0xbf}, []byte{0x00, 0x40, 0x80, 0x3f, 0x80, 0xbf}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := &fakeCtx{}
			n := int64(len(c.in) / c.et.ByteSize())
			op := sortOp(0, simpleComparator(c.et, c.dir, c.ct, 1), ir.Tensor(c.et, n))
			require.Equal(t, c.want, runOp(t, ctx, op, c.in)[0])
			require.Zero(t, ctx.calls)
		})
	}
}

// TestSortFastMatchesGeneric sorts random data with duplicates and NaNs via
// the fast path and via the interpreted comparator (forced by an unused op).
func TestSortFastMatchesGeneric(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for _, shape := range [][]int64{{50}, {7, 40}, {40, 7}, {3, 0}, {3, 5, 9}} {
		for dim := range len(shape) {
			vals := make([]float32, lowerutil.Numel(shape))
			for i := range vals {
				vals[i] = float32(rng.Intn(10)) - 5
				if rng.Intn(10) == 0 {
					vals[i] = float32(math.NaN())
				}
			}
			idx := make([]int32, len(vals))
			for i := range idx {
				idx[i] = int32(i)
			}
			fastCtx, slowCtx := &fakeCtx{chunk: 2}, &fakeCtx{chunk: 1 << 20}
			fast := sortOp(int64(dim), jaxF32Comparator(ir.S32), ir.Tensor(ir.F32, shape...), ir.Tensor(ir.S32, shape...))
			r := jaxF32Comparator(ir.S32)
			b := r.Blocks[0]
			extra := ir.NewOp("stablehlo.constant", nil, []ir.Type{scalarT(ir.F32)},
				ir.Attrs{"value": &ir.ElementsAttr{Type: scalarT(ir.F32), Data: f32s(1)}})
			extra.Block = b
			b.Ops = append([]*ir.Op{extra}, b.Ops...)
			slow := sortOp(int64(dim), r, ir.Tensor(ir.F32, shape...), ir.Tensor(ir.S32, shape...))
			t.Run(fmt.Sprint(shape, dim), func(t *testing.T) {
				g1 := runOp(t, fastCtx, fast, f32s(vals...), i32s(idx...))
				g2 := runOp(t, slowCtx, slow, f32s(vals...), i32s(idx...))
				require.Equal(t, g2[1], g1[1])
				require.Zero(t, fastCtx.calls)
				if len(vals) > 1 {
					require.NotZero(t, slowCtx.calls)
				}
			})
		}
	}
}

// TestSortTwoKeys uses a lexicographic comparator (generic path).
func TestSortTwoKeys(t *testing.T) {
	f, s := scalarT(ir.F32), scalarT(ir.S32)
	rb := regionBuilder{ir.NewBlock(f, f, s, s)}
	a0, b0, a1, b1 := rb.b.Args[0], rb.b.Args[1], rb.b.Args[2], rb.b.Args[3]
	lt0 := rb.cmp("LT", "FLOAT", a0, b0)
	eq0 := rb.cmp("EQ", "FLOAT", a0, b0)
	gt1 := rb.cmp("GT", "SIGNED", a1, b1)
	r := rb.ret(rb.bin("stablehlo.or", lt0, rb.bin("stablehlo.and", eq0, gt1)))
	op := sortOp(1, r, ir.Tensor(ir.F32, 1, 5), ir.Tensor(ir.S32, 1, 5))
	got := runOp(t, testCtxs[2], op, f32s(2, 1, 2, 1, 0), i32s(1, 2, 3, 4, 5))
	require.Equal(t, []float32{0, 1, 1, 2, 2}, toF32(got[0]))
	require.Equal(t, []int32{5, 4, 2, 3, 1}, toI32(got[1]))
}

func TestSortLarge(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	n := 5000
	vals := make([]int32, n)
	for i := range vals {
		vals[i] = int32(rng.Intn(1000))
	}
	op := sortOp(0, simpleComparator(ir.S32, "LT", "SIGNED", 1), ir.Tensor(ir.S32, int64(n)))
	got := toI32(runOp(t, testCtxs[3], op, i32s(vals...))[0])
	for i := 1; i < n; i++ {
		require.LessOrEqual(t, got[i-1], got[i])
	}
}
