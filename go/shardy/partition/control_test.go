package partition

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/shardy"
)

func s32const(blk *ir.Block, v int32) *ir.Value {
	t := ir.Tensor(ir.S32)
	return blk.Append(ir.NewOp("stablehlo.constant", nil, []ir.Type{t}, ir.Attrs{"value": &ir.ElementsAttr{Type: t, Data: binary.LittleEndian.AppendUint32(nil, uint32(v))}})).Result()
}

// A fori_loop over a row-sharded carry (with a row sum, an iota and a
// matmul by a replicated weight in the body) and a case on a computed
// index run per partition with no fallback.
func TestWhileAndCase(t *testing.T) {
	for _, n := range []int{4, 8} {
		for _, global := range []bool{false, true} {
			whileAndCase(t, n, global)
		}
	}
}

// whileAndCase builds the program; with global the body subtracts the
// mean of the whole carry (an all_reduce in every trip) instead of the
// row sums.
func whileAndCase(t *testing.T, n int, global bool) {
	{
		m := mesh1(n)
		rows := sh(m, 2, map[int][]string{0: {"x"}})
		p := newProg(m, []*ir.TensorType{f32(16, 6), f32(6, 6)}, []*shardy.Sharding{rows, nil})
		s32 := ir.Tensor(ir.S32)
		w := ir.NewOp("stablehlo.while", []*ir.Value{s32const(p.blk, 0), p.blk.Args[0]}, []ir.Type{s32, f32(16, 6)}, nil)
		cond := ir.NewBlock(s32, f32(16, 6))
		lt := cond.Append(ir.NewOp("stablehlo.compare", []*ir.Value{cond.Args[0], s32const(cond, 3)}, []ir.Type{ir.Tensor(ir.Pred)},
			ir.Attrs{"comparison_direction": ir.EnumAttr{Value: "LT"}})).Result()
		cond.Append(ir.NewOp("stablehlo.return", []*ir.Value{lt}, nil, nil))
		body := ir.NewBlock(s32, f32(16, 6))
		q := &prog{blk: body}
		next := q.op("stablehlo.add", []*ir.Value{body.Args[0], s32const(body, 1)}, s32, nil)
		x := q.op("stablehlo.tanh", []*ir.Value{q.dot(body.Args[1], p.blk.Args[1], 1, 0, f32(16, 6))}, f32(16, 6), nil)
		io := q.op("stablehlo.iota", nil, f32(16, 6), ir.Attrs{"iota_dimension": ir.IntAttr{Value: 0, Type: ir.S64}})
		x = q.op("stablehlo.add", []*ir.Value{x, q.op("stablehlo.multiply", []*ir.Value{io, q.op("stablehlo.broadcast_in_dim", []*ir.Value{q.constant(0.01)}, f32(16, 6), ir.Attrs{"broadcast_dimensions": i64a()})}, f32(16, 6), nil)}, f32(16, 6), nil)
		if global {
			rs := q.sum(x, []int64{0, 1}, f32())
			x = q.op("stablehlo.subtract", []*ir.Value{x, q.op("stablehlo.broadcast_in_dim", []*ir.Value{rs}, f32(16, 6), ir.Attrs{"broadcast_dimensions": i64a()})}, f32(16, 6), nil)
		} else {
			rs := q.sum(x, []int64{1}, f32(16))
			x = q.op("stablehlo.subtract", []*ir.Value{x, q.op("stablehlo.broadcast_in_dim", []*ir.Value{rs}, f32(16, 6), ir.Attrs{"broadcast_dimensions": i64a(0)})}, f32(16, 6), nil)
		}
		body.Append(ir.NewOp("stablehlo.return", []*ir.Value{next, x}, nil, nil))
		w.AddRegion(ir.NewRegion(cond))
		w.AddRegion(ir.NewRegion(body))
		p.blk.Append(w)
		// case on the trip count (3, clamped to the last branch).
		c := ir.NewOp("stablehlo.case", []*ir.Value{w.Results[0]}, []ir.Type{f32(16, 6)}, nil)
		for _, name := range []string{"stablehlo.exponential", "stablehlo.sine"} {
			br := ir.NewBlock()
			v := br.Append(ir.NewOp(name, []*ir.Value{w.Results[1]}, []ir.Type{f32(16, 6)}, nil)).Result()
			br.Append(ir.NewOp("stablehlo.return", []*ir.Value{v}, nil, nil))
			c.AddRegion(ir.NewRegion(br))
		}
		p.blk.Append(c)
		mod := p.ret([]*shardy.Sharding{rows, rows}, w.Results[1], c.Results[0])
		pr := check(t, p, mod)
		require.Empty(t, pr.FallbackOps, "n=%d", n)
		if global {
			require.Equal(t, 1, pr.Collectives, "n=%d: the body's all_reduce", n)
		} else {
			require.Zero(t, pr.Collectives, "n=%d", n)
		}
		whiles := 0
		for _, op := range pr.Parts[1].Main().Entry().Ops {
			if op.Name == "stablehlo.while" {
				whiles++
				require.Equal(t, []int64{16 / int64(n), 6}, op.Results[1].Type.(*ir.TensorType).Shape, "the carry is the partition's block")
			}
		}
		require.Equal(t, 1, whiles)
	}
}
