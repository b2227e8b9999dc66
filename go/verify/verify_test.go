package verify

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// oneOp builds main(args) { r = name(args) {attrs}; return r }.
func oneOp(name string, args []ir.Type, results []ir.Type, attrs ir.Attrs) func() *ir.Module {
	return func() *ir.Module {
		b := newFunc(args...)
		op := b.op(name, b.block.Args, results, attrs)
		return b.ret(op.Results...)
	}
}

// withRegions is oneOp with regions attached.
func withRegions(name string, args []ir.Type, results []ir.Type, attrs ir.Attrs, regs ...func() *ir.Region) func() *ir.Module {
	return func() *ir.Module {
		b := newFunc(args...)
		op := b.op(name, b.block.Args, results, attrs)
		for _, r := range regs {
			op.AddRegion(r())
		}
		return b.ret(op.Results...)
	}
}

func ts(xs ...ir.Type) []ir.Type { return xs }

var (
	f32x4   = tensor(ir.F32, 4)
	f32x2x3 = tensor(ir.F32, 2, 3)
	i32s    = tensor(ir.S32)
	f32s    = tensor(ir.F32)
	pred    = tensor(ir.Pred)
)

type verifyCase struct {
	name  string
	build func() *ir.Module
	err   string // "" = valid; otherwise a substring of the error
}

func runCases(t *testing.T, cases []verifyCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Module(c.build())
			if c.err == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			require.Contains(t, err.Error(), c.err)
		})
	}
}

func TestElementwise(t *testing.T) {
	c64x4 := tensor(ir.C64, 4)
	runCases(t, []verifyCase{
		{"add ok", oneOp("stablehlo.add", ts(f32x4, f32x4), ts(f32x4), nil), ""},
		{"add bool ok", oneOp("stablehlo.add", ts(tensor(ir.Pred, 4), tensor(ir.Pred, 4)), ts(tensor(ir.Pred, 4)), nil), ""},
		{"add mismatched operands", oneOp("stablehlo.add", ts(f32x4, tensor(ir.F32, 5)), ts(f32x4), nil), "rhs type must equal lhs type"},
		{"add wrong result", oneOp("stablehlo.add", ts(f32x4, f32x4), ts(tensor(ir.F64, 4)), nil), "result type must equal operand type"},
		{"add one operand", oneOp("stablehlo.add", ts(f32x4), ts(f32x4), nil), "expects 2 operands"},
		{"subtract bool", oneOp("stablehlo.subtract", ts(pred, pred), ts(pred), nil), "expected signed integer"},
		{"and float", oneOp("stablehlo.and", ts(f32x4, f32x4), ts(f32x4), nil), "element type f32"},
		{"shift ok", oneOp("stablehlo.shift_left", ts(tensor(ir.U32, 2), tensor(ir.U32, 2)), ts(tensor(ir.U32, 2)), nil), ""},
		{"sqrt int", oneOp("stablehlo.sqrt", ts(tensor(ir.S32, 2)), ts(tensor(ir.S32, 2)), nil), "expected floating-point or complex"},
		{"abs complex ok", oneOp("stablehlo.abs", ts(c64x4), ts(f32x4), nil), ""},
		{"abs complex wrong", oneOp("stablehlo.abs", ts(c64x4), ts(c64x4), nil), "expected f32"},
		{"abs unsigned", oneOp("stablehlo.abs", ts(tensor(ir.U8, 2)), ts(tensor(ir.U8, 2)), nil), "element type ui8"},
		{"real ok", oneOp("stablehlo.real", ts(c64x4), ts(f32x4), nil), ""},
		{"complex ok", oneOp("stablehlo.complex", ts(f32x4, f32x4), ts(c64x4), nil), ""},
		{"complex f16", oneOp("stablehlo.complex", ts(tensor(ir.F16, 4), tensor(ir.F16, 4)), ts(c64x4), nil), "f32 or f64"},
		{"is_finite ok", oneOp("stablehlo.is_finite", ts(f32x4), ts(tensor(ir.Pred, 4)), nil), ""},
		{"is_finite result", oneOp("stablehlo.is_finite", ts(f32x4), ts(f32x4), nil), "expected i1"},
		{"convert ok", oneOp("stablehlo.convert", ts(f32x4), ts(tensor(ir.S8, 4)), nil), ""},
		{"convert shape", oneOp("stablehlo.convert", ts(f32x4), ts(tensor(ir.S8, 5)), nil), "shape"},
		{"bitcast same width", oneOp("stablehlo.bitcast_convert", ts(f32x4), ts(tensor(ir.U32, 4)), nil), ""},
		{"bitcast narrower", oneOp("stablehlo.bitcast_convert", ts(f32x4), ts(tensor(ir.U8, 4, 4)), nil), ""},
		{"bitcast wider", oneOp("stablehlo.bitcast_convert", ts(tensor(ir.U8, 4, 2)), ts(tensor(ir.F16, 4)), nil), ""},
		{"bitcast bad", oneOp("stablehlo.bitcast_convert", ts(f32x4), ts(tensor(ir.U8, 4)), nil), "expected [4 4]"},
		{"reduce_precision ok", oneOp("stablehlo.reduce_precision", ts(f32x4), ts(f32x4),
			ir.Attrs{"exponent_bits": intA(5), "mantissa_bits": intA(10)}), ""},
		{"reduce_precision missing", oneOp("stablehlo.reduce_precision", ts(f32x4), ts(f32x4),
			ir.Attrs{"exponent_bits": intA(5)}), "missing required attribute mantissa_bits"},
		{"compare ok", oneOp("stablehlo.compare", ts(f32x4, f32x4), ts(tensor(ir.Pred, 4)),
			ir.Attrs{"comparison_direction": enum("comparison_direction", "LT"), "compare_type": enum("comparison_type", "FLOAT")}), ""},
		{"compare missing direction", oneOp("stablehlo.compare", ts(f32x4, f32x4), ts(tensor(ir.Pred, 4)), nil),
			"missing required attribute comparison_direction"},
		{"compare bad direction", oneOp("stablehlo.compare", ts(f32x4, f32x4), ts(tensor(ir.Pred, 4)),
			ir.Attrs{"comparison_direction": enum("comparison_direction", "XX")}), "has value XX"},
		{"compare signed on float", oneOp("stablehlo.compare", ts(f32x4, f32x4), ts(tensor(ir.Pred, 4)),
			ir.Attrs{"comparison_direction": enum("comparison_direction", "EQ"), "compare_type": enum("comparison_type", "SIGNED")}), "needs signed"},
		{"compare result f32", oneOp("stablehlo.compare", ts(f32x4, f32x4), ts(f32x4),
			ir.Attrs{"comparison_direction": enum("comparison_direction", "EQ")}), "expected i1"},
		{"select ok", oneOp("stablehlo.select", ts(tensor(ir.Pred, 4), f32x4, f32x4), ts(f32x4), nil), ""},
		{"select scalar pred", oneOp("stablehlo.select", ts(pred, f32x4, f32x4), ts(f32x4), nil), ""},
		{"select bad pred", oneOp("stablehlo.select", ts(tensor(ir.Pred, 3), f32x4, f32x4), ts(f32x4), nil), "pred shape"},
		{"select pred type", oneOp("stablehlo.select", ts(f32x4, f32x4, f32x4), ts(f32x4), nil), "pred must have element type i1"},
		{"clamp ok", oneOp("stablehlo.clamp", ts(f32s, f32x4, f32s), ts(f32x4), nil), ""},
		{"clamp bad min", oneOp("stablehlo.clamp", ts(tensor(ir.F32, 2), f32x4, f32s), ts(f32x4), nil), "min must be 0-d"},
	})
}

func TestDataMovement(t *testing.T) {
	runCases(t, []verifyCase{
		{"broadcast_in_dim ok", oneOp("stablehlo.broadcast_in_dim", ts(tensor(ir.F32, 1, 3)), ts(tensor(ir.F32, 2, 4, 3)),
			ir.Attrs{"broadcast_dimensions": i64(1, 2)}), ""},
		{"broadcast_in_dim size", oneOp("stablehlo.broadcast_in_dim", ts(tensor(ir.F32, 2, 3)), ts(tensor(ir.F32, 2, 4, 3)),
			ir.Attrs{"broadcast_dimensions": i64(1, 2)}), "operand dim 0 has size 2"},
		{"broadcast_in_dim missing dims", oneOp("stablehlo.broadcast_in_dim", ts(f32s), ts(f32x4), nil),
			"missing required attribute broadcast_dimensions"},
		{"broadcast_in_dim wrong kind", oneOp("stablehlo.broadcast_in_dim", ts(f32s), ts(f32x4),
			ir.Attrs{"broadcast_dimensions": intA(0)}), "must be an integer list"},
		{"broadcast ok", oneOp("stablehlo.broadcast", ts(f32x4), ts(tensor(ir.F32, 2, 4)), ir.Attrs{"broadcast_sizes": i64(2)}), ""},
		{"reshape ok", oneOp("stablehlo.reshape", ts(f32x2x3), ts(tensor(ir.F32, 6)), nil), ""},
		{"reshape count", oneOp("stablehlo.reshape", ts(f32x2x3), ts(tensor(ir.F32, 5)), nil), "has 5 elements"},
		{"transpose ok", oneOp("stablehlo.transpose", ts(f32x2x3), ts(tensor(ir.F32, 3, 2)), ir.Attrs{"permutation": i64(1, 0)}), ""},
		{"transpose bad perm", oneOp("stablehlo.transpose", ts(f32x2x3), ts(tensor(ir.F32, 3, 2)), ir.Attrs{"permutation": i64(1, 1)}), "duplicate"},
		{"transpose bad shape", oneOp("stablehlo.transpose", ts(f32x2x3), ts(f32x2x3), ir.Attrs{"permutation": i64(1, 0)}), "expected [3 2]"},
		{"slice ok", oneOp("stablehlo.slice", ts(tensor(ir.F32, 10)), ts(tensor(ir.F32, 3)),
			ir.Attrs{"start_indices": i64(1), "limit_indices": i64(8), "strides": i64(3)}), ""},
		{"slice out of range", oneOp("stablehlo.slice", ts(tensor(ir.F32, 10)), ts(tensor(ir.F32, 3)),
			ir.Attrs{"start_indices": i64(1), "limit_indices": i64(11), "strides": i64(3)}), "limit (11) <= size (10)"},
		{"dynamic_slice ok", oneOp("stablehlo.dynamic_slice", ts(f32x2x3, i32s, i32s), ts(tensor(ir.F32, 1, 2)),
			ir.Attrs{"slice_sizes": i64(1, 2)}), ""},
		{"dynamic_slice index count", oneOp("stablehlo.dynamic_slice", ts(f32x2x3, i32s), ts(tensor(ir.F32, 1, 2)),
			ir.Attrs{"slice_sizes": i64(1, 2)}), "expects 2 start indices"},
		{"dynamic_update_slice ok", oneOp("stablehlo.dynamic_update_slice", ts(f32x2x3, tensor(ir.F32, 1, 3), i32s, i32s), ts(f32x2x3), nil), ""},
		{"dynamic_update_slice big update", oneOp("stablehlo.dynamic_update_slice", ts(f32x2x3, tensor(ir.F32, 3, 3), i32s, i32s), ts(f32x2x3), nil), "larger than operand"},
		{"concatenate ok", oneOp("stablehlo.concatenate", ts(f32x2x3, tensor(ir.F32, 2, 1)), ts(tensor(ir.F32, 2, 4)), ir.Attrs{"dimension": intA(1)}), ""},
		{"concatenate mismatch", oneOp("stablehlo.concatenate", ts(f32x2x3, tensor(ir.F32, 1, 1)), ts(tensor(ir.F32, 2, 4)), ir.Attrs{"dimension": intA(1)}), "input 1 dim 0"},
		{"pad ok", oneOp("stablehlo.pad", ts(tensor(ir.F32, 3), f32s), ts(tensor(ir.F32, 8)),
			ir.Attrs{"edge_padding_low": i64(1), "edge_padding_high": i64(2), "interior_padding": i64(1)}), ""},
		{"pad negative edge ok", oneOp("stablehlo.pad", ts(tensor(ir.F32, 3), f32s), ts(tensor(ir.F32, 2)),
			ir.Attrs{"edge_padding_low": i64(-1), "edge_padding_high": i64(0), "interior_padding": i64(0)}), ""},
		{"pad wrong result", oneOp("stablehlo.pad", ts(tensor(ir.F32, 3), f32s), ts(tensor(ir.F32, 7)),
			ir.Attrs{"edge_padding_low": i64(1), "edge_padding_high": i64(2), "interior_padding": i64(1)}), "expected [8]"},
		{"reverse ok", oneOp("stablehlo.reverse", ts(f32x2x3), ts(f32x2x3), ir.Attrs{"dimensions": i64(1)}), ""},
		{"reverse bad dim", oneOp("stablehlo.reverse", ts(f32x2x3), ts(f32x2x3), ir.Attrs{"dimensions": i64(2)}), "out of range"},
		{"iota ok", oneOp("stablehlo.iota", nil, ts(tensor(ir.S32, 4)), ir.Attrs{"iota_dimension": intA(0)}), ""},
		{"iota bad dim", oneOp("stablehlo.iota", nil, ts(tensor(ir.S32, 4)), ir.Attrs{"iota_dimension": intA(1)}), "out of range"},
		{"get_dimension_size ok", oneOp("stablehlo.get_dimension_size", ts(f32x2x3), ts(i32s), ir.Attrs{"dimension": intA(1)}), ""},
		{"torch_index_select ok", oneOp("stablehlo.torch_index_select", ts(tensor(ir.F32, 5, 3), tensor(ir.S32, 2)), ts(tensor(ir.F32, 2, 3)),
			ir.Attrs{"dim": intA(0), "batch_dims": intA(0)}), ""},
		{"dynamic_reshape ok", oneOp("stablehlo.dynamic_reshape", ts(f32x2x3, tensor(ir.S64, 2)), ts(tensor(ir.F32, 3, 2)), nil), ""},
		{"dynamic_iota bad", oneOp("stablehlo.dynamic_iota", ts(tensor(ir.S64, 2)), ts(tensor(ir.F32, 3)), ir.Attrs{"iota_dimension": intA(0)}), "has 2 entries; expected 1"},
	})
}

func TestGatherScatter(t *testing.T) {
	// jnp.take(x, idx, axis=0) for x: 5x3, idx: 2 -> 2x3.
	gatherAttrs := ir.Attrs{
		"offset_dims": i64(1), "collapsed_slice_dims": i64(0), "start_index_map": i64(0),
		"index_vector_dim": intA(1), "slice_sizes": i64(1, 3), "indices_are_sorted": ir.BoolAttr{},
	}
	badSizes := ir.Attrs{}
	for k, v := range gatherAttrs {
		badSizes[k] = v
	}
	badSizes["slice_sizes"] = i64(2, 3)
	scatterAttrs := ir.Attrs{
		"update_window_dims": i64(1), "inserted_window_dims": i64(0), "scatter_dims_to_operand_dims": i64(0),
		"index_vector_dim": intA(1),
	}
	runCases(t, []verifyCase{
		{"gather ok", oneOp("stablehlo.gather", ts(tensor(ir.F32, 5, 3), tensor(ir.S32, 2, 1)), ts(tensor(ir.F32, 2, 3)), gatherAttrs), ""},
		{"gather wrong result", oneOp("stablehlo.gather", ts(tensor(ir.F32, 5, 3), tensor(ir.S32, 2, 1)), ts(tensor(ir.F32, 3, 3)), gatherAttrs), "expected [2 3]"},
		{"gather collapsed size", oneOp("stablehlo.gather", ts(tensor(ir.F32, 5, 3), tensor(ir.S32, 2, 1)), ts(tensor(ir.F32, 2, 3)), badSizes), "collapsed or batching"},
		{"gather float indices", oneOp("stablehlo.gather", ts(tensor(ir.F32, 5, 3), tensor(ir.F32, 2, 1)), ts(tensor(ir.F32, 2, 3)), gatherAttrs), "integer tensor"},
		{"scatter ok", withRegions("stablehlo.scatter", ts(tensor(ir.F32, 5, 3), tensor(ir.S32, 2, 1), tensor(ir.F32, 2, 3)), ts(tensor(ir.F32, 5, 3)), scatterAttrs,
			func() *ir.Region { return addBody(ir.F32, 1) }), ""},
		{"scatter bad update", withRegions("stablehlo.scatter", ts(tensor(ir.F32, 5, 3), tensor(ir.S32, 2, 1), tensor(ir.F32, 3, 3)), ts(tensor(ir.F32, 5, 3)), scatterAttrs,
			func() *ir.Region { return addBody(ir.F32, 1) }), "updates dim 0"},
		{"scatter bad body", withRegions("stablehlo.scatter", ts(tensor(ir.F32, 5, 3), tensor(ir.S32, 2, 1), tensor(ir.F32, 2, 3)), ts(tensor(ir.F32, 5, 3)), scatterAttrs,
			func() *ir.Region { return addBody(ir.F64, 1) }), "region 0 argument 0"},
	})
}

func TestReductions(t *testing.T) {
	rwAttrs := ir.Attrs{"window_dimensions": i64(1, 2), "window_strides": i64(1, 2), "padding": i64(0, 0, 0, 1)}
	sortCmp := func() *ir.Region {
		return region(ts(f32s, f32s), func(blk *ir.Block) []*ir.Value {
			c := blk.Append(ir.NewOp("stablehlo.compare", blk.Args, ts(pred),
				ir.Attrs{"comparison_direction": enum("comparison_direction", "LT")}))
			return c.Results
		})
	}
	runCases(t, []verifyCase{
		{"reduce ok", withRegions("stablehlo.reduce", ts(f32x2x3, f32s), ts(tensor(ir.F32, 2)), ir.Attrs{"dimensions": i64(1)},
			func() *ir.Region { return addBody(ir.F32, 1) }), ""},
		{"reduce wrong result", withRegions("stablehlo.reduce", ts(f32x2x3, f32s), ts(tensor(ir.F32, 3)), ir.Attrs{"dimensions": i64(1)},
			func() *ir.Region { return addBody(ir.F32, 1) }), "expected [2]"},
		{"reduce no region", oneOp("stablehlo.reduce", ts(f32x2x3, f32s), ts(tensor(ir.F32, 2)), ir.Attrs{"dimensions": i64(1)}), "expects 1 regions"},
		{"reduce bad init", withRegions("stablehlo.reduce", ts(f32x2x3, f32x4), ts(tensor(ir.F32, 2)), ir.Attrs{"dimensions": i64(1)},
			func() *ir.Region { return addBody(ir.F32, 1) }), "init value 0 must be 0-d"},
		{"reduce body returns wrong count", withRegions("stablehlo.reduce", ts(f32x2x3, f32s), ts(tensor(ir.F32, 2)), ir.Attrs{"dimensions": i64(1)},
			func() *ir.Region {
				return region(ts(f32s, f32s), func(blk *ir.Block) []*ir.Value { return blk.Args })
			}), "returns 2 values; expected 1"},
		{"reduce_window ok", withRegions("stablehlo.reduce_window", ts(tensor(ir.F32, 4, 5), f32s), ts(tensor(ir.F32, 4, 3)), rwAttrs,
			func() *ir.Region { return addBody(ir.F32, 1) }), ""},
		{"reduce_window wrong", withRegions("stablehlo.reduce_window", ts(tensor(ir.F32, 4, 5), f32s), ts(tensor(ir.F32, 4, 2)), rwAttrs,
			func() *ir.Region { return addBody(ir.F32, 1) }), "expected [4 3]"},
		{"sort ok", withRegions("stablehlo.sort", ts(f32x4), ts(f32x4), ir.Attrs{"dimension": intA(0)}, sortCmp), ""},
		{"sort bad dim", withRegions("stablehlo.sort", ts(f32x4), ts(f32x4), ir.Attrs{"dimension": intA(1)}, sortCmp), "out of range"},
		{"map ok", withRegions("stablehlo.map", ts(f32x4, f32x4), ts(f32x4), ir.Attrs{"dimensions": i64(0)},
			func() *ir.Region {
				return region(ts(f32s, f32s), func(blk *ir.Block) []*ir.Value {
					return blk.Append(ir.NewOp("stablehlo.add", blk.Args, ts(f32s), nil)).Results
				})
			}), ""},
		{"select_and_scatter ok", withRegions("stablehlo.select_and_scatter", ts(tensor(ir.F32, 4), tensor(ir.F32, 2), f32s), ts(tensor(ir.F32, 4)),
			ir.Attrs{"window_dimensions": i64(2), "window_strides": i64(2)},
			func() *ir.Region {
				return region(ts(f32s, f32s), func(blk *ir.Block) []*ir.Value {
					return blk.Append(ir.NewOp("stablehlo.compare", blk.Args, ts(pred),
						ir.Attrs{"comparison_direction": enum("comparison_direction", "GE")})).Results
				})
			},
			func() *ir.Region { return addBody(ir.F32, 1) }), ""},
	})
}

func TestLinalg(t *testing.T) {
	convAttrs := ir.Attrs{
		"input_batch_dimension": intA(0), "input_feature_dimension": intA(3), "input_spatial_dimensions": i64(1, 2),
		"kernel_input_feature_dimension": intA(2), "kernel_output_feature_dimension": intA(3), "kernel_spatial_dimensions": i64(0, 1),
		"output_batch_dimension": intA(0), "output_feature_dimension": intA(3), "output_spatial_dimensions": i64(1, 2),
		"feature_group_count": intA(1), "batch_group_count": intA(1),
		"window_strides": i64(1, 1), "padding": i64(1, 1, 1, 1),
	}
	runCases(t, []verifyCase{
		{"dot_general matmul", oneOp("stablehlo.dot_general", ts(f32x2x3, tensor(ir.F32, 3, 5)), ts(tensor(ir.F32, 2, 5)),
			ir.Attrs{"lhs_contracting_dimensions": i64(1), "rhs_contracting_dimensions": i64(0)}), ""},
		{"dot_general batched", oneOp("stablehlo.dot_general", ts(tensor(ir.F32, 7, 2, 3), tensor(ir.F32, 7, 3, 5)), ts(tensor(ir.F32, 7, 2, 5)),
			ir.Attrs{"lhs_batching_dimensions": i64(0), "rhs_batching_dimensions": i64(0),
				"lhs_contracting_dimensions": i64(2), "rhs_contracting_dimensions": i64(1),
				"precision_config": ir.ArrayAttr{Elems: []ir.Attr{enum("precision", "DEFAULT"), enum("precision", "HIGHEST")}}}), ""},
		{"dot_general contracting mismatch", oneOp("stablehlo.dot_general", ts(f32x2x3, tensor(ir.F32, 4, 5)), ts(tensor(ir.F32, 2, 5)),
			ir.Attrs{"lhs_contracting_dimensions": i64(1), "rhs_contracting_dimensions": i64(0)}), "contracting dims"},
		{"dot_general bad result", oneOp("stablehlo.dot_general", ts(f32x2x3, tensor(ir.F32, 3, 5)), ts(tensor(ir.F32, 5, 2)),
			ir.Attrs{"lhs_contracting_dimensions": i64(1), "rhs_contracting_dimensions": i64(0)}), "expected [2 5]"},
		{"dot ok", oneOp("stablehlo.dot", ts(f32x2x3, tensor(ir.F32, 3)), ts(tensor(ir.F32, 2)), nil), ""},
		{"convolution ok", oneOp("stablehlo.convolution", ts(tensor(ir.F32, 1, 8, 8, 3), tensor(ir.F32, 3, 3, 3, 16)), ts(tensor(ir.F32, 1, 8, 8, 16)), convAttrs), ""},
		{"convolution bad result", oneOp("stablehlo.convolution", ts(tensor(ir.F32, 1, 8, 8, 3), tensor(ir.F32, 3, 3, 3, 16)), ts(tensor(ir.F32, 1, 6, 6, 16)), convAttrs), "expected [1 8 8 16]"},
		{"convolution feature mismatch", oneOp("stablehlo.convolution", ts(tensor(ir.F32, 1, 8, 8, 4), tensor(ir.F32, 3, 3, 3, 16)), ts(tensor(ir.F32, 1, 8, 8, 16)), convAttrs), "kernel input features"},
		{"cholesky ok", oneOp("stablehlo.cholesky", ts(tensor(ir.F32, 3, 3)), ts(tensor(ir.F32, 3, 3)), ir.Attrs{"lower": ir.BoolAttr{Value: true}}), ""},
		{"cholesky not square", oneOp("stablehlo.cholesky", ts(f32x2x3), ts(f32x2x3), nil), "square"},
		{"triangular_solve ok", oneOp("stablehlo.triangular_solve", ts(tensor(ir.F32, 3, 3), tensor(ir.F32, 3, 4)), ts(tensor(ir.F32, 3, 4)),
			ir.Attrs{"left_side": ir.BoolAttr{Value: true}, "lower": ir.BoolAttr{}, "unit_diagonal": ir.BoolAttr{}, "transpose_a": enum("transpose", "NO_TRANSPOSE")}), ""},
		{"triangular_solve no transpose_a", oneOp("stablehlo.triangular_solve", ts(tensor(ir.F32, 3, 3), tensor(ir.F32, 3, 4)), ts(tensor(ir.F32, 3, 4)),
			ir.Attrs{"left_side": ir.BoolAttr{Value: true}}), "missing required attribute transpose_a"},
		{"fft rfft ok", oneOp("stablehlo.fft", ts(tensor(ir.F32, 2, 8)), ts(tensor(ir.C64, 2, 5)),
			ir.Attrs{"fft_type": enum("fft_type", "RFFT"), "fft_length": i64(8)}), ""},
		{"fft irfft ok", oneOp("stablehlo.fft", ts(tensor(ir.C64, 2, 5)), ts(tensor(ir.F32, 2, 8)),
			ir.Attrs{"fft_type": enum("fft_type", "IRFFT"), "fft_length": i64(8)}), ""},
		{"fft bad", oneOp("stablehlo.fft", ts(tensor(ir.F32, 2, 8)), ts(tensor(ir.C64, 2, 8)),
			ir.Attrs{"fft_type": enum("fft_type", "RFFT"), "fft_length": i64(8)}), "expected [2 5]"},
		{"batch_norm_inference ok", oneOp("stablehlo.batch_norm_inference", ts(f32x2x3, tensor(ir.F32, 3), tensor(ir.F32, 3), tensor(ir.F32, 3), tensor(ir.F32, 3)), ts(f32x2x3),
			ir.Attrs{"epsilon": ir.FloatAttr{Value: 1e-5, Type: ir.F32}, "feature_index": intA(1)}), ""},
		{"batch_norm_training bad", oneOp("stablehlo.batch_norm_training", ts(f32x2x3, tensor(ir.F32, 2), tensor(ir.F32, 2)), ts(f32x2x3, tensor(ir.F32, 3), tensor(ir.F32, 3)),
			ir.Attrs{"epsilon": ir.FloatAttr{Value: 1e-5, Type: ir.F32}, "feature_index": intA(1)}), "per-feature tensor"},
	})
}

func TestControlFlowAndCalls(t *testing.T) {
	whileMod := func(bad bool) func() *ir.Module {
		return func() *ir.Module {
			b := newFunc(i32s, f32x4)
			w := b.op("stablehlo.while", b.block.Args, ts(i32s, f32x4), nil)
			w.AddRegion(region(ts(i32s, f32x4), func(blk *ir.Block) []*ir.Value {
				c := blk.Append(ir.NewOp("stablehlo.compare", []*ir.Value{blk.Args[0], blk.Args[0]}, ts(pred),
					ir.Attrs{"comparison_direction": enum("comparison_direction", "LT")}))
				return c.Results
			}))
			w.AddRegion(region(ts(i32s, f32x4), func(blk *ir.Block) []*ir.Value {
				if bad {
					return blk.Args[:1]
				}
				return blk.Args
			}))
			return b.ret(w.Results...)
		}
	}
	caseMod := func(branchType ir.Type) func() *ir.Module {
		return func() *ir.Module {
			b := newFunc(i32s, f32x4)
			c := b.op("stablehlo.case", b.block.Args[:1], ts(f32x4), nil)
			outer := b.arg(1)
			c.AddRegion(region(nil, func(blk *ir.Block) []*ir.Value { return []*ir.Value{outer} }))
			c.AddRegion(region(nil, func(blk *ir.Block) []*ir.Value {
				k := blk.Append(ir.NewOp("stablehlo.constant", nil, ts(branchType),
					ir.Attrs{"value": &ir.ElementsAttr{Type: branchType.(*ir.TensorType), Data: make([]byte, branchType.(*ir.TensorType).ByteSize())}}))
				return k.Results
			}))
			return b.ret(c.Results...)
		}
	}
	callMod := func(argType ir.Type) func() *ir.Module {
		return func() *ir.Module {
			b := newFunc(argType)
			callee := newFunc(f32x4)
			callee.f.Name = "helper"
			callee.f.Visibility = "private"
			callee.ret(callee.arg(0))
			b.m.Funcs = append(b.m.Funcs, callee.f)
			c := b.op("func.call", b.block.Args, ts(f32x4), ir.Attrs{"callee": ir.SymbolRefAttr{Name: "helper"}})
			return b.ret(c.Results...)
		}
	}
	runCases(t, []verifyCase{
		{"while ok", whileMod(false), ""},
		{"while bad body", whileMod(true), "region 1 returns 1 values; expected 2"},
		{"case ok", caseMod(f32x4), ""},
		{"case bad branch", caseMod(tensor(ir.F32, 5)), "region 1 returns tensor<5xf32>"},
		{"call ok", callMod(f32x4), ""},
		{"call bad operand", callMod(tensor(ir.F64, 4)), "operands of callee @helper value 0"},
		{"call unknown callee", func() *ir.Module {
			b := newFunc(f32x4)
			c := b.op("func.call", b.block.Args, ts(f32x4), ir.Attrs{"callee": ir.SymbolRefAttr{Name: "nope"}})
			return b.ret(c.Results...)
		}, "not a function of the module"},
		{"tuple and get_tuple_element", func() *ir.Module {
			b := newFunc(f32x4, i32s)
			tu := b.op("stablehlo.tuple", b.block.Args, ts(&ir.TupleType{Elems: ts(f32x4, i32s)}), nil)
			g := b.op("stablehlo.get_tuple_element", tu.Results, ts(i32s), ir.Attrs{"index": ir.IntAttr{Value: 1, Type: ir.S32}})
			return b.ret(g.Results...)
		}, ""},
		{"get_tuple_element bad index", func() *ir.Module {
			b := newFunc(f32x4, i32s)
			tu := b.op("stablehlo.tuple", b.block.Args, ts(&ir.TupleType{Elems: ts(f32x4, i32s)}), nil)
			g := b.op("stablehlo.get_tuple_element", tu.Results, ts(i32s), ir.Attrs{"index": ir.IntAttr{Value: 2, Type: ir.S32}})
			return b.ret(g.Results...)
		}, "index 2 out of range"},
		{"custom_call ok", func() *ir.Module {
			b := newFunc(f32x4, f32x4)
			b.op("stablehlo.custom_call", b.block.Args, nil, ir.Attrs{"call_target_name": ir.StringAttr{Value: "check.expect_close"},
				"has_side_effect": ir.BoolAttr{Value: true}, "api_version": enum("custom_call_api_version", "API_VERSION_ORIGINAL"),
				"backend_config": ir.StringAttr{}})
			return b.ret(b.arg(0))
		}, ""},
		{"custom_call no target", oneOp("stablehlo.custom_call", ts(f32x4), ts(f32x4), nil), "missing required attribute call_target_name"},
		{"optimization_barrier ok", oneOp("stablehlo.optimization_barrier", ts(f32x4, i32s), ts(f32x4, i32s), nil), ""},
		{"optimization_barrier bad", oneOp("stablehlo.optimization_barrier", ts(f32x4, i32s), ts(i32s, f32x4), nil), "results value 0"},
		{"tokens", func() *ir.Module {
			b := newFunc(&ir.TokenType{})
			c := b.op("stablehlo.create_token", nil, ts(&ir.TokenType{}), nil)
			a := b.op("stablehlo.after_all", []*ir.Value{b.arg(0), c.Result()}, ts(&ir.TokenType{}), nil)
			return b.ret(a.Results...)
		}, ""},
		{"composite ok", func() *ir.Module {
			b := newFunc(f32x4)
			d := newFunc(f32x4)
			d.f.Name, d.f.Visibility = "erf.impl", "private"
			d.ret(d.arg(0))
			b.m.Funcs = append(b.m.Funcs, d.f)
			c := b.op("stablehlo.composite", b.block.Args, ts(f32x4), ir.Attrs{"name": ir.StringAttr{Value: "chlo.erf"},
				"decomposition": ir.StringAttr{Value: "erf.impl"}, "version": ir.IntAttr{Value: 1, Type: ir.S32},
				"composite_attributes": ir.DictAttr{Entries: ir.Attrs{}}})
			return b.ret(c.Results...)
		}, ""},
		{"rng_bit_generator ok", oneOp("stablehlo.rng_bit_generator", ts(tensor(ir.U64, 2)), ts(tensor(ir.U64, 2), tensor(ir.U32, 4, 4)),
			ir.Attrs{"rng_algorithm": enum("rng_algorithm", "THREE_FRY")}), ""},
		{"constant ok", func() *ir.Module {
			b := newFunc()
			tt, attrs := constant(ir.F32, 4)
			return b.ret(b.op("stablehlo.constant", nil, ts(tt), attrs).Results...)
		}, ""},
		{"constant short data", func() *ir.Module {
			b := newFunc()
			tt := tensor(ir.F32, 4)
			return b.ret(b.op("stablehlo.constant", nil, ts(tt), ir.Attrs{"value": &ir.ElementsAttr{Type: tt, Data: make([]byte, 3)}}).Results...)
		}, "holds 3 bytes"},
		{"replica_id", oneOp("stablehlo.replica_id", nil, ts(tensor(ir.U32)), nil), ""},
		{"all_reduce ok", withRegions("stablehlo.all_reduce", ts(f32x4), ts(f32x4), ir.Attrs{"replica_groups": i64(0)},
			func() *ir.Region { return addBody(ir.F32, 1) }), ""},
		{"all_gather ok", oneOp("stablehlo.all_gather", ts(f32x4), ts(tensor(ir.F32, 8)), ir.Attrs{"all_gather_dim": intA(0), "replica_groups": i64(0, 1)}), ""},
		{"collective_permute ok", oneOp("stablehlo.collective_permute", ts(f32x4), ts(f32x4), ir.Attrs{"source_target_pairs": i64(0, 1, 1, 0)}), ""},
	})
}

func TestStructure(t *testing.T) {
	runCases(t, []verifyCase{
		{"unknown op", oneOp("stablehlo.frobnicate", ts(f32x4), ts(f32x4), nil), "stablehlo.frobnicate at test (t.py:1:1): unknown op"},
		{"sdy accepted", oneOp("sdy.sharding_constraint", ts(f32x4), ts(f32x4), nil), ""},
		{"cast accepted", oneOp("builtin.unrealized_conversion_cast", ts(f32x4), ts(f32x4), nil), ""},
		{"return mismatch", func() *ir.Module {
			b := newFunc(f32x4)
			m := b.ret(b.arg(0))
			m.Funcs[0].Type.Results = ts(i32s)
			return m
		}, "return value 0 has type tensor<4xf32>; expected tensor<i32>"},
		{"missing return", func() *ir.Module {
			b := newFunc(f32x4)
			b.op("stablehlo.abs", b.block.Args, ts(f32x4), nil)
			return b.m
		}, "must end with func.return"},
		{"use before def", func() *ir.Module {
			b := newFunc(f32x4)
			first := ir.NewOp("stablehlo.abs", b.block.Args, ts(f32x4), nil)
			second := b.op("stablehlo.negate", first.Results, ts(f32x4), nil)
			b.block.Append(first)
			return b.ret(second.Result())
		}, "stablehlo.negate at test (t.py:1:1): operand 0 is not defined"},
		{"value escapes its region", func() *ir.Module {
			b := newFunc(f32x2x3, f32s)
			red := b.op("stablehlo.reduce", b.block.Args, ts(tensor(ir.F32, 2)), ir.Attrs{"dimensions": i64(1)})
			body := addBody(ir.F32, 1)
			red.AddRegion(body)
			inner := body.Blocks[0].Ops[0].Result()
			neg := b.op("stablehlo.negate", []*ir.Value{inner}, ts(f32s), nil)
			return b.ret(red.Result(), neg.Result())
		}, "stablehlo.negate at test (t.py:1:1): operand 0 is not defined"},
		{"value from another function", func() *ir.Module {
			other := newFunc(f32x4)
			other.f.Name = "other"
			m := other.ret(other.arg(0))
			b := newFunc()
			neg := b.op("stablehlo.negate", []*ir.Value{other.arg(0)}, ts(f32x4), nil)
			main := b.ret(neg.Result())
			m.Funcs = append(m.Funcs, main.Funcs[0])
			return m
		}, "operand 0 is not defined"},
		{"signature mismatch", func() *ir.Module {
			b := newFunc(f32x4)
			m := b.ret(b.arg(0))
			m.Funcs[0].Type.Inputs = ts(i32s)
			return m
		}, "argument 0 has type"},
		{"duplicate function", func() *ir.Module {
			b := newFunc(f32x4)
			m := b.ret(b.arg(0))
			m.Funcs = append(m.Funcs, m.Funcs[0])
			return m
		}, "defined twice"},
		{"invalid element type", oneOp("stablehlo.abs", ts(tensor(ir.Invalid, 2)), ts(tensor(ir.Invalid, 2)), nil), "invalid type"},
		{"func.return inside region", withRegions("stablehlo.reduce", ts(f32x2x3, f32s), ts(tensor(ir.F32, 2)), ir.Attrs{"dimensions": i64(1)},
			func() *ir.Region {
				blk := ir.NewBlock(f32s, f32s)
				blk.Append(ir.NewOp("func.return", blk.Args[:1], nil, nil))
				return ir.NewRegion(blk)
			}), "must terminate a function body"},
	})
}

// TestEveryStableHLOOpIsKnown guards the table against gaps: the spec's op list.
func TestEveryStableHLOOpIsKnown(t *testing.T) {
	ops := []string{"abs", "add", "after_all", "all_gather", "all_reduce", "all_to_all", "and", "async_done", "async_start",
		"atan2", "batch_norm_grad", "batch_norm_inference", "batch_norm_training", "bitcast_convert", "broadcast",
		"broadcast_in_dim", "case", "cbrt", "ceil", "cholesky", "clamp", "collective_broadcast", "collective_permute",
		"collective_reduce", "compare", "complex", "composite", "concatenate", "constant", "convert", "convolution",
		"cosine", "count_leading_zeros", "create_token", "cross-replica-sum", "custom_call", "divide", "dot",
		"dot_general", "dynamic_broadcast_in_dim", "dynamic_conv", "dynamic_gather", "dynamic_iota", "dynamic_pad",
		"dynamic_reshape", "dynamic_slice", "dynamic_update_slice", "einsum", "exponential", "exponential_minus_one",
		"fft", "floor", "gather", "get_dimension_size", "get_tuple_element", "if", "imag", "infeed", "iota",
		"is_finite", "log", "log_plus_one", "logistic", "map", "maximum", "minimum", "multiply", "negate", "not",
		"optimization_barrier", "or", "outfeed", "pad", "partition_id", "popcnt", "power", "real",
		"real_dynamic_slice", "recv", "reduce", "reduce_precision", "reduce_scatter", "reduce_window", "remainder",
		"replica_id", "reshape", "return", "reverse", "rng", "rng_bit_generator", "round_nearest_afz",
		"round_nearest_even", "rsqrt", "scatter", "select", "select_and_scatter", "send", "set_dimension_size",
		"shift_left", "shift_right_arithmetic", "shift_right_logical", "sign", "sine", "slice", "sort", "sqrt",
		"subtract", "tan", "tanh", "torch_index_select", "transpose", "triangular_solve", "tuple", "unary_einsum",
		"uniform_dequantize", "uniform_quantize", "while", "xor"}
	for _, o := range ops {
		require.True(t, Known("stablehlo."+o), o)
	}
	require.True(t, Known("func.call"))
	require.True(t, Known("func.return"))
	require.False(t, Known("stablehlo.frobnicate"))
}

func TestRarerOps(t *testing.T) {
	tok := &ir.TokenType{}
	gatherAttrs := ir.Attrs{
		"offset_dims": i64(1), "collapsed_slice_dims": i64(0), "start_index_map": i64(0), "index_vector_dim": intA(1),
	}
	runCases(t, []verifyCase{
		{"all_to_all ok", oneOp("stablehlo.all_to_all", ts(tensor(ir.F32, 4, 2)), ts(tensor(ir.F32, 2, 4)),
			ir.Attrs{"split_dimension": intA(0), "concat_dimension": intA(1), "split_count": intA(2), "replica_groups": i64(0, 1)}), ""},
		{"all_to_all indivisible", oneOp("stablehlo.all_to_all", ts(tensor(ir.F32, 3, 2)), ts(tensor(ir.F32, 2, 4)),
			ir.Attrs{"split_dimension": intA(0), "concat_dimension": intA(1), "split_count": intA(2), "replica_groups": i64(0, 1)}), "not divisible"},
		{"reduce_scatter ok", withRegions("stablehlo.reduce_scatter", ts(tensor(ir.F32, 8)), ts(f32x4),
			ir.Attrs{"scatter_dimension": intA(0), "replica_groups": i64(0, 1)}, func() *ir.Region { return addBody(ir.F32, 1) }), ""},
		{"reduce_scatter grows", withRegions("stablehlo.reduce_scatter", ts(f32x4), ts(tensor(ir.F32, 8)),
			ir.Attrs{"scatter_dimension": intA(0), "replica_groups": i64(0, 1)}, func() *ir.Region { return addBody(ir.F32, 1) }), "incompatible"},
		{"all_reduce no groups", withRegions("stablehlo.all_reduce", ts(f32x4), ts(f32x4), nil,
			func() *ir.Region { return addBody(ir.F32, 1) }), "missing required attribute replica_groups"},
		{"infeed ok", oneOp("stablehlo.infeed", ts(tok), ts(f32x4, tok), ir.Attrs{"infeed_config": ir.StringAttr{}}), ""},
		{"infeed no token result", oneOp("stablehlo.infeed", ts(tok), ts(f32x4), nil), "last result must be a token"},
		{"outfeed ok", oneOp("stablehlo.outfeed", ts(f32x4, tok), ts(tok), nil), ""},
		{"send ok", oneOp("stablehlo.send", ts(f32x4, tok), ts(tok), ir.Attrs{"channel_id": intA(1), "is_host_transfer": ir.BoolAttr{Value: true}}), ""},
		{"recv ok", oneOp("stablehlo.recv", ts(tok), ts(f32x4, tok), ir.Attrs{"channel_id": intA(1)}), ""},
		{"recv token first", oneOp("stablehlo.recv", ts(f32x4), ts(f32x4, tok), nil), "operand must be a token"},
		{"dynamic_broadcast_in_dim ok", oneOp("stablehlo.dynamic_broadcast_in_dim", ts(tensor(ir.F32, 1), tensor(ir.S64, 2)), ts(tensor(ir.F32, 3, 4)),
			ir.Attrs{"broadcast_dimensions": i64(1)}), ""},
		{"dynamic_pad ok", oneOp("stablehlo.dynamic_pad", ts(f32x4, f32s, tensor(ir.S64, 1), tensor(ir.S64, 1), tensor(ir.S64, 1)), ts(tensor(ir.F32, 6)), nil), ""},
		{"dynamic_gather ok", oneOp("stablehlo.dynamic_gather", ts(tensor(ir.F32, 5, 3), tensor(ir.S32, 2, 1), tensor(ir.S32, 2)), ts(tensor(ir.F32, 2, 3)), gatherAttrs), ""},
		{"real_dynamic_slice ok", oneOp("stablehlo.real_dynamic_slice", ts(f32x4, tensor(ir.S64, 1), tensor(ir.S64, 1), tensor(ir.S64, 1)), ts(tensor(ir.F32, 2)), nil), ""},
		{"set_dimension_size ok", oneOp("stablehlo.set_dimension_size", ts(f32x4, i32s), ts(f32x4), ir.Attrs{"dimension": intA(0)}), ""},
		{"rng ok", oneOp("stablehlo.rng", ts(f32s, f32s, tensor(ir.S64, 2)), ts(tensor(ir.F32, 3, 4)), ir.Attrs{"rng_distribution": enum("rng_distribution", "NORMAL")}), ""},
		{"rng normal ints", oneOp("stablehlo.rng", ts(i32s, i32s, tensor(ir.S64, 1)), ts(tensor(ir.S32, 3)), ir.Attrs{"rng_distribution": enum("rng_distribution", "NORMAL")}), "expected floating-point"},
		{"einsum ok", oneOp("stablehlo.einsum", ts(f32x2x3, tensor(ir.F32, 3, 4)), ts(tensor(ir.F32, 2, 4)), ir.Attrs{"einsum_config": ir.StringAttr{Value: "ab,bc->ac"}}), ""},
		{"unary_einsum no config", oneOp("stablehlo.unary_einsum", ts(f32x2x3), ts(f32x2x3), nil), "missing required attribute einsum_config"},
		{"batch_norm_grad ok", oneOp("stablehlo.batch_norm_grad", ts(f32x2x3, tensor(ir.F32, 3), tensor(ir.F32, 3), tensor(ir.F32, 3), f32x2x3),
			ts(f32x2x3, tensor(ir.F32, 3), tensor(ir.F32, 3)), ir.Attrs{"epsilon": ir.FloatAttr{Value: 1e-3, Type: ir.F32}, "feature_index": intA(1)}), ""},
		{"batch_norm_inference no epsilon", oneOp("stablehlo.batch_norm_inference", ts(f32x2x3, tensor(ir.F32, 3), tensor(ir.F32, 3), tensor(ir.F32, 3), tensor(ir.F32, 3)), ts(f32x2x3),
			ir.Attrs{"feature_index": intA(1)}), "missing required attribute epsilon"},
		{"dynamic_conv ok", oneOp("stablehlo.dynamic_conv", ts(tensor(ir.F32, 1, 8, 8, 3), tensor(ir.F32, 3, 3, 3, 16), tensor(ir.S64, 2, 2)), ts(tensor(ir.F32, 1, 8, 8, 16)),
			ir.Attrs{"input_batch_dimension": intA(0), "input_feature_dimension": intA(3), "input_spatial_dimensions": i64(1, 2),
				"kernel_input_feature_dimension": intA(2), "kernel_output_feature_dimension": intA(3), "kernel_spatial_dimensions": i64(0, 1),
				"output_batch_dimension": intA(0), "output_feature_dimension": intA(3), "output_spatial_dimensions": i64(1, 2)}), ""},
		{"if ok", withRegions("stablehlo.if", ts(pred), ts(f32s), nil,
			func() *ir.Region {
				return region(nil, func(blk *ir.Block) []*ir.Value {
					return blk.Append(ir.NewOp("stablehlo.constant", nil, ts(f32s), ir.Attrs{"value": &ir.ElementsAttr{Type: f32s, Data: make([]byte, 4)}})).Results
				})
			},
			func() *ir.Region {
				return region(nil, func(blk *ir.Block) []*ir.Value {
					return blk.Append(ir.NewOp("stablehlo.constant", nil, ts(f32s), ir.Attrs{"value": &ir.ElementsAttr{Type: f32s, Data: make([]byte, 4)}})).Results
				})
			}), ""},
		{"if non-bool pred", withRegions("stablehlo.if", ts(i32s), nil, nil,
			func() *ir.Region { return region(nil, func(*ir.Block) []*ir.Value { return nil }) },
			func() *ir.Region { return region(nil, func(*ir.Block) []*ir.Value { return nil }) }), "pred must be a 0-d i1 tensor"},
		{"uniform_quantize shape", oneOp("stablehlo.uniform_quantize", ts(f32x4), ts(tensor(ir.S8, 5)), nil), "shape"},
		{"partition_id wrong type", oneOp("stablehlo.partition_id", nil, ts(i32s), nil), "expected ui32"},
		{"window_reversal as elements", oneOp("stablehlo.convolution", ts(tensor(ir.F32, 1, 4, 1), tensor(ir.F32, 2, 1, 1)), ts(tensor(ir.F32, 1, 3, 1)),
			ir.Attrs{"input_batch_dimension": intA(0), "input_feature_dimension": intA(2), "input_spatial_dimensions": i64(1),
				"kernel_input_feature_dimension": intA(1), "kernel_output_feature_dimension": intA(2), "kernel_spatial_dimensions": i64(0),
				"output_batch_dimension": intA(0), "output_feature_dimension": intA(2), "output_spatial_dimensions": i64(1),
				"window_reversal": &ir.ElementsAttr{Type: tensor(ir.Pred, 1), Data: []byte{0}}}), ""},
	})
}
