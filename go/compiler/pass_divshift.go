package compiler

import (
	"encoding/binary"

	"github.com/gojax/gojax/go/ir"
)

// unsignedDivShifts rewrites an unsigned integer divide by a splat power of
// two 2^k (0 < k < bits) into shift_right_logical by k: equal for every
// unsigned x (the quotient truncates, the shift drops the same low bits),
// and the shift has vector loops where the divide runs element by element.
// jax.random.choice with p bisects with (hi - lo) // 2 each iteration.
func unsignedDivShifts(st *passState) error {
	repl := map[*ir.Value]*ir.Value{}
	rewritten := map[*ir.Op][]*ir.Op{}
	st.entry.Body.Walk(func(op *ir.Op) bool {
		if op.Name != "stablehlo.divide" || len(op.Operands) != 2 || len(op.Results) != 1 {
			return true
		}
		t := op.Results[0].StaticTensor()
		if t == nil || !t.Elem.IsUnsigned() || !isPlainInt(t.Elem) || !ir.TypesEqual(op.Operands[1].Type, op.Results[0].Type) {
			return true
		}
		d, ok := intSplat(op.Operands[1])
		u := uint64(d)
		if !ok || u < 2 || u&(u-1) != 0 {
			return true
		}
		k := 0
		for u > 1 {
			u >>= 1
			k++
		}
		if k >= t.Elem.Bits() {
			return true
		}
		scalar := &ir.TensorType{Elem: t.Elem}
		data := make([]byte, 8)
		binary.LittleEndian.PutUint64(data, uint64(k))
		c := ir.NewOp("stablehlo.constant", nil, []ir.Type{scalar},
			ir.Attrs{"value": &ir.ElementsAttr{Type: scalar, Data: data[:t.Elem.ByteSize()]}})
		b := ir.NewOp("stablehlo.broadcast_in_dim", []*ir.Value{c.Results[0]}, []ir.Type{op.Results[0].Type},
			ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}})
		s := ir.NewOp("stablehlo.shift_right_logical", []*ir.Value{op.Operands[0], b.Results[0]}, []ir.Type{op.Results[0].Type}, nil)
		for _, o := range []*ir.Op{c, b, s} {
			o.Loc, o.Block = op.Loc, op.Block
		}
		rewritten[op] = []*ir.Op{c, b, s}
		repl[op.Results[0]] = s.Results[0]
		return true
	})
	applyRewrites(st.entry.Body, rewritten, repl)
	return nil
}
