package shape

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
)

type gatherCase struct {
	name                                  string
	operand, idx                          []int64
	offsetDims, collapsed, opB, idxB, sim []int64
	ivd                                   int64
	sizes                                 []int64
	indices                               []int32
}

func (c gatherCase) resultShape() []int64 {
	var batch []int64
	for d, s := range c.idx {
		if int64(d) != c.ivd {
			batch = append(batch, s)
		}
	}
	var win []int64
	for d, s := range c.sizes {
		if !contains(c.collapsed, int64(d)) && !contains(c.opB, int64(d)) {
			win = append(win, s)
		}
	}
	out := make([]int64, len(batch)+len(win))
	wi, bi := 0, 0
	for d := range out {
		if contains(c.offsetDims, int64(d)) {
			out[d] = win[wi]
			wi++
		} else {
			out[d] = batch[bi]
			bi++
		}
	}
	return out
}

// refGather follows the StableHLO spec formula for every result element.
func refGather(c gatherCase, operand []float32) []float32 {
	outShape := c.resultShape()
	var batchDims []int64
	for d := range outShape {
		if !contains(c.offsetDims, int64(d)) {
			batchDims = append(batchDims, int64(d))
		}
	}
	out := make([]float32, lowerutil.Numel(outShape))
	for o := range lowerutil.Numel(outShape) {
		ri := unravel(o, outShape)
		batchIndex := make([]int64, len(batchDims))
		for i, d := range batchDims {
			batchIndex[i] = ri[d]
		}
		// start index vector
		siIdx := make([]int64, len(c.idx))
		bi := 0
		for d := range c.idx {
			if int64(d) == c.ivd {
				continue
			}
			siIdx[d] = batchIndex[bi]
			bi++
		}
		n := 1
		if int(c.ivd) < len(c.idx) {
			n = int(c.idx[c.ivd])
		}
		full := make([]int64, len(c.operand))
		for k := range n {
			if int(c.ivd) < len(c.idx) {
				siIdx[c.ivd] = int64(k)
			}
			s := int64(c.indices[ravel(siIdx, c.idx)])
			d := c.sim[k]
			full[d] = max(0, min(s, c.operand[d]-c.sizes[d]))
		}
		for i, od := range c.opB {
			sd := c.idxB[i]
			p := sd
			if sd >= c.ivd {
				p--
			}
			full[od] += batchIndex[p]
		}
		wi := 0
		for d := range c.operand {
			if contains(c.collapsed, int64(d)) || contains(c.opB, int64(d)) {
				continue
			}
			full[d] += ri[c.offsetDims[wi]]
			wi++
		}
		out[o] = operand[ravel(full, c.operand)]
	}
	return out
}

func gatherOp(c gatherCase) *ir.Op {
	return mkOp("stablehlo.gather", []ir.Type{ir.Tensor(ir.F32, c.operand...), ir.Tensor(ir.S32, c.idx...)},
		[]ir.Type{ir.Tensor(ir.F32, c.resultShape()...)}, ir.Attrs{
			"offset_dims": i64a(c.offsetDims...), "collapsed_slice_dims": i64a(c.collapsed...),
			"operand_batching_dims": i64a(c.opB...), "start_indices_batching_dims": i64a(c.idxB...),
			"start_index_map": i64a(c.sim...), "index_vector_dim": ir.IntAttr{Value: c.ivd},
			"slice_sizes": i64a(c.sizes...), "indices_are_sorted": ir.BoolAttr{Value: false}})
}

func TestGatherHand(t *testing.T) {
	// x[[2, 0, 5]] on a 4x2 matrix: rows, with 5 clamped to 3.
	c := gatherCase{operand: []int64{4, 2}, idx: []int64{3, 1}, offsetDims: []int64{1}, collapsed: []int64{0},
		sim: []int64{0}, ivd: 1, sizes: []int64{1, 2}, indices: []int32{2, 0, 5}}
	got := runOp(t, testCtxs[0], gatherOp(c), seqF32(8), i32s(c.indices...))
	require.Equal(t, []float32{4, 5, 0, 1, 6, 7}, toF32(got[0]))
	// Negative indices clamp to 0; implicit index vector dim (ivd == rank).
	c = gatherCase{operand: []int64{5}, idx: []int64{2}, offsetDims: nil, collapsed: []int64{0},
		sim: []int64{0}, ivd: 1, sizes: []int64{1}, indices: []int32{-4, 3}}
	got = runOp(t, testCtxs[0], gatherOp(c), seqF32(5), i32s(c.indices...))
	require.Equal(t, []float32{0, 3}, toF32(got[0]))
}

func TestGatherMatchesSpec(t *testing.T) {
	cases := []gatherCase{
		{name: "rows", operand: []int64{6, 5}, idx: []int64{4, 1}, offsetDims: []int64{1}, collapsed: []int64{0}, sim: []int64{0}, ivd: 1, sizes: []int64{1, 5}},
		{name: "2d points", operand: []int64{6, 5}, idx: []int64{3, 2}, offsetDims: nil, collapsed: []int64{0, 1}, sim: []int64{0, 1}, ivd: 1, sizes: []int64{1, 1}},
		{name: "windows", operand: []int64{6, 5, 4}, idx: []int64{2, 3, 2}, offsetDims: []int64{2, 3}, collapsed: []int64{1}, sim: []int64{1, 0}, ivd: 2, sizes: []int64{3, 1, 2}},
		{name: "ivd first", operand: []int64{6, 5}, idx: []int64{2, 4}, offsetDims: []int64{0}, collapsed: []int64{1}, sim: []int64{0, 1}, ivd: 0, sizes: []int64{2, 1}},
		{name: "offset dims first", operand: []int64{7, 3}, idx: []int64{5}, offsetDims: []int64{0}, collapsed: []int64{0}, sim: []int64{0}, ivd: 1, sizes: []int64{1, 3}},
		{name: "batching", operand: []int64{3, 6, 4}, idx: []int64{3, 5, 1}, offsetDims: []int64{2}, collapsed: []int64{1}, opB: []int64{0}, idxB: []int64{0}, sim: []int64{1}, ivd: 2, sizes: []int64{1, 1, 4}},
		{name: "batching points", operand: []int64{3, 600}, idx: []int64{3, 700, 1}, collapsed: []int64{1}, opB: []int64{0}, idxB: []int64{0}, sim: []int64{1}, ivd: 2, sizes: []int64{1, 1}},
		{name: "batching rows over blocks", operand: []int64{3, 1300}, idx: []int64{3, 1, 1300, 1}, collapsed: []int64{1}, opB: []int64{0}, idxB: []int64{0}, sim: []int64{1}, ivd: 3, sizes: []int64{1, 1}},
		{name: "batching innermost", operand: []int64{600, 3}, idx: []int64{700, 3, 1}, collapsed: []int64{0}, opB: []int64{1}, idxB: []int64{1}, sim: []int64{0}, ivd: 2, sizes: []int64{1, 1}},
		{name: "batching after ivd", operand: []int64{6, 3, 4}, idx: []int64{1, 2, 3}, offsetDims: []int64{2}, collapsed: []int64{0}, opB: []int64{1}, idxB: []int64{2}, sim: []int64{0}, ivd: 0, sizes: []int64{1, 1, 4}},
		{name: "big", operand: []int64{300, 40}, idx: []int64{900, 1}, offsetDims: []int64{1}, collapsed: []int64{0}, sim: []int64{0}, ivd: 1, sizes: []int64{1, 40}},
		{name: "empty batch", operand: []int64{3, 2}, idx: []int64{0, 1}, offsetDims: []int64{1}, collapsed: []int64{0}, sim: []int64{0}, ivd: 1, sizes: []int64{1, 2}},
	}
	rng := rand.New(rand.NewSource(2))
	for _, c := range cases {
		c.indices = make([]int32, lowerutil.Numel(c.idx))
		for i := range c.indices {
			c.indices[i] = int32(rng.Intn(12) - 3) // includes out-of-range both sides
		}
		operand := make([]float32, lowerutil.Numel(c.operand))
		for i := range operand {
			operand[i] = float32(i)
		}
		want := refGather(c, operand)
		for _, ctx := range testCtxs {
			t.Run(fmt.Sprint(c.name, ctx.chunk), func(t *testing.T) {
				got := runOp(t, ctx, gatherOp(c), f32s(operand...), i32s(c.indices...))
				require.Equal(t, f32s(want...), got[0])
			})
		}
	}
}

func TestGatherErrors(t *testing.T) {
	c := gatherCase{operand: []int64{4, 2}, idx: []int64{3, 1}, offsetDims: []int64{1}, collapsed: []int64{0},
		sim: []int64{0, 1}, ivd: 1, sizes: []int64{1, 2}}
	l, _ := lookup("stablehlo.gather")
	_, err := l(testCtxs[0], gatherOp(c))
	require.ErrorContains(t, err, "stablehlo.gather")
}
