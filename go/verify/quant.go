package verify

import (
	"github.com/gojax/gojax/go/ir"
	// The kernels of storage ops register Traits.Storage, which decides how
	// quantized operands are checked: they must be linked in whenever the
	// verifier is.
	_ "github.com/gojax/gojax/go/kernels/collective"
	"github.com/gojax/gojax/go/kernels/kernel"
	_ "github.com/gojax/gojax/go/kernels/reduce"
	_ "github.com/gojax/gojax/go/kernels/shape"
)

// Quantized tensors (spec "Quantization"). uniform_quantize and
// uniform_dequantize have their own rules. An op that runs on stored
// integers (kernel.QuantStorage) is checked by its own rule as it is, the
// storage type standing for the element type, and its quantized tensors
// must agree on storage and expressed type and range, and per tensor on
// scale and zero point. Any other op on quantized tensors is
// dequantize_op_quantize: its rule is applied with every quantized tensor
// replaced by its expressed type.

// validQuant: the spec's constraints on a quantized tensor type.
func validQuant(t *ir.TensorType) bool {
	return ir.CheckQuant(t.Elem, t.Quant) == nil && ir.CheckQuantShape(t.Quant, t.Shape) == nil
}

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
	if storage, shared, all := kernel.QuantStorage(op.Name); storage {
		if all || len(shared) > 0 {
			if err := sameQuantization(op, shared, all); err != nil {
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

// sameQuantization: the results and the operands they share their element
// type with (all, or those in shared) are quantized alike: one storage
// type, expressed type and storage range, and quantized per tensor one
// scale and zero point (per axis, the scales follow the dimension's moves).
func sameQuantization(op *ir.Op, shared []int, all bool) error {
	data := append([]*ir.Value(nil), op.Results...)
	if all {
		data = append(data, op.Operands...)
	}
	for _, i := range shared {
		if i < len(op.Operands) {
			data = append(data, op.Operands[i])
		}
	}
	var first *ir.TensorType
	for _, x := range data {
		t := x.Tensor()
		if t == nil {
			continue
		}
		if t.Quant == nil {
			return op.Errorf("quantized operands and results must share their quantization: %s is not quantized", t)
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
