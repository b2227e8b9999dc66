package partition

import (
	"math"

	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/shardy"
)

func i64a(v ...int64) ir.DenseI64Attr { return ir.DenseI64Attr{Values: v} }

func (p *prog) withRegion(name string, ins []*ir.Value, outs []ir.Type, attrs ir.Attrs, body *ir.Region) []*ir.Value {
	op := ir.NewOp(name, ins, outs, attrs)
	op.AddRegion(body)
	return p.blk.Append(op).Results
}

func maxRegion(elem ir.ElemType) *ir.Region {
	s := ir.Tensor(elem)
	blk := ir.NewBlock(s, s)
	m := blk.Append(ir.NewOp("stablehlo.maximum", []*ir.Value{blk.Args[0], blk.Args[1]}, []ir.Type{s}, nil)).Result()
	blk.Append(ir.NewOp("stablehlo.return", []*ir.Value{m}, nil, nil))
	return ir.NewRegion(blk)
}

func lessRegion() *ir.Region {
	s := ir.Tensor(ir.F32)
	blk := ir.NewBlock(s, s)
	c := blk.Append(ir.NewOp("stablehlo.compare", []*ir.Value{blk.Args[0], blk.Args[1]}, []ir.Type{ir.Tensor(ir.Pred)},
		ir.Attrs{"comparison_direction": ir.EnumAttr{Value: "LT"}})).Result()
	blk.Append(ir.NewOp("stablehlo.return", []*ir.Value{c}, nil, nil))
	return ir.NewRegion(blk)
}

// Generated, padded, pooled and sorted values of a row-sharded array stay
// row-sharded: no op falls back and no collective is needed.
func TestIotaPadWindowSort(t *testing.T) {
	for _, n := range []int{4, 8} {
		m := mesh1(n)
		rows := sh(m, 2, map[int][]string{0: {"x"}})
		p := newProg(m, []*ir.TensorType{f32(16, 6)}, []*shardy.Sharding{rows})
		x := p.blk.Args[0]
		io := p.op("stablehlo.iota", nil, f32(16, 6), ir.Attrs{"iota_dimension": ir.IntAttr{Value: 0, Type: ir.S64}})
		ii := p.op("stablehlo.iota", nil, ir.Tensor(ir.S32, 16, 6), ir.Attrs{"iota_dimension": ir.IntAttr{Value: 0, Type: ir.S64}})
		y := p.op("stablehlo.add", []*ir.Value{x, io}, f32(16, 6), nil)
		y = p.op("stablehlo.add", []*ir.Value{y, p.op("stablehlo.convert", []*ir.Value{ii}, f32(16, 6), nil)}, f32(16, 6), nil)
		pd := p.op("stablehlo.pad", []*ir.Value{y, p.constant(-1)}, f32(16, 9), ir.Attrs{
			"edge_padding_low": i64a(0, 1), "edge_padding_high": i64a(0, 2), "interior_padding": i64a(0, 0)})
		pool := p.withRegion("stablehlo.reduce_window", []*ir.Value{pd, p.constant(float32(negInf()))}, []ir.Type{f32(16, 4)},
			ir.Attrs{"window_dimensions": i64a(1, 3), "window_strides": i64a(1, 2)}, maxRegion(ir.F32))[0]
		srt := p.withRegion("stablehlo.sort", []*ir.Value{x}, []ir.Type{f32(16, 6)},
			ir.Attrs{"dimension": ir.IntAttr{Value: 1, Type: ir.S64}}, lessRegion())[0]
		mod := p.ret([]*shardy.Sharding{rows, rows, rows}, pd, pool, srt)
		pr := check(t, p, mod)
		require.Empty(t, pr.FallbackOps, "n=%d", n)
		require.Zero(t, pr.Collectives, "n=%d", n)
	}
}

// An iota along a dimension the result is sharded by on several axes.
func TestIotaTwoAxes(t *testing.T) {
	m := &shardy.Mesh{Axes: []shardy.Axis{{Name: "x", Size: 2}, {Name: "y", Size: 4}}}
	p := newProg(m, []*ir.TensorType{f32(8, 16)}, []*shardy.Sharding{sh(m, 2, map[int][]string{1: {"y", "x"}})})
	io := p.op("stablehlo.iota", nil, f32(8, 16), ir.Attrs{"iota_dimension": ir.IntAttr{Value: 1, Type: ir.S64}})
	y := p.op("stablehlo.multiply", []*ir.Value{p.blk.Args[0], io}, f32(8, 16), nil)
	mod := p.ret([]*shardy.Sharding{sh(m, 2, map[int][]string{1: {"y", "x"}})}, y)
	pr := check(t, p, mod)
	require.Empty(t, pr.FallbackOps)
	require.Zero(t, pr.Collectives)
}

// An embedding lookup of a replicated table by row-sharded ids is local;
// the scatter-add of row-sharded updates into the table is a local
// scatter and one all_reduce.
func TestGatherScatterAdd(t *testing.T) {
	for _, n := range []int{4, 8} {
		m := mesh1(n)
		p := newProg(m, []*ir.TensorType{f32(10, 4), f32(16)}, []*shardy.Sharding{nil, sh(m, 1, map[int][]string{0: {"x"}})})
		table, x := p.blk.Args[0], p.blk.Args[1]
		s := p.op("stablehlo.multiply", []*ir.Value{x, p.op("stablehlo.broadcast_in_dim", []*ir.Value{p.constant(3)}, f32(16), ir.Attrs{"broadcast_dimensions": i64a()})}, f32(16), nil)
		ids := p.op("stablehlo.convert", []*ir.Value{s}, ir.Tensor(ir.S32, 16), nil)
		ids2 := p.op("stablehlo.reshape", []*ir.Value{ids}, ir.Tensor(ir.S32, 16, 1), nil)
		emb := p.op("stablehlo.gather", []*ir.Value{table, ids2}, f32(16, 4), ir.Attrs{
			"offset_dims": i64a(1), "collapsed_slice_dims": i64a(0), "start_index_map": i64a(0),
			"index_vector_dim": ir.IntAttr{Value: 1, Type: ir.S64}, "slice_sizes": i64a(1, 4)})
		upd := p.op("stablehlo.tanh", []*ir.Value{emb}, f32(16, 4), nil)
		sc := p.withRegion("stablehlo.scatter", []*ir.Value{table, ids2, upd}, []ir.Type{f32(10, 4)}, ir.Attrs{
			"update_window_dims": i64a(1), "inserted_window_dims": i64a(0), "scatter_dims_to_operand_dims": i64a(0),
			"index_vector_dim": ir.IntAttr{Value: 1, Type: ir.S64}}, addRegion(ir.F32))[0]
		mod := p.ret([]*shardy.Sharding{sh(m, 2, map[int][]string{0: {"x"}}), nil}, emb, sc)
		pr := check(t, p, mod)
		require.Empty(t, pr.FallbackOps, "n=%d", n)
		require.Equal(t, 1, pr.Collectives, "n=%d: the scatter's all_reduce", n)
	}
}

// A convolution of a batch-sharded input with a replicated kernel runs on
// each batch block.
func TestConvolutionBatchSharded(t *testing.T) {
	m := mesh1(4)
	p := newProg(m, []*ir.TensorType{f32(8, 3, 6), f32(4, 3, 3)}, []*shardy.Sharding{sh(m, 3, map[int][]string{0: {"x"}}), nil})
	c := p.op("stablehlo.convolution", []*ir.Value{p.blk.Args[0], p.blk.Args[1]}, f32(8, 4, 6), ir.Attrs{
		"input_batch_dimension": ir.IntAttr{Value: 0, Type: ir.S64}, "input_feature_dimension": ir.IntAttr{Value: 1, Type: ir.S64},
		"input_spatial_dimensions": i64a(2), "kernel_output_feature_dimension": ir.IntAttr{Value: 0, Type: ir.S64},
		"kernel_input_feature_dimension": ir.IntAttr{Value: 1, Type: ir.S64}, "kernel_spatial_dimensions": i64a(2),
		"output_batch_dimension": ir.IntAttr{Value: 0, Type: ir.S64}, "output_feature_dimension": ir.IntAttr{Value: 1, Type: ir.S64},
		"output_spatial_dimensions": i64a(2), "window_strides": i64a(1), "padding": i64a(1, 1), "lhs_dilation": i64a(1),
		"rhs_dilation": i64a(1), "feature_group_count": ir.IntAttr{Value: 1, Type: ir.S64}, "batch_group_count": ir.IntAttr{Value: 1, Type: ir.S64},
	})
	mod := p.ret([]*shardy.Sharding{sh(m, 3, map[int][]string{0: {"x"}})}, c)
	pr := check(t, p, mod)
	require.Empty(t, pr.FallbackOps)
	require.Zero(t, pr.Collectives)
}

func negInf() float64 { return math.Inf(-1) }

// Reverse along an unsharded dimension and the gradient of max pooling
// (select_and_scatter) over the spatial dimensions of a row-sharded array
// stay local.
func TestReverseSelectAndScatter(t *testing.T) {
	m := mesh1(4)
	rows := sh(m, 2, map[int][]string{0: {"x"}})
	p := newProg(m, []*ir.TensorType{f32(8, 6), f32(8, 3)}, []*shardy.Sharding{rows, rows})
	rv := p.op("stablehlo.reverse", []*ir.Value{p.blk.Args[0]}, f32(8, 6), ir.Attrs{"dimensions": i64a(1)})
	sel := ir.NewBlock(f32(), f32())
	ge := sel.Append(ir.NewOp("stablehlo.compare", []*ir.Value{sel.Args[0], sel.Args[1]}, []ir.Type{ir.Tensor(ir.Pred)},
		ir.Attrs{"comparison_direction": ir.EnumAttr{Value: "GE"}})).Result()
	sel.Append(ir.NewOp("stablehlo.return", []*ir.Value{ge}, nil, nil))
	ss := ir.NewOp("stablehlo.select_and_scatter", []*ir.Value{rv, p.blk.Args[1], p.constant(0)}, []ir.Type{f32(8, 6)},
		ir.Attrs{"window_dimensions": i64a(1, 2), "window_strides": i64a(1, 2)})
	ss.AddRegion(ir.NewRegion(sel))
	ss.AddRegion(addRegion(ir.F32))
	p.blk.Append(ss)
	mod := p.ret([]*shardy.Sharding{rows, rows}, rv, ss.Result())
	pr := check(t, p, mod)
	require.Empty(t, pr.FallbackOps)
	require.Zero(t, pr.Collectives)
}

// Scatter-add into a column-sharded table from row-sharded updates: every
// partition gathers the table (the same collectives on all of them), the
// first of each group scatters into it, the others into zeros.
func TestScatterAddShardedOperand(t *testing.T) {
	m := mesh1(4)
	p := newProg(m, []*ir.TensorType{f32(10, 8), f32(16), f32(16, 8)},
		[]*shardy.Sharding{sh(m, 2, map[int][]string{1: {"x"}}), sh(m, 1, map[int][]string{0: {"x"}}), sh(m, 2, map[int][]string{0: {"x"}})})
	s := p.op("stablehlo.multiply", []*ir.Value{p.blk.Args[1], p.op("stablehlo.broadcast_in_dim", []*ir.Value{p.constant(3)}, f32(16), ir.Attrs{"broadcast_dimensions": i64a()})}, f32(16), nil)
	ids := p.op("stablehlo.reshape", []*ir.Value{p.op("stablehlo.convert", []*ir.Value{s}, ir.Tensor(ir.S32, 16), nil)}, ir.Tensor(ir.S32, 16, 1), nil)
	sc := p.withRegion("stablehlo.scatter", []*ir.Value{p.blk.Args[0], ids, p.blk.Args[2]}, []ir.Type{f32(10, 8)}, ir.Attrs{
		"update_window_dims": i64a(1), "inserted_window_dims": i64a(0), "scatter_dims_to_operand_dims": i64a(0),
		"index_vector_dim": ir.IntAttr{Value: 1, Type: ir.S64}}, addRegion(ir.F32))[0]
	mod := p.ret([]*shardy.Sharding{sh(m, 2, map[int][]string{1: {"x"}})}, sc)
	pr := check(t, p, mod)
	require.Empty(t, pr.FallbackOps)
}
