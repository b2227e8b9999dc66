package shape

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
)

// elemTypesBySize covers every storage size.
var elemTypesBySize = []ir.ElemType{ir.Pred, ir.S8, ir.BF16, ir.F32, ir.S64, ir.C128}

func TestBroadcastInDimTable(t *testing.T) {
	cases := []struct {
		name  string
		in    []int64
		out   []int64
		dims  []int64
		input []float32
		want  []float32
	}{
		{"scalar", nil, []int64{2, 3}, nil, []float32{5}, []float32{5, 5, 5, 5, 5, 5}},
		{"row", []int64{3}, []int64{2, 3}, []int64{1}, []float32{1, 2, 3}, []float32{1, 2, 3, 1, 2, 3}},
		{"col", []int64{2}, []int64{2, 3}, []int64{0}, []float32{1, 2}, []float32{1, 1, 1, 2, 2, 2}},
		{"size1", []int64{1, 3}, []int64{2, 3}, []int64{0, 1}, []float32{1, 2, 3}, []float32{1, 2, 3, 1, 2, 3}},
		{"transposing", []int64{2, 3}, []int64{3, 2}, []int64{1, 0}, []float32{1, 2, 3, 4, 5, 6}, []float32{1, 4, 2, 5, 3, 6}},
		{"zero", []int64{0}, []int64{2, 0}, []int64{1}, nil, nil},
	}
	for _, c := range cases {
		for _, ctx := range testCtxs {
			t.Run(c.name, func(t *testing.T) {
				op := mkOp("stablehlo.broadcast_in_dim", []ir.Type{ir.Tensor(ir.F32, c.in...)},
					[]ir.Type{ir.Tensor(ir.F32, c.out...)}, ir.Attrs{"broadcast_dimensions": i64a(c.dims...)})
				got := runOp(t, ctx, op, f32s(c.input...))
				require.Equal(t, f32s(c.want...), got[0])
			})
		}
	}
}

func TestBroadcastInDimErrors(t *testing.T) {
	op := mkOp("stablehlo.broadcast_in_dim", []ir.Type{ir.Tensor(ir.F32, 2)},
		[]ir.Type{ir.Tensor(ir.F32, 3)}, ir.Attrs{"broadcast_dimensions": i64a(0)})
	l, _ := lookup(op.Name)
	_, err := l(testCtxs[0], op)
	require.ErrorContains(t, err, "stablehlo.broadcast_in_dim")
}

func TestBroadcastLegacy(t *testing.T) {
	op := mkOp("stablehlo.broadcast", []ir.Type{ir.Tensor(ir.S32, 2)},
		[]ir.Type{ir.Tensor(ir.S32, 2, 2)}, ir.Attrs{"broadcast_sizes": i64a(2)})
	got := runOp(t, testCtxs[0], op, i32s(7, 8))
	require.Equal(t, []int32{7, 8, 7, 8}, toI32(got[0]))
}

func TestReshape(t *testing.T) {
	for _, et := range elemTypesBySize {
		op := mkOp("stablehlo.reshape", []ir.Type{ir.Tensor(et, 2, 3)}, []ir.Type{ir.Tensor(et, 3, 1, 2)}, nil)
		in := seqBytes(6, et.ByteSize())
		require.Equal(t, in, runOp(t, testCtxs[0], op, in)[0])
	}
}

// refPermute is the naive transpose: out[i] = in[i permuted].
func refPermute(in []byte, shape []int64, perm []int64, es int) []byte {
	outShape := make([]int64, len(perm))
	for i, p := range perm {
		outShape[i] = shape[p]
	}
	n := lowerutil.Numel(shape)
	out := make([]byte, int(n)*es)
	for o := range n {
		oi := unravel(o, outShape)
		ii := make([]int64, len(shape))
		for d, p := range perm {
			ii[p] = oi[d]
		}
		s := ravel(ii, shape)
		copy(out[int(o)*es:int(o+1)*es], in[int(s)*es:])
	}
	return out
}

func TestTranspose(t *testing.T) {
	cases := []struct {
		shape, perm []int64
	}{
		{[]int64{2, 3}, []int64{1, 0}},
		{[]int64{70, 45}, []int64{1, 0}},           // tiled, ragged tiles
		{[]int64{300, 257}, []int64{1, 0}},         // tiled and parallel
		{[]int64{4, 33, 40}, []int64{2, 0, 1}},     // tiled with outer dims
		{[]int64{5, 6, 7, 8}, []int64{3, 1, 0, 2}}, // general
		{[]int64{2, 1, 3}, []int64{1, 2, 0}},
		{[]int64{0, 3}, []int64{1, 0}},
		{nil, nil},
	}
	for _, c := range cases {
		for _, et := range elemTypesBySize {
			for _, ctx := range testCtxs {
				t.Run(fmt.Sprint(c.shape, c.perm, et, ctx.chunk), func(t *testing.T) {
					out := make([]int64, len(c.perm))
					for i, p := range c.perm {
						out[i] = c.shape[p]
					}
					op := mkOp("stablehlo.transpose", []ir.Type{ir.Tensor(et, c.shape...)}, []ir.Type{ir.Tensor(et, out...)},
						ir.Attrs{"permutation": i64a(c.perm...)})
					in := seqBytes(int(lowerutil.Numel(c.shape)), et.ByteSize())
					require.Equal(t, refPermute(in, c.shape, c.perm, et.ByteSize()), runOp(t, ctx, op, in)[0])
				})
			}
		}
	}
}

func TestTransposeBadPerm(t *testing.T) {
	op := mkOp("stablehlo.transpose", []ir.Type{ir.Tensor(ir.F32, 2, 3)}, []ir.Type{ir.Tensor(ir.F32, 3, 2)},
		ir.Attrs{"permutation": i64a(0, 0)})
	l, _ := lookup(op.Name)
	_, err := l(testCtxs[0], op)
	require.Error(t, err)
}

func TestSlice(t *testing.T) {
	cases := []struct {
		shape, start, limit, strides, out []int64
		want                              []float32
	}{
		{[]int64{5}, []int64{1}, []int64{4}, []int64{1}, []int64{3}, []float32{1, 2, 3}},
		{[]int64{5}, []int64{0}, []int64{5}, []int64{2}, []int64{3}, []float32{0, 2, 4}},
		{[]int64{3, 4}, []int64{1, 1}, []int64{3, 4}, []int64{1, 2}, []int64{2, 2}, []float32{5, 7, 9, 11}},
		{[]int64{3, 4}, []int64{1, 1}, []int64{1, 4}, []int64{1, 1}, []int64{0, 3}, nil},
		{[]int64{}, []int64{}, []int64{}, []int64{}, []int64{}, []float32{0}},
	}
	for _, c := range cases {
		op := mkOp("stablehlo.slice", []ir.Type{ir.Tensor(ir.F32, c.shape...)}, []ir.Type{ir.Tensor(ir.F32, c.out...)},
			ir.Attrs{"start_indices": i64a(c.start...), "limit_indices": i64a(c.limit...), "strides": i64a(c.strides...)})
		got := runOp(t, testCtxs[1], op, seqF32(int(lowerutil.Numel(c.shape))))
		require.Equal(t, f32s(c.want...), got[0], "%v", c)
	}
}

func TestReverse(t *testing.T) {
	op := mkOp("stablehlo.reverse", []ir.Type{ir.Tensor(ir.F32, 2, 3)}, []ir.Type{ir.Tensor(ir.F32, 2, 3)},
		ir.Attrs{"dimensions": i64a(1)})
	require.Equal(t, []float32{2, 1, 0, 5, 4, 3}, toF32(runOp(t, testCtxs[0], op, seqF32(6))[0]))
	op = mkOp("stablehlo.reverse", []ir.Type{ir.Tensor(ir.F32, 2, 3)}, []ir.Type{ir.Tensor(ir.F32, 2, 3)},
		ir.Attrs{"dimensions": i64a(0, 1)})
	require.Equal(t, []float32{5, 4, 3, 2, 1, 0}, toF32(runOp(t, testCtxs[0], op, seqF32(6))[0]))
	op = mkOp("stablehlo.reverse", []ir.Type{ir.Tensor(ir.F32, 0, 3)}, []ir.Type{ir.Tensor(ir.F32, 0, 3)},
		ir.Attrs{"dimensions": i64a(0)})
	require.Empty(t, runOp(t, testCtxs[0], op, nil)[0])
}

func TestConcatenate(t *testing.T) {
	op := mkOp("stablehlo.concatenate",
		[]ir.Type{ir.Tensor(ir.F32, 2, 1), ir.Tensor(ir.F32, 2, 0), ir.Tensor(ir.F32, 2, 2)},
		[]ir.Type{ir.Tensor(ir.F32, 2, 3)}, ir.Attrs{"dimension": ir.IntAttr{Value: 1}})
	got := runOp(t, testCtxs[1], op, f32s(1, 2), nil, f32s(3, 4, 5, 6))
	require.Equal(t, []float32{1, 3, 4, 2, 5, 6}, toF32(got[0]))
	op = mkOp("stablehlo.concatenate", []ir.Type{ir.Tensor(ir.S8, 1), ir.Tensor(ir.S8, 2)},
		[]ir.Type{ir.Tensor(ir.S8, 3)}, ir.Attrs{"dimension": ir.IntAttr{Value: 0}})
	require.Equal(t, []byte{9, 8, 7}, runOp(t, testCtxs[0], op, []byte{9}, []byte{8, 7})[0])
	bad := mkOp("stablehlo.concatenate", []ir.Type{ir.Tensor(ir.S8, 1)}, []ir.Type{ir.Tensor(ir.S8, 3)},
		ir.Attrs{"dimension": ir.IntAttr{Value: 0}})
	l, _ := lookup(bad.Name)
	_, err := l(testCtxs[0], bad)
	require.Error(t, err)
}

func TestPad(t *testing.T) {
	cases := []struct {
		name              string
		shape, lo, hi, in []int64
		out               []int64
		want              []float32
	}{
		{"edges", []int64{3}, []int64{1}, []int64{2}, []int64{0}, []int64{6}, []float32{-1, 0, 1, 2, -1, -1}},
		{"interior", []int64{3}, []int64{0}, []int64{0}, []int64{1}, []int64{5}, []float32{0, -1, 1, -1, 2}},
		{"negative", []int64{4}, []int64{-1}, []int64{-2}, []int64{0}, []int64{1}, []float32{1}},
		{"negative interior", []int64{3}, []int64{-1}, []int64{1}, []int64{2}, []int64{7}, []float32{-1, -1, 1, -1, -1, 2, -1}},
		{"negative to empty", []int64{2}, []int64{-2}, []int64{0}, []int64{0}, []int64{0}, nil},
		{"2d", []int64{2, 2}, []int64{1, 0}, []int64{0, 1}, []int64{0, 1}, []int64{3, 4},
			[]float32{-1, -1, -1, -1, 0, -1, 1, -1, 2, -1, 3, -1}},
		{"2d negative", []int64{2, 3}, []int64{0, -1}, []int64{-1, 0}, []int64{0, 0}, []int64{1, 2}, []float32{1, 2}},
		{"scalar", nil, nil, nil, nil, nil, []float32{0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			op := mkOp("stablehlo.pad", []ir.Type{ir.Tensor(ir.F32, c.shape...), ir.Tensor(ir.F32)},
				[]ir.Type{ir.Tensor(ir.F32, c.out...)},
				ir.Attrs{"edge_padding_low": i64a(c.lo...), "edge_padding_high": i64a(c.hi...), "interior_padding": i64a(c.in...)})
			got := runOp(t, testCtxs[1], op, seqF32(int(lowerutil.Numel(c.shape))), f32s(-1))
			require.Equal(t, f32s(c.want...), got[0])
		})
	}
}

func TestIota(t *testing.T) {
	op := mkOp("stablehlo.iota", nil, []ir.Type{ir.Tensor(ir.S32, 2, 3)}, ir.Attrs{"iota_dimension": ir.IntAttr{Value: 1}})
	require.Equal(t, []int32{0, 1, 2, 0, 1, 2}, toI32(runOp(t, testCtxs[0], op)[0]))
	op = mkOp("stablehlo.iota", nil, []ir.Type{ir.Tensor(ir.F32, 3, 2)}, ir.Attrs{"iota_dimension": ir.IntAttr{Value: 0}})
	require.Equal(t, []float32{0, 0, 1, 1, 2, 2}, toF32(runOp(t, testCtxs[0], op)[0]))
	// bf16: 0, 1, 2, 3 are 0x0000, 0x3f80, 0x4000, 0x4040; f16 3 = 0x4200.
	op = mkOp("stablehlo.iota", nil, []ir.Type{ir.Tensor(ir.BF16, 4)}, ir.Attrs{"iota_dimension": ir.IntAttr{Value: 0}})
	require.Equal(t, []byte{0, 0, 0x80, 0x3f, 0, 0x40, 0x40, 0x40}, runOp(t, testCtxs[0], op)[0])
	op = mkOp("stablehlo.iota", nil, []ir.Type{ir.Tensor(ir.F16, 4)}, ir.Attrs{"iota_dimension": ir.IntAttr{Value: 0}})
	require.Equal(t, []byte{0, 0, 0, 0x3c, 0, 0x40, 0, 0x42}, runOp(t, testCtxs[0], op)[0])
	// f8E4M3FN: 3 = 0 1001 100 = 0x4c; s4 wraps 8 to -8 (sign-extended byte).
	op = mkOp("stablehlo.iota", nil, []ir.Type{ir.Tensor(ir.F8E4M3FN, 4)}, ir.Attrs{"iota_dimension": ir.IntAttr{Value: 0}})
	require.Equal(t, []byte{0, 0x38, 0x40, 0x44}, runOp(t, testCtxs[0], op)[0])
	op = mkOp("stablehlo.iota", nil, []ir.Type{ir.Tensor(ir.S4, 9)}, ir.Attrs{"iota_dimension": ir.IntAttr{Value: 0}})
	require.Equal(t, []byte{0, 1, 2, 3, 4, 5, 6, 7, 0xf8}, runOp(t, testCtxs[0], op)[0])
	op = mkOp("stablehlo.iota", nil, []ir.Type{ir.Tensor(ir.C64, 2)}, ir.Attrs{"iota_dimension": ir.IntAttr{Value: 0}})
	require.Equal(t, f32s(0, 0, 1, 0), runOp(t, testCtxs[0], op)[0])
	// Past the finite range, as convert: f4E2M1FN (no NaN) codes 0..3 as
	// 0x0 0x2 0x4 0x5, 4 and 5 (ties to even) as 0x6, and saturates 6 and
	// 7 at 0x7; f8E4M3FN holds 448 (0x7e), rounds 464 down to it, and is
	// NaN (0x7f) past that. XLA:CPU's iota gives the same bits.
	op = mkOp("stablehlo.iota", nil, []ir.Type{ir.Tensor(ir.F4E2M1FN, 8)}, ir.Attrs{"iota_dimension": ir.IntAttr{Value: 0}})
	require.Equal(t, []byte{0, 2, 4, 5, 6, 6, 7, 7}, runOp(t, testCtxs[0], op)[0])
	op = mkOp("stablehlo.iota", nil, []ir.Type{ir.Tensor(ir.F8E4M3FN, 466)}, ir.Attrs{"iota_dimension": ir.IntAttr{Value: 0}})
	got := runOp(t, testCtxs[0], op)[0]
	require.Equal(t, []byte{0x7e, 0x7e, 0x7f}, []byte{got[448], got[464], got[465]})
}

func TestDynamicSlice(t *testing.T) {
	cases := []struct {
		starts []int32
		want   []float32
	}{
		{[]int32{0, 1}, []float32{1, 2, 5, 6}},
		{[]int32{1, 2}, []float32{6, 7, 10, 11}},
		{[]int32{5, 5}, []float32{6, 7, 10, 11}}, // clamped to the last window
		{[]int32{-3, -1}, []float32{0, 1, 4, 5}}, // clamped to 0
	}
	for _, c := range cases {
		op := mkOp("stablehlo.dynamic_slice",
			[]ir.Type{ir.Tensor(ir.F32, 3, 4), ir.Tensor(ir.S32), ir.Tensor(ir.S32)},
			[]ir.Type{ir.Tensor(ir.F32, 2, 2)}, ir.Attrs{"slice_sizes": i64a(2, 2)})
		got := runOp(t, testCtxs[0], op, seqF32(12), i32s(c.starts[0]), i32s(c.starts[1]))
		require.Equal(t, c.want, toF32(got[0]), "%v", c.starts)
	}
	// unsigned and 64-bit index types
	op := mkOp("stablehlo.dynamic_slice", []ir.Type{ir.Tensor(ir.F32, 5), ir.Tensor(ir.U8)},
		[]ir.Type{ir.Tensor(ir.F32, 2)}, ir.Attrs{"slice_sizes": i64a(2)})
	require.Equal(t, []float32{3, 4}, toF32(runOp(t, testCtxs[0], op, seqF32(5), []byte{200})[0]))
	op = mkOp("stablehlo.dynamic_slice", []ir.Type{ir.Tensor(ir.F32, 5), ir.Tensor(ir.S64)},
		[]ir.Type{ir.Tensor(ir.F32, 2)}, ir.Attrs{"slice_sizes": i64a(2)})
	require.Equal(t, []float32{2, 3}, toF32(runOp(t, testCtxs[0], op, seqF32(5), i64s_(2))[0]))
}

func TestDynamicUpdateSlice(t *testing.T) {
	cases := []struct {
		starts []int32
		want   []float32
	}{
		{[]int32{0, 0}, []float32{-1, -2, 2, 3, -3, -4, 6, 7, 8, 9, 10, 11}},
		{[]int32{1, 2}, []float32{0, 1, 2, 3, 4, 5, -1, -2, 8, 9, -3, -4}},
		{[]int32{7, 9}, []float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}[:0]},
		{[]int32{-1, 1}, []float32{0, -1, -2, 3, 4, -3, -4, 7, 8, 9, 10, 11}},
	}
	cases[2].want = []float32{0, 1, 2, 3, 4, 5, -1, -2, 8, 9, -3, -4}
	for _, c := range cases {
		op := mkOp("stablehlo.dynamic_update_slice",
			[]ir.Type{ir.Tensor(ir.F32, 3, 4), ir.Tensor(ir.F32, 2, 2), ir.Tensor(ir.S32), ir.Tensor(ir.S32)},
			[]ir.Type{ir.Tensor(ir.F32, 3, 4)}, nil)
		got := runOp(t, testCtxs[1], op, seqF32(12), f32s(-1, -2, -3, -4), i32s(c.starts[0]), i32s(c.starts[1]))
		require.Equal(t, c.want, toF32(got[0]), "%v", c.starts)
	}
}

func TestGetDimensionSize(t *testing.T) {
	op := mkOp("stablehlo.get_dimension_size", []ir.Type{ir.Tensor(ir.F32, 3, 7)}, []ir.Type{ir.Tensor(ir.S32)},
		ir.Attrs{"dimension": ir.IntAttr{Value: 1}})
	require.Equal(t, []int32{7}, toI32(runOp(t, testCtxs[0], op, seqF32(21))[0]))
}

func TestReshapeLargeParallelCopy(t *testing.T) {
	n := int64(300001)
	op := mkOp("stablehlo.reshape", []ir.Type{ir.Tensor(ir.S16, n)}, []ir.Type{ir.Tensor(ir.S16, 1, n)}, nil)
	in := seqBytes(int(n), 2)
	for _, ctx := range testCtxs {
		require.Equal(t, in, runOp(t, ctx, op, in)[0])
	}
}

// TestStepsDoNotAllocatePerElement guards the data-movement inner loops.
func TestStepsDoNotAllocatePerElement(t *testing.T) {
	ctx := testCtxs[0]
	cases := []struct {
		op  *ir.Op
		ins [][]byte
	}{
		{mkOp("stablehlo.transpose", []ir.Type{ir.Tensor(ir.F32, 64, 48)}, []ir.Type{ir.Tensor(ir.F32, 48, 64)},
			ir.Attrs{"permutation": i64a(1, 0)}), [][]byte{seqF32(64 * 48)}},
		{mkOp("stablehlo.broadcast_in_dim", []ir.Type{ir.Tensor(ir.F32, 48)}, []ir.Type{ir.Tensor(ir.F32, 64, 48)},
			ir.Attrs{"broadcast_dimensions": i64a(1)}), [][]byte{seqF32(48)}},
		{gatherOp(gatherCase{operand: []int64{100}, idx: []int64{500, 1}, collapsed: []int64{0}, sim: []int64{0}, ivd: 1, sizes: []int64{1}}),
			[][]byte{seqF32(100), make([]byte, 2000)}},
	}
	for _, c := range cases {
		st := lower(t, ctx, c.op)
		outs := [][]byte{make([]byte, c.op.Results[0].Tensor().ByteSize())}
		allocs := testing.AllocsPerRun(20, func() { _ = st(c.ins, outs) })
		require.LessOrEqual(t, allocs, 2.0, c.op.Name)
	}
}

// TestDynamicUpdateSliceInPlace: with the result aliasing operand 0 only the
// update is written.
func TestDynamicUpdateSliceInPlace(t *testing.T) {
	op := mkOp("stablehlo.dynamic_update_slice",
		[]ir.Type{ir.Tensor(ir.F32, 4), ir.Tensor(ir.F32, 2), ir.Tensor(ir.S32)}, []ir.Type{ir.Tensor(ir.F32, 4)}, nil)
	st := lower(t, testCtxs[0], op)
	buf := f32s(0, 1, 2, 3)
	require.NoError(t, st([][]byte{buf, f32s(-1, -2), i32s(1)}, [][]byte{buf}))
	require.Equal(t, []float32{0, -1, -2, 3}, toF32(buf))
}
