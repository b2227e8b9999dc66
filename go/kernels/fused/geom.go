package fused

import (
	"fmt"
	"slices"

	"github.com/gojax/gojax/go/ir"
)

// byteSize is a value's buffer size.
func byteSize(v *ir.Value) (int, error) {
	t := v.StaticTensor()
	if t == nil || t.ByteSize() < 0 || t.ByteSize() > ir.MaxBufferBytes {
		return 0, fmt.Errorf("values of type %s are not supported", v.Type)
	}
	return int(t.ByteSize()), nil
}

// roundUp rounds scratch sizes to cache lines.
func roundUp(n int) int { return (n + 63) &^ 63 }

// bcastMap describes how a broadcast_in_dim reads its operand: for each
// result dimension, the operand element stride (0 where the dimension is
// broadcast).
type bcastMap struct {
	dims    []int
	strides []int
}

// broadcastMap validates a broadcast_in_dim and returns its index map.
func broadcastMap(op *ir.Op) (bcastMap, bool) {
	if len(op.Operands) != 1 || len(op.Results) != 1 {
		return bcastMap{}, false
	}
	in, out := op.Operands[0].StaticTensor(), op.Results[0].StaticTensor()
	if in == nil || out == nil || in.Elem != out.Elem {
		return bcastMap{}, false
	}
	bd, ok := op.Attrs.I64s("broadcast_dimensions")
	if !ok && in.Rank() > 0 || len(bd) != in.Rank() {
		return bcastMap{}, false
	}
	m := bcastMap{dims: make([]int, out.Rank()), strides: make([]int, out.Rank())}
	for d, n := range out.Shape {
		m.dims[d] = int(n)
	}
	stride := 1
	for d := in.Rank() - 1; d >= 0; d-- {
		o := bd[d]
		if o < 0 || int(o) >= out.Rank() {
			return bcastMap{}, false
		}
		switch n := in.Shape[d]; {
		case n == out.Shape[o]:
			if m.strides[o] != 0 {
				return bcastMap{}, false // two operand dims on one result dim
			}
			if n != 1 {
				m.strides[o] = stride
			}
		case n == 1:
		default:
			return bcastMap{}, false
		}
		stride *= int(in.Shape[d])
	}
	return m, true
}

// collapse merges adjacent result dimensions that the index map walks
// contiguously (or both broadcasts), so the gather loop runs long rows.
func collapse(m bcastMap) ([]int, []int) {
	var dims, strides []int
	for d := range m.dims {
		n, s := m.dims[d], m.strides[d]
		if n == 1 {
			continue
		}
		if k := len(dims) - 1; k >= 0 && strides[k] == s*n {
			dims[k] *= n
			strides[k] = s
			continue
		}
		dims = append(dims, n)
		strides = append(strides, s)
	}
	if len(dims) == 0 {
		dims, strides = []int{1}, []int{0}
	}
	return dims, strides
}

// Broadcastable reports whether a fusion can read through op, a
// broadcast_in_dim: static shapes and an index map it can gather.
func Broadcastable(op *ir.Op) bool {
	_, ok := broadcastMap(op)
	return ok
}

// RowGeom is a row fusion's structure: values of Rows*N elements are
// "full" (row k is elements [k*N, (k+1)*N)), values of Rows elements are
// per-row.
type RowGeom struct{ Rows, N int64 }

// RowReduceGeom returns the geometry of a reduce a row fusion can run per
// row: one operand, the trailing dims reduced, at least two rows of two
// elements, a per-row loop (reduce.RowReduce).
func RowReduceGeom(op *ir.Op) (RowGeom, bool) {
	if op.Name != "stablehlo.reduce" || len(op.Operands) != 2 || len(op.Results) != 1 || len(op.Regions) != 1 {
		return RowGeom{}, false
	}
	in, out := op.Operands[0].StaticTensor(), op.Results[0].StaticTensor()
	if in == nil || out == nil || in.Rank() == 0 {
		return RowGeom{}, false
	}
	dims, ok := op.Attrs.I64s("dimensions")
	if !ok || len(dims) == 0 {
		return RowGeom{}, false
	}
	d := slices.Clone(dims)
	slices.Sort(d)
	first := int64(in.Rank() - len(d))
	for i, v := range d {
		if v != first+int64(i) {
			return RowGeom{}, false // not exactly the trailing dims
		}
	}
	g := RowGeom{Rows: 1, N: 1}
	for i, s := range in.Shape {
		if int64(i) < first {
			g.Rows *= s
		} else {
			g.N *= s
		}
	}
	if g.Rows < 2 || g.N < 2 || out.NumElements() != g.Rows {
		return RowGeom{}, false
	}
	if _, ok := rowReduceLoop(op, in.Elem, int(g.N)); !ok {
		return RowGeom{}, false
	}
	return g, true
}

// RowBcast classifies a broadcast_in_dim under a row geometry.
type RowBcast uint8

const (
	BcastOther   RowBcast = iota // neither of the below
	BcastSpread                  // spreads a per-row value along the rows
	BcastReshape                 // only re-shapes a per-row value (keepdims)
)

// RowBroadcast classifies a broadcast_in_dim under g.
func RowBroadcast(op *ir.Op, g RowGeom) RowBcast {
	bm, ok := broadcastMap(op)
	if !ok || op.Operands[0].StaticTensor().NumElements() != g.Rows {
		return BcastOther
	}
	dims, strides := collapse(bm)
	switch n := op.Results[0].StaticTensor().NumElements(); {
	case n == g.Rows*g.N && len(dims) == 2 && int64(dims[0]) == g.Rows && int64(dims[1]) == g.N && strides[0] == 1 && strides[1] == 0:
		return BcastSpread
	case n == g.Rows && len(dims) == 1 && strides[0] == 1:
		return BcastReshape
	}
	return BcastOther
}

// Relabels reports ops that keep every element's bytes at its linear
// index: a row-major reshape keeping the element type, and a
// bitcast_convert between whole-byte types of one width (f32 <-> s32:
// JAX's float bit tricks) with the shape kept. Inside a fusion they move
// no data. Packed types (s4, f4E2M1FN, ...) and pred are excluded: their
// storage byte is not their bit pattern.
func Relabels(op *ir.Op) bool {
	if len(op.Operands) != 1 || len(op.Results) != 1 {
		return false
	}
	in, out := op.Operands[0].StaticTensor(), op.Results[0].StaticTensor()
	if in == nil || out == nil || in.NumElements() != out.NumElements() {
		return false
	}
	switch op.Name {
	case "stablehlo.reshape":
		return in.Elem == out.Elem
	case "stablehlo.bitcast_convert":
		whole := func(t ir.ElemType) bool { return t != ir.Pred && t.Bits() == 8*t.ByteSize() }
		return in.Elem.ByteSize() == out.Elem.ByteSize() && whole(in.Elem) && whole(out.Elem) && slices.Equal(in.Shape, out.Shape)
	}
	return false
}
