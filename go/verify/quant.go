package verify

import (
	"github.com/gojax/gojax/go/ir"
)

// Quantized tensors (spec "Quantization"). uniform_quantize and
// uniform_dequantize have their own rules. An op that runs on stored
// integers (ir.QuantStorageOp) is checked by its own rule as it is, the
// storage type standing for the element type, and its quantized tensors
// must agree on storage and expressed type and range, and per tensor on
// scale and zero point. Any other op on quantized tensors is
// dequantize_op_quantize: its rule is applied with every quantized tensor
// replaced by its expressed type.

func checkQuantize(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	in, out := ins[0], outs[0]
	if err := sameShape(op, "result shape must equal operand shape", in, out); err != nil {
		return err
	}
	if out.Quant == nil {
		return op.Errorf("result must be quantized, is %s", out)
	}
	if in.Quant == nil {
		if in.Elem != out.Quant.Expressed {
			return op.Errorf("operand element type %s must be the result's expressed type %s", in.Elem, out.Quant.Expressed)
		}
		return nil
	}
	if in.Quant.Expressed != out.Quant.Expressed {
		return op.Errorf("operand and result expressed types differ: %s and %s", in, out)
	}
	return nil
}

func checkDequantize(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	in, out := ins[0], outs[0]
	if err := sameShape(op, "result shape must equal operand shape", in, out); err != nil {
		return err
	}
	if in.Quant == nil {
		return op.Errorf("operand must be quantized, is %s", in)
	}
	if out.Quant != nil || out.Elem != in.Quant.Expressed {
		return op.Errorf("result must be %s's expressed type, is %s", in, out)
	}
	return nil
}

// quantOp checks an op (other than the two above) that has quantized
// tensors.
func (v *verifier) quantOp(op *ir.Op, fn checkFunc) error {
	if ir.QuantStorageOp(op.Name) {
		if op.Name != "stablehlo.custom_call" && op.Name != "stablehlo.bitcast_convert" {
			if err := sameQuantization(op); err != nil {
				return err
			}
		}
		return fn(v, op)
	}
	if len(op.Regions) > 0 {
		return op.Errorf("quantized operands or results are not supported for this op")
	}
	return fn(v, expressedShadow(op))
}

// sameQuantization: the quantized tensors of a storage op share storage
// type, expressed type and storage range, and, quantized per tensor, scale
// and zero point.
func sameQuantization(op *ir.Op) error {
	var first *ir.TensorType
	check := func(vals []*ir.Value) error {
		for _, x := range vals {
			t := x.Tensor()
			if t == nil || t.Quant == nil {
				continue
			}
			if first == nil {
				first = t
				continue
			}
			a, b := first.Quant, t.Quant
			if first.Elem != t.Elem || a.Expressed != b.Expressed || a.Min != b.Min || a.Max != b.Max ||
				a.PerAxis() != b.PerAxis() || !a.PerAxis() && !a.Equal(b) {
				return op.Errorf("quantized operands and results must share their quantization: %s and %s", first, t)
			}
		}
		return nil
	}
	if err := check(op.Operands); err != nil {
		return err
	}
	return check(op.Results)
}

// expressedShadow is op with each quantized operand and result replaced
// by a value of its expressed type (the shadow's values keep their
// definitions, so checks that look at an operand's defining op see it).
func expressedShadow(op *ir.Op) *ir.Op {
	s := &ir.Op{Name: op.Name, Attrs: op.Attrs, Regions: op.Regions, Loc: op.Loc, Block: op.Block}
	s.Operands = make([]*ir.Value, len(op.Operands))
	for i, x := range op.Operands {
		s.Operands[i] = x
		if t := x.Tensor(); t != nil && t.Quant != nil {
			nx := *x
			nx.Type = t.ExpressedType()
			s.Operands[i] = &nx
		}
	}
	s.Results = make([]*ir.Value, len(op.Results))
	for i, r := range op.Results {
		nr := *r
		nr.Def = s
		if t := r.Tensor(); t != nil && t.Quant != nil {
			nr.Type = t.ExpressedType()
		}
		s.Results[i] = &nr
	}
	return s
}
