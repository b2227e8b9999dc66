package reduce

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// approxTopKOp builds ApproxTopK over (f32 values, s32 indices) of shape
// in, keeping keep elements along dim, with the given comparator.
func approxTopKOp(in []int64, dim int64, keep int64, topK int64, aggregate bool, cmp *ir.Region) *ir.Op {
	out := append([]int64(nil), in...)
	out[dim] = keep
	cfg := ir.DictAttr{Entries: ir.Attrs{
		"top_k":             ir.IntAttr{Value: topK, Type: ir.S64},
		"reduction_dim":     ir.IntAttr{Value: dim, Type: ir.S64},
		"aggregate_to_topk": ir.BoolAttr{Value: aggregate},
		"is_fallback":       ir.BoolAttr{Value: true},
	}}
	attrs := ir.Attrs{"call_target_name": ir.StringAttr{Value: "ApproxTopK"}, "mhlo.backend_config": cfg,
		"called_computations": ir.ArrayAttr{Elems: []ir.Attr{ir.SymbolRefAttr{Name: "cmp"}}}}
	var regions []*ir.Region
	if cmp != nil {
		regions = append(regions, cmp)
	}
	return mkOp("stablehlo.custom_call",
		[]ir.Type{ir.Tensor(ir.F32, in...), ir.Tensor(ir.S32, in...), ir.Tensor(ir.F32), ir.Tensor(ir.S32)},
		[]ir.Type{ir.Tensor(ir.F32, out...), ir.Tensor(ir.S32, out...)}, attrs, regions...)
}

// funcReturnComparator is a called function's body: compare dir on operand
// 0 and a func.return terminator (what a compiler attaching the function
// body hands over).
func funcReturnComparator(dir string, plusOne bool) *ir.Region {
	types := []ir.Type{scalarT(ir.F32), scalarT(ir.F32), scalarT(ir.S32), scalarT(ir.S32)}
	rb := regionBuilder{ir.NewBlock(types...)}
	x, y := rb.b.Args[0], rb.b.Args[1]
	if plusOne { // defeats the fast-path matcher: runs the compiled region
		one := rb.constF32(1)
		x, y = rb.bin("stablehlo.add", x, one), rb.bin("stablehlo.add", y, one)
	}
	c := rb.cmp(dir, "FLOAT", x, y)
	rb.b.Append(ir.NewOp("func.return", []*ir.Value{c}, nil, nil))
	return ir.NewRegion(rb.b)
}

func TestApproxTopK(t *testing.T) {
	l, ok := kernel.LookupCustomCall("ApproxTopK")
	require.True(t, ok)
	run := func(ctx kernel.Context, op *ir.Op, ins ...[]byte) [][]byte {
		st, err := l(ctx, op)
		require.NoError(t, err)
		outs := make([][]byte, len(op.Results))
		for i, r := range op.Results {
			outs[i] = make([]byte, r.Tensor().ByteSize())
		}
		require.NoError(t, st(ins, outs))
		return outs
	}
	x := f32s(3, 9, -1, 9, 0, 7)
	idx := i32s(0, 1, 2, 3, 4, 5)
	for _, tc := range []struct {
		name    string
		in      []int64
		dim     int64
		keep    int64
		dir     string
		plusOne bool
		vals    []float32
		idx     []int32
	}{
		// Stable: equal keys keep their input order (9 at 1 before 9 at 3).
		{"max 1-d", []int64{6}, 0, 4, "GT", false, []float32{9, 9, 7, 3}, []int32{1, 3, 5, 0}},
		{"min 1-d generic comparator", []int64{6}, 0, 2, "LT", true, []float32{-1, 0}, []int32{2, 4}},
		{"rows", []int64{2, 3}, 1, 2, "GT", false, []float32{9, 3, 9, 7}, []int32{1, 0, 3, 5}},
		{"columns", []int64{2, 3}, 0, 1, "GT", true, []float32{9, 9, 7}, []int32{3, 1, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, ctx := range testCtxs {
				op := approxTopKOp(tc.in, tc.dim, tc.keep, tc.keep, true, funcReturnComparator(tc.dir, tc.plusOne))
				got := run(ctx, op, x, idx, f32s(0), i32s(0))
				require.Equal(t, tc.vals, toF32(got[0]))
				require.Equal(t, tc.idx, toI32(got[1]))
			}
		})
	}
	// Without aggregate_to_topk the result type carries the (larger)
	// approximate output size; the kernel keeps that many, still sorted.
	got := run(testCtxs[0], approxTopKOp([]int64{6}, 0, 5, 2, false, funcReturnComparator("GT", false)), x, idx, f32s(0), i32s(0))
	require.Equal(t, []float32{9, 9, 7, 3, 0}, toF32(got[0]))
}

func TestApproxTopKErrors(t *testing.T) {
	l, _ := kernel.LookupCustomCall("ApproxTopK")
	for _, tc := range []struct {
		name string
		op   *ir.Op
		want string
	}{
		{"no comparator region", approxTopKOp([]int64{6}, 0, 2, 2, true, nil), "comparator"},
		{"top_k mismatch", approxTopKOp([]int64{6}, 0, 3, 2, true, funcReturnComparator("GT", false)), "aggregate_to_topk"},
		{"keeps more than input", approxTopKOp([]int64{6}, 0, 7, 7, true, funcReturnComparator("GT", false)), "keeps 7 of 6"},
		{"bad dim", approxTopKOp([]int64{6}, 0, 2, 2, true, funcReturnComparator("GT", false)), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == "" {
				tc.op.Attrs["mhlo.backend_config"].(ir.DictAttr).Entries["reduction_dim"] = ir.IntAttr{Value: 3, Type: ir.S64}
				tc.want = "reduction_dim 3 out of range"
			}
			_, err := l(testCtxs[0], tc.op)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
