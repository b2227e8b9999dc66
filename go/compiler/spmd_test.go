package compiler

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// spmdMesh declares @mesh = <["a"=2, "b"=2]>.
func spmdMesh(mb *modB) {
	mb.m.Globals = append(mb.m.Globals, ir.NewOp("sdy.mesh", nil, nil, ir.Attrs{
		"sym_name": ir.StringAttr{Value: "mesh"},
		"mesh":     ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.mesh<["a"=2, "b"=2]>`},
	}))
}

// manual adds an sdy.manual_computation over @mesh; the body gets the
// operands' blocks and returns the results' blocks.
func (b *blkB) manual(axes string, ins []*ir.Value, inSh string, outs []ir.Type, outSh string, locals []ir.Type,
	body func(rb *blkB, a []*ir.Value) []*ir.Value) []*ir.Value {
	mc := b.op("sdy.manual_computation", ins, outs, ir.Attrs{
		"in_shardings":  ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.sharding_per_value<[` + inSh + `]>`},
		"out_shardings": ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.sharding_per_value<[` + outSh + `]>`},
		"manual_axes":   ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy<manual_axes{` + axes + `}>`},
	})
	r := b.region(locals, body)
	r.Blocks[0].Terminator().Name = "sdy.return"
	mc.AddRegion(r)
	return mc.Results
}

// meshAxes is replica_groups given as mesh axes (as decoded from VHLO); a
// sub-axis is name, pre_size, size.
func meshAxes(axes ...any) ir.DictAttr {
	var list []ir.Attr
	for i := 0; i < len(axes); i++ {
		e := ir.Attrs{"name": ir.StringAttr{Value: axes[i].(string)}}
		if i+2 < len(axes) {
			if pre, ok := axes[i+1].(int); ok {
				e["sub_axis_info"] = ir.DictAttr{Entries: ir.Attrs{
					"pre_size": ir.IntAttr{Value: int64(pre), Type: ir.S64},
					"size":     ir.IntAttr{Value: int64(axes[i+2].(int)), Type: ir.S64}}}
				i += 2
			}
		}
		list = append(list, ir.DictAttr{Entries: e})
	}
	return ir.DictAttr{Entries: ir.Attrs{"mesh": ir.SymbolRefAttr{Name: "mesh"}, "axes": ir.ArrayAttr{Elems: list}}}
}

// psum is an all_reduce (sum) over the given replica groups.
func (b *blkB) psum(x *ir.Value, groups ir.Attr) *ir.Value {
	op := b.op("stablehlo.all_reduce", []*ir.Value{x}, []ir.Type{x.Type}, ir.Attrs{
		"replica_groups":        groups,
		"channel_id":            ir.IntAttr{Value: 1, Type: ir.S64},
		"use_global_device_ids": ir.UnitAttr{},
	})
	s := ir.Tensor(x.Tensor().Elem)
	op.AddRegion(b.region([]ir.Type{s, s}, func(rb *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{rb.add(a[0], a[1])}
	}))
	return op.Result()
}

// partition returns partition_id as f32, shaped like t.
func (b *blkB) partition(t *ir.TensorType) *ir.Value {
	id := b.v("stablehlo.partition_id", ir.Tensor(ir.U32), nil)
	f := b.v("stablehlo.convert", ir.Tensor(ir.F32), nil, id)
	return b.v("stablehlo.broadcast_in_dim", t, ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: []int64{}}}, f)
}

// A manual computation over "a" alone leaves "b" free: the body sees blocks
// cut along "a" only, whole along "b", and the psum groups devices along
// "a". The result, replicated over the manual axis, is one replica's.
func TestManualComputationWithFreeAxis(t *testing.T) {
	mb := newMod()
	spmdMesh(mb)
	mb.fn("main", "public", []ir.Type{f32t(4, 2)}, []ir.Type{f32t(2, 2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return b.manual(`"a"`, a, `<@mesh, [{"a"}, {"b"}]>`, []ir.Type{f32t(2, 2)}, `<@mesh, [{}, {"b"}]>`, []ir.Type{f32t(2, 2)},
			func(rb *blkB, x []*ir.Value) []*ir.Value {
				return []*ir.Value{rb.psum(x[0], meshAxes("a"))}
			})
	})
	got := run(t, compile(t, mb.m), f32s(1, 2, 3, 4, 5, 6, 7, 8))
	require.Equal(t, []float32{6, 8, 10, 12}, toF32(got[0]))
}

// A manual computation nested in another's partition cuts its block of the
// partition's block, and the peers re-join the results. Device (a, b) is
// partition 2a+b; element i of the global array lands on device i.
func TestNestedManualComputation(t *testing.T) {
	mb := newMod()
	spmdMesh(mb)
	mb.fn("main", "public", []ir.Type{f32t(4)}, []ir.Type{f32t(4), f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return b.manual(`"a"`, a, `<@mesh, [{"a"}]>`, []ir.Type{f32t(4), f32t(2)}, `<@mesh, [{"a"}]>, <@mesh, [{}]>`, []ir.Type{f32t(2)},
			func(rb *blkB, x []*ir.Value) []*ir.Value {
				in := rb.manual(`"b"`, x, `<@mesh, [{"b"}]>`, []ir.Type{f32t(2)}, `<@mesh, [{"b"}]>`, []ir.Type{f32t(1)},
					func(ib *blkB, y []*ir.Value) []*ir.Value {
						return []*ir.Value{ib.add(y[0], ib.partition(f32t(1)))}
					})
				// Summed over "a": device (0, b) and (1, b) hold x[b]+b and x[2+b]+2+b.
				return []*ir.Value{in[0], rb.psum(in[0], meshAxes("a"))}
			})
	})
	got := run(t, compile(t, mb.m), f32s(10, 20, 30, 40))
	require.Equal(t, []float32{10, 21, 32, 43}, toF32(got[0]))
	require.Equal(t, []float32{42, 64}, toF32(got[1]))
}

// Replica groups over a sub-axis: "a":(1)2 of an axis of 4 is its major
// half, so devices 0,2 / 1,3 group (the minor factor stays apart).
func TestReplicaGroupsOverSubAxis(t *testing.T) {
	mb := newMod()
	mb.m.Globals = append(mb.m.Globals, ir.NewOp("sdy.mesh", nil, nil, ir.Attrs{
		"sym_name": ir.StringAttr{Value: "mesh"},
		"mesh":     ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.mesh<["a"=4]>`},
	}))
	mb.fn("main", "public", []ir.Type{f32t(4)}, []ir.Type{f32t(4)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return b.manual(`"a"`, a, `<@mesh, [{"a"}]>`, []ir.Type{f32t(4)}, `<@mesh, [{"a"}]>`, []ir.Type{f32t(1)},
			func(rb *blkB, x []*ir.Value) []*ir.Value {
				return []*ir.Value{rb.psum(x[0], meshAxes("a", 1, 2))}
			})
	})
	got := run(t, compile(t, mb.m), f32s(1, 2, 30, 40))
	require.Equal(t, []float32{31, 42, 31, 42}, toF32(got[0]))
}

// A manual computation over two devices inside a while body runs its
// partitions on every iteration.
func TestManualComputationInWhile(t *testing.T) {
	mb := newMod()
	spmdMesh(mb)
	mb.fn("main", "public", []ir.Type{f32t(2), i32t()}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		out := b.while([]*ir.Value{a[0], b.i32c(0)}, func(rb *blkB, c []*ir.Value) *ir.Value {
			return rb.lt(c[1], a[1])
		}, func(rb *blkB, c []*ir.Value) []*ir.Value {
			s := rb.manual(`"a", "b"`, c[:1], `<@mesh, [{"a"}]>`, []ir.Type{f32t(2)}, `<@mesh, [{"a"}]>`, []ir.Type{f32t(1)},
				func(ib *blkB, y []*ir.Value) []*ir.Value {
					return []*ir.Value{ib.psum(y[0], meshAxes("b"))} // two copies of each block: doubles
				})
			return []*ir.Value{s[0], rb.add(c[1], rb.i32c(1))}
		})
		return out[:1]
	})
	got := run(t, compile(t, mb.m), f32s(1, 3), i32s(3))
	require.Equal(t, []float32{8, 24}, toF32(got[0]))
}

// A token crosses a manual computation like any operand (it carries no
// data); the partitions' results join as usual.
func TestManualComputationPassesTokens(t *testing.T) {
	mb := newMod()
	spmdMesh(mb)
	tok := &ir.TokenType{}
	mb.fn("main", "public", []ir.Type{f32t(4)}, []ir.Type{f32t(4)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		t0 := b.v("stablehlo.after_all", tok, nil)
		r := b.manual(`"a", "b"`, []*ir.Value{t0, a[0]}, `<@mesh, []>, <@mesh, [{"a", "b"}]>`, []ir.Type{tok, f32t(4)},
			`<@mesh, []>, <@mesh, [{"b", "a"}]>`, []ir.Type{tok, f32t(1)},
			func(rb *blkB, x []*ir.Value) []*ir.Value {
				t1 := rb.v("stablehlo.after_all", tok, nil, x[0])
				return []*ir.Value{t1, rb.add(x[1], rb.partition(f32t(1)))}
			})
		return r[1:]
	})
	// Device 2a+b holds element 2a+b and writes it back at 2b+a.
	got := run(t, compile(t, mb.m), f32s(10, 20, 30, 40))
	require.Equal(t, []float32{10, 32, 21, 43}, toF32(got[0]))
}

// An operand unreduced along a manual axis is the sum of the partitions'
// values: the partition at coordinate 0 gets it, the others zeros. A result
// unreduced along one sums the partitions' blocks.
func TestManualComputationUnreduced(t *testing.T) {
	mb := newMod()
	spmdMesh(mb)
	mb.fn("main", "public", []ir.Type{f32t(2)}, []ir.Type{f32t(2), f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return b.manual(`"a", "b"`, a, `<@mesh, [{}], unreduced={"a"}>`, []ir.Type{f32t(2), f32t(2)},
			`<@mesh, [{}]>, <@mesh, [{"b"}], unreduced={"a"}>`, []ir.Type{f32t(2)},
			func(rb *blkB, x []*ir.Value) []*ir.Value {
				// Summed over "a", x comes back whole; partition 2a+b adds
				// its id to its block of the second result.
				s := rb.psum(x[0], meshAxes("a"))
				one := rb.v("stablehlo.slice", f32t(1), ir.Attrs{"start_indices": ir.DenseI64Attr{Values: []int64{0}},
					"limit_indices": ir.DenseI64Attr{Values: []int64{1}}, "strides": ir.DenseI64Attr{Values: []int64{1}}}, x[0])
				return []*ir.Value{s, rb.add(one, rb.partition(f32t(1)))}
			})
	})
	got := run(t, compile(t, mb.m), f32s(5, 7))
	require.Equal(t, []float32{5, 7}, toF32(got[0]))
	// Column b: partition (0, b) holds 5+b, (1, b) holds 0+2+b.
	require.Equal(t, []float32{7, 9}, toF32(got[1]))
}
