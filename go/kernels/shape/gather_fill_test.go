package shape

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// A gather with a fill value writes it over every slice whose (wrapped)
// start index is out of range and gathers the others as the clamping
// gather does: point takes, row takes, batched takes (take_along_axis),
// index vectors of two components (the general path), with and without
// the wrap attribute.
func TestGatherFill(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    gatherCase
	}{
		{"take", gatherCase{operand: []int64{10}, idx: []int64{900}, collapsed: []int64{0}, sim: []int64{0}, ivd: 1, sizes: []int64{1}}},
		{"rows", gatherCase{operand: []int64{10, 6}, idx: []int64{900, 1}, offsetDims: []int64{1}, collapsed: []int64{0},
			sim: []int64{0}, ivd: 1, sizes: []int64{1, 6}}},
		{"row blocks", gatherCase{operand: []int64{10, 6}, idx: []int64{900, 1}, offsetDims: []int64{1, 2},
			sim: []int64{0}, ivd: 1, sizes: []int64{3, 6}}},
		{"batched", gatherCase{operand: []int64{30, 10}, idx: []int64{30, 30, 1}, collapsed: []int64{1}, opB: []int64{0},
			idxB: []int64{0}, sim: []int64{1}, ivd: 2, sizes: []int64{1, 1}}},
		{"two components", gatherCase{operand: []int64{10, 4}, idx: []int64{900, 2}, collapsed: []int64{0, 1},
			sim: []int64{0, 1}, ivd: 1, sizes: []int64{1, 1}}},
	} {
		for _, wrap := range []int64{0, 10} {
			c := tc.c
			vec := int64(1)
			if int(c.ivd) < len(c.idx) {
				vec = c.idx[c.ivd]
			}
			n := int(numElems(c.idx))
			raw := randIdx(n, 30)
			for i := range raw {
				raw[i] -= 12 // -12 .. 17: negative and past the end
			}
			// What the op reads: wrapped; out-of-range slices are filled.
			c.indices = make([]int32, n)
			for i, v := range raw {
				c.indices[i] = v
				if v < 0 {
					c.indices[i] += int32(wrap)
				}
			}
			operand := make([]float32, numElems(c.operand))
			for i := range operand {
				operand[i] = float32(i) + 0.25
			}
			want := refGather(c, operand) // clamped
			winElems := len(want) / (n / int(vec))
			for b := range n / int(vec) {
				for k := range int(vec) {
					v := int64(c.indices[b*int(vec)+k])
					d := c.sim[k]
					if v < 0 || v > c.operand[d]-c.sizes[d] {
						for e := range winElems {
							want[b*winElems+e] = -7.5
						}
					}
				}
			}
			for _, ctx := range testCtxs {
				op := gatherOp(c)
				op.Attrs[GatherFillAttr] = &ir.ElementsAttr{Type: ir.Tensor(ir.F32), Data: f32s(-7.5)}
				if wrap != 0 {
					op.Attrs[WrapIndicesAttr] = ir.IntAttr{Value: wrap, Type: ir.S64}
				}
				got := toF32(runOp(t, ctx, op, f32s(operand...), i32s(raw...))[0])
				for i := range want {
					require.Equal(t, math.Float32bits(want[i]), math.Float32bits(got[i]), "%s wrap %d chunk %d: element %d", tc.name, wrap, ctx.chunk, i)
				}
			}
		}
	}
}

// A fill of another type than the result is an error naming the op.
func TestGatherFillTypeChecked(t *testing.T) {
	c := gatherCase{operand: []int64{10}, idx: []int64{4}, collapsed: []int64{0}, sim: []int64{0}, ivd: 1, sizes: []int64{1}}
	op := gatherOp(c)
	op.Attrs[GatherFillAttr] = &ir.ElementsAttr{Type: ir.Tensor(ir.S32), Data: i32s(1)}
	l, _ := lookup(op.Name)
	_, err := l(testCtxs[0], op)
	require.ErrorContains(t, err, GatherFillAttr)
}
