package compiler

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/shape"
)

// implicitIndexes reads the start indices of a gather or scatter
// directly when they are a reshape (or broadcast_in_dim) of a tensor that
// only inserts the unit index vector dimension: x[i], .at[i].add/set,
// bincount and segment ops index with i[:, None]. With index_vector_dim
// equal to the indices' rank the index vector is implicit and of size 1
// (StableHLO's gather and scatter), so the op reads i itself and the
// relabeling, a copy of the whole index array that the planner runs as its
// own step, goes (dce drops it once unread). Batch dimensions keep their
// order; the ones numbered after the removed dimension shift down by one.
//
// Indices that are then select(i < 0, i + w, i), with w a positive splat
// (JAX's negative-index normalization, its own pass over the indices),
// become i and the op's shape.WrapIndicesAttr w: the kernel adds w to a
// negative index as it reads it, the same value (i + w cannot overflow
// for i < 0 < w).
//
// A gather whose only reader is select(in bounds, gather, fill), JAX's
// mode="fill" (jnp.take, take_along_axis), where "in bounds" is
// 0 <= v <= operand dim - slice size on the very indices v the gather
// reads (one component), becomes the gather with shape.GatherFillAttr:
// the kernel writes fill where it would have clamped, and the mask and
// select passes over the result go.
//
// A one-input scatter whose updates are a broadcast scalar (bincount's
// and histograms' ones) reads the scalar, with shape.SplatUpdatesAttr the
// updates' shape: the broadcast, a pass writing them all, goes.
func implicitIndexes(st *passState) error {
	foldGatherFills(st)
	st.entry.Body.Walk(func(op *ir.Op) bool {
		var k int
		var batchAttr string
		switch op.Name {
		case "stablehlo.gather":
			k, batchAttr = 1, "start_indices_batching_dims"
		case "stablehlo.scatter":
			k, batchAttr = len(op.Results), "scatter_indices_batching_dims"
		default:
			return true
		}
		if k >= len(op.Operands) {
			return true
		}
		ivdAttr, ok := op.Attrs["index_vector_dim"].(ir.IntAttr)
		if !ok {
			return true
		}
		ins := append([]*ir.Value(nil), op.Operands...)
		attrs := make(ir.Attrs, len(op.Attrs)+1)
		for name, a := range op.Attrs {
			attrs[name] = a
		}
		if x := unitVectorSource(ins[k], ivdAttr.Value); x != nil {
			dims, ok := shiftBatchDims(op.Attrs[batchAttr], ivdAttr.Value)
			if !ok { // not a valid gather/scatter: left to the kernel's error
				return true
			}
			if dims != nil {
				attrs[batchAttr] = *dims
			}
			ivdAttr.Value = int64(x.StaticTensor().Rank())
			attrs["index_vector_dim"] = ivdAttr
			ins[k] = x
		}
		if _, wrapped := attrs[shape.WrapIndicesAttr]; !wrapped {
			if i, w := negativeIndexWrap(ins[k]); i != nil {
				ins[k] = i
				attrs[shape.WrapIndicesAttr] = ir.IntAttr{Value: w, Type: ir.S64}
			}
		}
		if _, splat := attrs[shape.SplatUpdatesAttr]; op.Name == "stablehlo.scatter" && k == 1 && len(ins) == 3 && !splat {
			if u := ins[2].StaticTensor(); u != nil {
				if x := broadcastScalar(ins[2]); x != nil && x != ins[2] {
					ins[2] = x
					attrs[shape.SplatUpdatesAttr] = ir.DenseI64Attr{Values: append([]int64{}, u.Shape...)}
				}
			}
		}
		op.Operands, op.Attrs = ins, attrs
		return true
	})
	return nil
}

// shiftBatchDims renumbers index batching dimensions a (nil when absent
// or empty: nothing to change) for the removal of dimension ivd; false when
// one of them is ivd.
func shiftBatchDims(a ir.Attr, ivd int64) (*ir.DenseI64Attr, bool) {
	b, ok := a.(ir.DenseI64Attr)
	if !ok || len(b.Values) == 0 {
		return nil, true
	}
	dims := make([]int64, len(b.Values))
	for i, d := range b.Values {
		if d == ivd {
			return nil, false
		}
		dims[i] = d
		if d > ivd {
			dims[i]--
		}
	}
	return &ir.DenseI64Attr{Values: dims}, true
}

// unitVectorSource returns x when v is reshape(x) or broadcast_in_dim(x)
// with v's shape that of x with a size-1 dimension inserted at ivd (x's
// dimensions in order, elements unchanged), else nil.
func unitVectorSource(v *ir.Value, ivd int64) *ir.Value {
	def := v.Def
	if def == nil || len(def.Operands) != 1 || len(def.Results) != 1 {
		return nil
	}
	if def.Name != "stablehlo.reshape" && def.Name != "stablehlo.broadcast_in_dim" {
		return nil
	}
	x := def.Operands[0]
	in, out := x.StaticTensor(), v.StaticTensor()
	if in == nil || out == nil || in.Elem != out.Elem || out.Rank() != in.Rank()+1 || ivd < 0 || ivd >= int64(out.Rank()) || out.Shape[ivd] != 1 {
		return nil
	}
	for d := range in.Rank() {
		o := d
		if int64(d) >= ivd {
			o++
		}
		if in.Shape[d] != out.Shape[o] {
			return nil
		}
	}
	if def.Name == "stablehlo.broadcast_in_dim" {
		dims, ok := def.Attrs.I64s("broadcast_dimensions")
		if !ok && in.Rank() > 0 || len(dims) != in.Rank() {
			return nil
		}
		for d, od := range dims {
			want := int64(d)
			if want >= ivd {
				want++
			}
			if od != want {
				return nil
			}
		}
	}
	return x
}

// negativeIndexWrap returns i and w when v is select(compare(i, 0) LT
// signed, add(i, w), i) with w a positive splat and i of a signed integer
// type, else nil.
func negativeIndexWrap(v *ir.Value) (*ir.Value, int64) {
	sel := v.Def
	if sel == nil || sel.Name != "stablehlo.select" || len(sel.Operands) != 3 {
		return nil, 0
	}
	cmp, add, i := sel.Operands[0].Def, sel.Operands[1].Def, sel.Operands[2]
	if t := i.StaticTensor(); t == nil || !t.Elem.IsSigned() {
		return nil, 0
	}
	if cmp == nil || cmp.Name != "stablehlo.compare" || len(cmp.Operands) != 2 || cmp.Operands[0] != i || !isZeroSplat(cmp.Operands[1]) {
		return nil, 0
	}
	if dir, _ := cmp.Attrs.Enum("comparison_direction"); dir != "LT" {
		return nil, 0
	}
	if ct, ok := cmp.Attrs.Enum("comparison_type"); ok && ct != "SIGNED" {
		return nil, 0
	}
	if add == nil || add.Name != "stablehlo.add" || len(add.Operands) != 2 {
		return nil, 0
	}
	c := add.Operands[1]
	if add.Operands[0] != i {
		if add.Operands[1] != i {
			return nil, 0
		}
		c = add.Operands[0]
	}
	w, ok := intSplat(c)
	if !ok || w <= 0 {
		return nil, 0
	}
	return i, w
}

// foldGatherFills gives gathers read only by a fill select their fill
// attribute and drops the select (see implicitIndexes). It runs before the
// index rewrites: the mask is matched against the gather's own indices.
func foldGatherFills(st *passState) {
	uses := useCounts(st.entry.Body)
	repl := map[*ir.Value]*ir.Value{}
	rewritten := map[*ir.Op][]*ir.Op{}
	st.entry.Body.Walk(func(sel *ir.Op) bool {
		if sel.Name != "stablehlo.select" || len(sel.Operands) != 3 || len(sel.Results) != 1 {
			return true
		}
		g := sel.Operands[1].Def
		if g == nil || g.Name != "stablehlo.gather" || len(g.Operands) != 2 || uses[g.Results[0]] != 1 || g.Block != sel.Block {
			return true
		}
		if _, done := g.Attrs[shape.GatherFillAttr]; done {
			return true
		}
		fill := splatElement(sel.Operands[2])
		out := g.Results[0].StaticTensor()
		if fill == nil || out == nil || fill.Type.Elem != out.Elem || !gatherBoundsMask(sel.Operands[0], g) {
			return true
		}
		attrs := make(ir.Attrs, len(g.Attrs)+1)
		for name, a := range g.Attrs {
			attrs[name] = a
		}
		attrs[shape.GatherFillAttr] = fill
		g.Attrs = attrs
		repl[sel.Results[0]] = g.Results[0]
		rewritten[sel] = []*ir.Op{}
		return true
	})
	applyRewrites(st.entry.Body, rewritten, repl)
}

// gatherBoundsMask reports whether pred is true exactly where g's index
// (one component, read from the index tensor v it has now) lies in
// [0, operand dim - slice size], broadcast over g's window dimensions:
// pred = broadcast_in_dim(m) onto g's batch dimensions, or m itself, with
// m = reshape(and(v >= 0, v <= that bound)) dropping the unit index vector
// dimension of v.
func gatherBoundsMask(pred *ir.Value, g *ir.Op) bool {
	out, v := g.Results[0].StaticTensor(), g.Operands[1]
	vt, opT := v.StaticTensor(), g.Operands[0].StaticTensor()
	ivd, ok := g.Attrs.Int("index_vector_dim")
	offset, ok2 := g.Attrs.I64s("offset_dims")
	smap, ok3 := g.Attrs.I64s("start_index_map")
	sizes, ok4 := g.Attrs.I64s("slice_sizes")
	if out == nil || vt == nil || opT == nil || !ok || !ok2 && len(offset) > 0 || !ok3 || !ok4 || len(smap) != 1 ||
		ivd != int64(vt.Rank()-1) || vt.Shape[ivd] != 1 || smap[0] < 0 || int(smap[0]) >= opT.Rank() || len(sizes) != opT.Rank() {
		return false
	}
	bound := opT.Shape[smap[0]] - sizes[smap[0]]
	// Batch dimensions of the result: those not in offset_dims, in order.
	var batch []int64
	for d := range int64(out.Rank()) {
		if !containsI64(offset, d) {
			batch = append(batch, d)
		}
	}
	m := pred
	if len(offset) > 0 {
		b := pred.Def
		if b == nil || b.Name != "stablehlo.broadcast_in_dim" || len(b.Operands) != 1 {
			return false
		}
		dims, ok := b.Attrs.I64s("broadcast_dimensions")
		if !ok && len(batch) > 0 || len(dims) != len(batch) {
			return false
		}
		for i, d := range dims {
			if d != batch[i] {
				return false
			}
		}
		m = b.Operands[0]
	}
	mt := m.StaticTensor()
	if mt == nil || mt.Rank() != len(batch) {
		return false
	}
	// m drops v's trailing unit dimension: a reshape of the and.
	and := m.Def
	if and != nil && and.Name == "stablehlo.reshape" && len(and.Operands) == 1 {
		and = and.Operands[0].Def
	}
	if and == nil || and.Name != "stablehlo.and" || len(and.Operands) != 2 {
		return false
	}
	ge, le := and.Operands[0].Def, and.Operands[1].Def
	return isIndexCompare(ge, v, "GE", 0) && isIndexCompare(le, v, "LE", bound)
}

// isIndexCompare reports whether c is compare(v, splat k) signed in
// direction dir.
func isIndexCompare(c *ir.Op, v *ir.Value, dir string, k int64) bool {
	if c == nil || c.Name != "stablehlo.compare" || len(c.Operands) != 2 || c.Operands[0] != v {
		return false
	}
	if d, _ := c.Attrs.Enum("comparison_direction"); d != dir {
		return false
	}
	if ct, ok := c.Attrs.Enum("comparison_type"); ok && ct != "SIGNED" {
		return false
	}
	e := splatElement(c.Operands[1])
	if e == nil || !e.Type.Elem.IsSigned() || len(e.Data) == 0 || len(e.Data) > 8 {
		return false
	}
	var u uint64
	for i := len(e.Data) - 1; i >= 0; i-- {
		u = u<<8 | uint64(e.Data[i])
	}
	shift := 64 - 8*len(e.Data) // sign-extend
	return int64(u<<shift)>>shift == k
}

// splatElement returns, as a rank-0 constant, the one value of a constant
// whose elements are all equal, through broadcast_in_dim ops; else nil.
func splatElement(v *ir.Value) *ir.ElementsAttr {
	for v.Def != nil && v.Def.Name == "stablehlo.broadcast_in_dim" && len(v.Def.Operands) == 1 {
		v = v.Def.Operands[0]
	}
	t := v.StaticTensor()
	if t == nil {
		return nil
	}
	if t.NumElements() == 1 {
		c := constData(v)
		if c == nil || len(c.Data) == 0 {
			return nil
		}
		return &ir.ElementsAttr{Type: &ir.TensorType{Elem: t.Elem}, Data: c.Data}
	}
	return splatConst(v)
}

func containsI64(s []int64, v int64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
