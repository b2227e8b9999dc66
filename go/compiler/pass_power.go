package compiler

import (
	"encoding/binary"
	"math"

	"github.com/gojax/gojax/go/ir"
)

// rewritePowers replaces power by a splat constant 1, 2, 3 or -1 with
// x, x*x, x*(x*x) or 1/x, for float and complex element types. XLA's
// algebraic simplifier makes the same rewrites, and they are observable:
// x**3.0 is rounded twice, and (inf+0j)**2 is inf+nanj by multiplication but
// inf+0j by the power formula. Doing them too keeps gojax's answers equal to
// XLA:CPU's (and a multiply is cheaper than pow).
func rewritePowers(st *passState) error {
	repl := map[*ir.Value]*ir.Value{}
	rewritten := map[*ir.Op][]*ir.Op{}
	st.entry.Body.Walk(func(op *ir.Op) bool {
		if op.Name != "stablehlo.power" || len(op.Operands) != 2 || len(op.Results) != 1 {
			return true
		}
		t := op.Results[0].Tensor()
		if t == nil || !(t.Elem.IsComplex() || t.Elem == ir.F16 || t.Elem == ir.BF16 || t.Elem == ir.F32 || t.Elem == ir.F64) {
			return true
		}
		x := resolve(repl, op.Operands[0])
		e, ok := splatExponent(resolve(repl, op.Operands[1]), t.Elem)
		if !ok || !ir.TypesEqual(x.Type, t) {
			return true
		}
		mul := func(a, b *ir.Value) *ir.Op {
			m := ir.NewOp("stablehlo.multiply", []*ir.Value{a, b}, []ir.Type{t}, nil)
			m.Loc, m.Block = op.Loc, op.Block
			return m
		}
		var ops []*ir.Op
		switch e {
		case 1:
			repl[op.Results[0]] = x
		case 2:
			ops = []*ir.Op{mul(x, x)}
		case 3:
			sq := mul(x, x)
			ops = []*ir.Op{sq, mul(x, sq.Results[0])}
		case -1:
			scalar := &ir.TensorType{Elem: t.Elem}
			one := ir.NewOp("stablehlo.constant", nil, []ir.Type{scalar},
				ir.Attrs{"value": &ir.ElementsAttr{Type: scalar, Data: encodeSmallInt(1, t.Elem)}})
			ones := ir.NewOp("stablehlo.broadcast_in_dim", []*ir.Value{one.Results[0]}, []ir.Type{t},
				ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}})
			div := ir.NewOp("stablehlo.divide", []*ir.Value{ones.Results[0], x}, []ir.Type{t}, nil)
			ops = []*ir.Op{one, ones, div}
			for _, o := range ops {
				o.Loc, o.Block = op.Loc, op.Block
			}
		}
		if len(ops) > 0 {
			repl[op.Results[0]] = ops[len(ops)-1].Results[0]
		}
		rewritten[op] = ops
		return true
	})
	applyRewrites(st.entry.Body, rewritten, repl)
	return nil
}

// splatExponent reports the exponent when v is a constant (or a broadcast of
// one) whose every element is the same value out of 1, 2, 3 and -1.
func splatExponent(v *ir.Value, elem ir.ElemType) (int, bool) {
	for v.Def != nil && v.Def.Name == "stablehlo.broadcast_in_dim" && len(v.Def.Operands) == 1 {
		v = v.Def.Operands[0]
	}
	c := constData(v)
	if c == nil || len(c.Data) == 0 {
		return 0, false
	}
	size := elem.ByteSize() // complex: both parts
	if size == 0 || len(c.Data)%size != 0 {
		return 0, false
	}
	first := c.Data[:size]
	for i := size; i < len(c.Data); i += size {
		if string(c.Data[i:i+size]) != string(first) {
			return 0, false
		}
	}
	for _, e := range []int{1, 2, 3, -1} {
		if string(encodeSmallInt(e, elem)) == string(first) {
			return e, true
		}
	}
	return 0, false
}

// encodeSmallInt is the storage bytes of the small integer n in a float or
// complex element type (complex: imaginary part +0).
func encodeSmallInt(n int, elem ir.ElemType) []byte {
	f := float64(n)
	switch elem {
	case ir.F16:
		return binary.LittleEndian.AppendUint16(nil, halfBits(f))
	case ir.BF16:
		return binary.LittleEndian.AppendUint16(nil, uint16(math.Float32bits(float32(f))>>16))
	case ir.F32:
		return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(f)))
	case ir.F64:
		return binary.LittleEndian.AppendUint64(nil, math.Float64bits(f))
	case ir.C64:
		return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(f))), 0)
	case ir.C128:
		return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, math.Float64bits(f)), 0)
	}
	return nil
}

// halfBits encodes the small integers this pass needs (|n| ≤ 3, exact in
// binary16): sign, exponent 15+e, and the one mantissa bit 3 has.
func halfBits(f float64) uint16 {
	var sign uint16
	if f < 0 {
		sign, f = 0x8000, -f
	}
	frac, exp := math.Frexp(f) // f = frac·2^exp, frac in [0.5, 1)
	mant := uint16((frac*2 - 1) * 1024)
	return sign | uint16(exp-1+15)<<10 | mant
}
