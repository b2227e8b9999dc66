package compiler

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// Gathers and scatters whose indices are a unit-dimension relabeling of a
// tensor read that tensor with an implicit index vector, and JAX's
// negative-index wrap select(i < 0, i + w, i) moves into the op; the
// program gives what the same op on the wrapped, relabeled indices (computed
// here and passed in, so nothing is rewritten) gives.
func TestImplicitIndexesMatchExplicit(t *testing.T) {
	needOps(t, "stablehlo.gather", "stablehlo.scatter", "stablehlo.broadcast_in_dim", "stablehlo.reshape", "stablehlo.add",
		"stablehlo.compare", "stablehlo.select")
	i64a := func(v ...int64) ir.DenseI64Attr { return ir.DenseI64Attr{Values: v} }
	ivd := func(v int64) ir.IntAttr { return ir.IntAttr{Value: v} }
	const n = 7
	// Out of range, also after the wrap: clamped (gather), skipped (scatter).
	idx := []int32{3, -2, 0, 9, -12, 3, 1}
	for _, tc := range []struct {
		name     string
		opShape  []int64 // operand
		ixShape  []int64 // indices as passed (relabeled in the rewritten program)
		relabel  string
		ixFull   []int64 // after the relabeling
		dims     []int64 // broadcast_dimensions
		outShape []int64
		attrs    ir.Attrs
		scatter  bool
	}{
		{"take", []int64{10}, []int64{n}, "stablehlo.broadcast_in_dim", []int64{n, 1}, []int64{0}, []int64{n}, ir.Attrs{
			"offset_dims": i64a(), "collapsed_slice_dims": i64a(0), "operand_batching_dims": i64a(), "start_indices_batching_dims": i64a(),
			"start_index_map": i64a(0), "index_vector_dim": ivd(1), "slice_sizes": i64a(1)}, false},
		{"rows by reshape", []int64{10, 3}, []int64{n}, "stablehlo.reshape", []int64{n, 1}, nil, []int64{n, 3}, ir.Attrs{
			"offset_dims": i64a(1), "collapsed_slice_dims": i64a(0), "operand_batching_dims": i64a(), "start_indices_batching_dims": i64a(),
			"start_index_map": i64a(0), "index_vector_dim": ivd(1), "slice_sizes": i64a(1, 3)}, false},
		// Index vector dimension first: the batching dimension after it is renumbered.
		{"batched, vector dim first", []int64{n, 10}, []int64{n}, "stablehlo.broadcast_in_dim", []int64{1, n}, []int64{1}, []int64{n}, ir.Attrs{
			"offset_dims": i64a(), "collapsed_slice_dims": i64a(1), "operand_batching_dims": i64a(0), "start_indices_batching_dims": i64a(1),
			"start_index_map": i64a(1), "index_vector_dim": ivd(0), "slice_sizes": i64a(1, 1)}, false},
		{"scatter-add points", []int64{10}, []int64{n}, "stablehlo.broadcast_in_dim", []int64{n, 1}, []int64{0}, []int64{n}, ir.Attrs{
			"update_window_dims": i64a(), "inserted_window_dims": i64a(0), "input_batching_dims": i64a(), "scatter_indices_batching_dims": i64a(),
			"scatter_dims_to_operand_dims": i64a(0), "index_vector_dim": ivd(1)}, true},
		{"scatter-add rows", []int64{10, 3}, []int64{n}, "stablehlo.reshape", []int64{n, 1}, nil, []int64{n, 3}, ir.Attrs{
			"update_window_dims": i64a(1), "inserted_window_dims": i64a(0), "input_batching_dims": i64a(), "scatter_indices_batching_dims": i64a(),
			"scatter_dims_to_operand_dims": i64a(0), "index_vector_dim": ivd(1)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opT := ir.Tensor(ir.F32, tc.opShape...)
			outT := ir.Tensor(ir.F32, tc.outShape...)
			if tc.scatter {
				outT = opT
			}
			updT := ir.Tensor(ir.F32, tc.outShape...)
			build := func(relabel bool, wrap int32) *ir.Module {
				ixT := ir.Tensor(ir.S32, tc.ixFull...)
				if relabel {
					ixT = ir.Tensor(ir.S32, tc.ixShape...)
				}
				mb := newMod()
				mb.fn("main", "public", []ir.Type{opT, ixT, updT}, []ir.Type{outT}, func(b *blkB, a []*ir.Value) []*ir.Value {
					ix := a[1]
					if wrap != 0 {
						it := ix.Type
						lt := b.v("stablehlo.compare", ir.Tensor(ir.Pred, ix.Tensor().Shape...), ir.Attrs{
							"comparison_direction": ir.EnumAttr{Kind: "comparison_direction", Value: "LT"},
							"comparison_type":      ir.EnumAttr{Kind: "comparison_type", Value: "SIGNED"}},
							ix, b.v("stablehlo.broadcast_in_dim", it, ir.Attrs{"broadcast_dimensions": i64a()}, b.i32c(0)))
						moved := b.v("stablehlo.add", it, nil, b.v("stablehlo.broadcast_in_dim", it, ir.Attrs{"broadcast_dimensions": i64a()}, b.i32c(wrap)), ix)
						ix = b.v("stablehlo.select", it, nil, lt, moved, ix)
					}
					if relabel {
						var at ir.Attrs
						if tc.dims != nil {
							at = ir.Attrs{"broadcast_dimensions": i64a(tc.dims...)}
						}
						ix = b.v(tc.relabel, ir.Tensor(ir.S32, tc.ixFull...), at, ix)
					}
					attrs := ir.Attrs{}
					for k, v := range tc.attrs {
						attrs[k] = v
					}
					if !tc.scatter {
						attrs["indices_are_sorted"] = ir.BoolAttr{Value: false}
						return []*ir.Value{b.v("stablehlo.gather", outT, attrs, a[0], ix)}
					}
					attrs["indices_are_sorted"], attrs["unique_indices"] = ir.BoolAttr{Value: false}, ir.BoolAttr{Value: false}
					sc := b.op("stablehlo.scatter", []*ir.Value{a[0], ix, a[2]}, []ir.Type{outT}, attrs)
					sc.AddRegion(b.region([]ir.Type{ir.Tensor(ir.F32), ir.Tensor(ir.F32)}, func(rb *blkB, x []*ir.Value) []*ir.Value {
						return []*ir.Value{rb.v("stablehlo.add", ir.Tensor(ir.F32), nil, x[0], x[1])}
					}))
					return sc.Results
				})
				return mb.m
			}
			const wrap = 10
			m := build(true, wrap)
			st := &passState{module: m, entry: m.Main()}
			require.NoError(t, implicitIndexes(st))
			require.NoError(t, checkInvariants(m))
			require.NoError(t, eliminateDeadCode(st))
			m.Main().Body.Walk(func(op *ir.Op) bool {
				require.NotContains(t, []string{tc.relabel, "stablehlo.select"}, op.Name, "the relabeling and the wrap should be gone")
				return true
			})

			opData := make([]float32, ir.Tensor(ir.F32, tc.opShape...).NumElements())
			for i := range opData {
				opData[i] = float32(i) + 0.5
			}
			upd := make([]float32, updT.NumElements())
			for i := range upd {
				upd[i] = float32(100 * (i + 1))
			}
			wrapped := make([]int32, n)
			for i, v := range idx {
				wrapped[i] = v
				if v < 0 {
					wrapped[i] += wrap
				}
			}
			got := run(t, compile(t, build(true, wrap)), f32s(opData...), i32s(idx...), f32s(upd...))[0]
			want := run(t, compile(t, build(false, 0)), f32s(opData...), i32s(wrapped...), f32s(upd...))[0]
			require.Equal(t, toF32(want), toF32(got))
		})
	}
}

// Only a relabeling that inserts exactly the index vector dimension goes.
func TestUnitVectorSourceRejects(t *testing.T) {
	mk := func(name string, in, out []int64, dims []int64) *ir.Value {
		x := &ir.Value{Type: ir.Tensor(ir.S32, in...)}
		at := ir.Attrs{}
		if dims != nil {
			at["broadcast_dimensions"] = ir.DenseI64Attr{Values: dims}
		}
		return ir.NewOp(name, []*ir.Value{x}, []ir.Type{ir.Tensor(ir.S32, out...)}, at).Results[0]
	}
	require.NotNil(t, unitVectorSource(mk("stablehlo.broadcast_in_dim", []int64{4, 5}, []int64{4, 5, 1}, []int64{0, 1}), 2))
	require.NotNil(t, unitVectorSource(mk("stablehlo.broadcast_in_dim", []int64{4, 5}, []int64{4, 1, 5}, []int64{0, 2}), 1))
	require.Nil(t, unitVectorSource(mk("stablehlo.broadcast_in_dim", []int64{4, 5}, []int64{4, 1, 5}, []int64{0, 2}), 2), "unit dim elsewhere")
	require.Nil(t, unitVectorSource(mk("stablehlo.broadcast_in_dim", []int64{4, 1}, []int64{4, 1, 1}, []int64{0, 1}), 1), "dims not those of an insertion at the vector dim")
	require.Nil(t, unitVectorSource(mk("stablehlo.broadcast_in_dim", []int64{1}, []int64{4, 1}, []int64{1}), 1), "a real broadcast")
	require.Nil(t, unitVectorSource(mk("stablehlo.reshape", []int64{2, 3}, []int64{3, 2, 1}, nil), 2), "a reshape that moves elements across dims")
	require.Nil(t, unitVectorSource(mk("stablehlo.transpose", []int64{4}, []int64{4, 1}, nil), 1))
}

// JAX's mode="fill" gather (jnp.take's rows; take_along_axis's batched
// points): select(0 <= i <= bound, gather, NaN) becomes the gather with a
// fill value; the program's result is the rule applied here on the host.
func TestGatherFillFolded(t *testing.T) {
	needOps(t, "stablehlo.gather", "stablehlo.broadcast_in_dim", "stablehlo.reshape", "stablehlo.add",
		"stablehlo.compare", "stablehlo.select", "stablehlo.and")
	i64a := func(v ...int64) ir.DenseI64Attr { return ir.DenseI64Attr{Values: v} }
	nan := float32(math.NaN())
	const rows, cols, n = 6, 3, 40
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i%15) - 7 // -7 .. 7: wrapped below -6, past the end above 5
	}
	for _, batched := range []bool{false, true} {
		t.Run(map[bool]string{false: "rows", true: "batched"}[batched], func(t *testing.T) {
			opT := ir.Tensor(ir.F32, rows, cols)
			ixT := ir.Tensor(ir.S32, n)
			outT := ir.Tensor(ir.F32, n, cols)
			bound := int64(rows - 1)
			if batched { // operand [n, rows], out[b] = operand[b, i[b]]
				opT, outT, bound = ir.Tensor(ir.F32, n, rows), ir.Tensor(ir.F32, n), int64(rows-1)
			}
			build := func() *ir.Module {
				mb := newMod()
				mb.fn("main", "public", []ir.Type{opT, ixT}, []ir.Type{outT}, func(b *blkB, a []*ir.Value) []*ir.Value {
					splat := func(v int32, shape ...int64) *ir.Value {
						return b.v("stablehlo.broadcast_in_dim", ir.Tensor(ir.S32, shape...), ir.Attrs{"broadcast_dimensions": i64a()}, b.i32c(v))
					}
					cmp := func(dir string, x, y *ir.Value) *ir.Value {
						return b.v("stablehlo.compare", ir.Tensor(ir.Pred, x.Tensor().Shape...), ir.Attrs{
							"comparison_direction": ir.EnumAttr{Kind: "comparison_direction", Value: dir},
							"comparison_type":      ir.EnumAttr{Kind: "comparison_type", Value: "SIGNED"}}, x, y)
					}
					i := a[1]
					w := b.v("stablehlo.select", ixT, nil, cmp("LT", i, splat(0, n)), b.v("stablehlo.add", ixT, nil, i, splat(rows, n)), i)
					v := b.v("stablehlo.reshape", ir.Tensor(ir.S32, n, 1), nil, w)
					in := b.v("stablehlo.and", ir.Tensor(ir.Pred, n, 1), nil, cmp("GE", v, splat(0, n, 1)), cmp("LE", v, splat(int32(bound), n, 1)))
					m := b.v("stablehlo.reshape", ir.Tensor(ir.Pred, n), nil, in)
					attrs := ir.Attrs{"offset_dims": i64a(1), "collapsed_slice_dims": i64a(0), "operand_batching_dims": i64a(),
						"start_indices_batching_dims": i64a(), "start_index_map": i64a(0), "index_vector_dim": ir.IntAttr{Value: 1},
						"slice_sizes": i64a(1, cols), "indices_are_sorted": ir.BoolAttr{}}
					pred := m
					if batched {
						attrs["offset_dims"], attrs["collapsed_slice_dims"], attrs["operand_batching_dims"] = i64a(), i64a(1), i64a(0)
						attrs["start_indices_batching_dims"], attrs["start_index_map"], attrs["slice_sizes"] = i64a(0), i64a(1), i64a(1, 1)
					} else {
						pred = b.v("stablehlo.broadcast_in_dim", ir.Tensor(ir.Pred, n, cols), ir.Attrs{"broadcast_dimensions": i64a(0)}, m)
					}
					g := b.v("stablehlo.gather", outT, attrs, a[0], v)
					fill := b.v("stablehlo.broadcast_in_dim", outT, ir.Attrs{"broadcast_dimensions": i64a()}, b.constant(ir.Tensor(ir.F32), f32s(nan)))
					return []*ir.Value{b.v("stablehlo.select", outT, nil, pred, g, fill)}
				})
				return mb.m
			}
			m := build()
			st := &passState{module: m, entry: m.Main()}
			require.NoError(t, implicitIndexes(st))
			require.NoError(t, checkInvariants(m))
			require.NoError(t, eliminateDeadCode(st))
			m.Main().Body.Walk(func(op *ir.Op) bool {
				require.NotContains(t, []string{"stablehlo.select", "stablehlo.compare", "stablehlo.and"}, op.Name, "the wrap and the fill mask should be gone")
				return true
			})

			operand := make([]float32, opT.NumElements())
			for i := range operand {
				operand[i] = float32(i) + 0.5
			}
			var want []float32
			for b, v := range idx {
				if v < 0 {
					v += rows
				}
				for c := range map[bool]int{false: cols, true: 1}[batched] {
					switch {
					case v < 0 || v > int32(bound):
						want = append(want, nan)
					case batched:
						want = append(want, operand[b*rows+int(v)])
					default:
						want = append(want, operand[int(v)*cols+c])
					}
				}
			}
			got := toF32(run(t, compile(t, build()), f32s(operand...), i32s(idx...))[0])
			require.Len(t, got, len(want))
			for k := range want {
				require.Equal(t, math.Float32bits(want[k]), math.Float32bits(got[k]), "element %d", k)
			}
		})
	}
}

// bincount's scatter-add of broadcast ones reads the one: the broadcast
// goes and the counts are those counted here.
func TestScatterSplatUpdatesRead(t *testing.T) {
	needOps(t, "stablehlo.scatter", "stablehlo.broadcast_in_dim", "stablehlo.add")
	i64a := func(v ...int64) ir.DenseI64Attr { return ir.DenseI64Attr{Values: v} }
	const bins, n = 10, 300
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i*7%13) - 1 // -1 .. 11: both ends skipped
	}
	build := func() *ir.Module {
		mb := newMod()
		s32 := func(shape ...int64) *ir.TensorType { return ir.Tensor(ir.S32, shape...) }
		mb.fn("main", "public", []ir.Type{s32(bins), s32(n)}, []ir.Type{s32(bins)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			ix := b.v("stablehlo.broadcast_in_dim", s32(n, 1), ir.Attrs{"broadcast_dimensions": i64a(0)}, a[1])
			ones := b.v("stablehlo.broadcast_in_dim", s32(n), ir.Attrs{"broadcast_dimensions": i64a()}, b.i32c(1))
			sc := b.op("stablehlo.scatter", []*ir.Value{a[0], ix, ones}, []ir.Type{s32(bins)}, ir.Attrs{
				"update_window_dims": i64a(), "inserted_window_dims": i64a(0), "input_batching_dims": i64a(), "scatter_indices_batching_dims": i64a(),
				"scatter_dims_to_operand_dims": i64a(0), "index_vector_dim": ir.IntAttr{Value: 1},
				"indices_are_sorted": ir.BoolAttr{}, "unique_indices": ir.BoolAttr{}})
			sc.AddRegion(b.region([]ir.Type{s32(), s32()}, func(rb *blkB, x []*ir.Value) []*ir.Value {
				return []*ir.Value{rb.v("stablehlo.add", s32(), nil, x[0], x[1])}
			}))
			return sc.Results
		})
		return mb.m
	}
	m := build()
	st := &passState{module: m, entry: m.Main()}
	require.NoError(t, implicitIndexes(st))
	require.NoError(t, checkInvariants(m))
	require.NoError(t, eliminateDeadCode(st))
	m.Main().Body.Walk(func(op *ir.Op) bool {
		require.NotEqual(t, "stablehlo.broadcast_in_dim", op.Name, "the index relabeling and the ones should be gone")
		return true
	})
	counts := make([]int32, bins)
	for i := range counts {
		counts[i] = int32(100 * i)
	}
	want := append([]int32(nil), counts...)
	for _, v := range idx {
		if v >= 0 && v < bins {
			want[v]++
		}
	}
	got := run(t, compile(t, build()), i32s(counts...), i32s(idx...))[0]
	require.Equal(t, want, toI32(got))
}
