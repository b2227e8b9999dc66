package compiler

import (
	"github.com/gojax/gojax/go/ir"
)

// narrowCounters simplifies the counters jax.random feeds threefry: an iota
// of u64 times one, split into its high and low 32-bit words by a shift and
// two converts. Each rewrite is exact, from the iota's range [0, d) along
// its dimension: x*1 → x (integers); convert(iota) → an iota of the
// narrower type when d-1 fits it; shift_right_logical(iota, c) → zeros when
// d <= 2^c; convert(zeros) → zeros. The 64-bit ops ran one element at a
// time and cost four times the threefry rounds themselves.
func narrowCounters(st *passState) error {
	repl := map[*ir.Value]*ir.Value{}
	rewritten := map[*ir.Op][]*ir.Op{}
	st.entry.Body.Walk(func(op *ir.Op) bool {
		if len(op.Results) != 1 {
			return true
		}
		t := op.Results[0].StaticTensor()
		if t == nil || !isPlainInt(t.Elem) {
			return true
		}
		arg := func(i int) *ir.Value { return resolve(repl, op.Operands[i]) }
		switch op.Name {
		case "stablehlo.multiply":
			if len(op.Operands) != 2 {
				return true
			}
			for i := range 2 {
				if one, ok := intSplat(arg(i)); ok && one == 1 && ir.TypesEqual(arg(1-i).Type, op.Results[0].Type) {
					repl[op.Results[0]] = arg(1 - i)
					return true
				}
			}
		case "stablehlo.convert":
			x := arg(0)
			if isZeroSplat(x) {
				rewritten[op] = zerosLike(op)
				repl[op.Results[0]] = rewritten[op][1].Results[0]
				return true
			}
			if d, ok := iotaExtent(x); ok && fitsUnsigned(d-1, t.Elem) {
				it := ir.NewOp("stablehlo.iota", nil, []ir.Type{op.Results[0].Type}, ir.Attrs{"iota_dimension": x.Def.Attrs["iota_dimension"]})
				it.Loc, it.Block = op.Loc, op.Block
				rewritten[op] = []*ir.Op{it}
				repl[op.Results[0]] = it.Results[0]
			}
		case "stablehlo.shift_right_logical":
			c, ok := intSplat(arg(1))
			d, ok2 := iotaExtent(arg(0))
			if ok && ok2 && c >= 0 && c < 63 && d <= 1<<c {
				rewritten[op] = zerosLike(op)
				repl[op.Results[0]] = rewritten[op][1].Results[0]
			}
		}
		return true
	})
	applyRewrites(st.entry.Body, rewritten, repl)
	return nil
}

func isPlainInt(e ir.ElemType) bool {
	switch e {
	case ir.S8, ir.S16, ir.S32, ir.S64, ir.U8, ir.U16, ir.U32, ir.U64:
		return true
	}
	return false
}

// iotaExtent returns the size of an integer iota's counting dimension.
func iotaExtent(v *ir.Value) (int64, bool) {
	if v.Def == nil || v.Def.Name != "stablehlo.iota" {
		return 0, false
	}
	t := v.StaticTensor()
	d, ok := v.Def.Attrs.Int("iota_dimension")
	if t == nil || !ok || d < 0 || int(d) >= t.Rank() || !isPlainInt(t.Elem) {
		return 0, false
	}
	return t.Shape[d], true
}

// fitsUnsigned reports whether 0..m are values of e.
func fitsUnsigned(m int64, e ir.ElemType) bool {
	bits := map[ir.ElemType]uint{ir.S8: 7, ir.S16: 15, ir.S32: 31, ir.S64: 63, ir.U8: 8, ir.U16: 16, ir.U32: 32, ir.U64: 64}[e]
	return bits >= 63 || m < 1<<bits
}

// intSplat returns the value of an integer constant whose elements are all
// equal (a scalar, a splat, or a broadcast of a scalar), sign-extended.
func intSplat(v *ir.Value) (int64, bool) {
	if s := broadcastScalar(v); s != nil {
		v = s
	}
	t := v.StaticTensor()
	if t == nil || !isPlainInt(t.Elem) {
		return 0, false
	}
	c := splatConst(v)
	if c == nil {
		if c = constData(v); c == nil || len(c.Data) != t.Elem.ByteSize() {
			return 0, false
		}
	}
	var u uint64
	for i := len(c.Data) - 1; i >= 0; i-- {
		u = u<<8 | uint64(c.Data[i])
	}
	switch t.Elem {
	case ir.S8:
		return int64(int8(u)), true
	case ir.S16:
		return int64(int16(u)), true
	case ir.S32:
		return int64(int32(u)), true
	}
	return int64(u), true
}

func isZeroSplat(v *ir.Value) bool {
	z, ok := intSplat(v)
	return ok && z == 0
}

// zerosLike returns a scalar zero constant and its broadcast to op's
// result type.
func zerosLike(op *ir.Op) []*ir.Op {
	t := op.Results[0].StaticTensor()
	scalar := &ir.TensorType{Elem: t.Elem}
	c := ir.NewOp("stablehlo.constant", nil, []ir.Type{scalar},
		ir.Attrs{"value": &ir.ElementsAttr{Type: scalar, Data: make([]byte, t.Elem.ByteSize())}})
	b := ir.NewOp("stablehlo.broadcast_in_dim", []*ir.Value{c.Results[0]}, []ir.Type{op.Results[0].Type},
		ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}})
	for _, o := range []*ir.Op{c, b} {
		o.Loc, o.Block = op.Loc, op.Block
	}
	return []*ir.Op{c, b}
}
