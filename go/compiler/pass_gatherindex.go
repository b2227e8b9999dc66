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
func implicitIndexes(st *passState) error {
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
