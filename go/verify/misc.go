package verify

import (
	"github.com/gojax/gojax/go/ir"
)

// Constants, random numbers and quantization (quant.go).

func init() {
	register(map[string]checkFunc{
		"stablehlo.constant":           checkConstant,
		"stablehlo.rng":                checkRng,
		"stablehlo.rng_bit_generator":  checkRngBitGenerator,
		"stablehlo.uniform_quantize":   checkQuantize,
		"stablehlo.uniform_dequantize": checkDequantize,
	})
}

func checkConstant(v *verifier, op *ir.Op) error {
	_, outs, err := v.sig(op, 0, 1)
	if err != nil {
		return err
	}
	val, ok := op.Attrs["value"].(*ir.ElementsAttr)
	if !ok || val == nil || val.Type == nil {
		return op.Errorf("missing required dense attribute value")
	}
	// A quantized constant's value holds its stored integers.
	if !val.Type.Equal(outs[0].StorageType()) && !val.Type.Equal(outs[0]) {
		return op.Errorf("value has type %s; result is %s", val.Type, outs[0])
	}
	if int64(len(val.Data)) != outs[0].ByteSize() {
		return op.Errorf("value holds %d bytes; %s needs %d", len(val.Data), outs[0], outs[0].ByteSize())
	}
	return nil
}

func checkRng(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 3, 1)
	if err != nil {
		return err
	}
	a, b, shape := ins[0], ins[1], ins[2]
	dist, err := enumAttr(op, "rng_distribution", true, "", "UNIFORM", "NORMAL")
	if err != nil {
		return err
	}
	if a.Rank() != 0 || b.Rank() != 0 || a.Elem != b.Elem {
		return op.Errorf("a and b must be 0-d tensors of one element type, are %s and %s", a, b)
	}
	if err := shapeOperand(op, "shape", shape, outs[0].Rank()); err != nil {
		return err
	}
	c := classIntBool | classFloat
	if dist == "NORMAL" {
		c = classFloat
	}
	if err := elemIn(op, "a", a, c); err != nil {
		return err
	}
	return wantElem(op, "result", outs[0], a.Elem)
}

func checkRngBitGenerator(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 2)
	if err != nil {
		return err
	}
	if _, err := enumAttr(op, "rng_algorithm", true, "", "DEFAULT", "THREE_FRY", "PHILOX"); err != nil {
		return err
	}
	state := ins[0]
	if state.Rank() != 1 || !state.Elem.IsInteger() {
		return op.Errorf("initial_state must be a 1-d integer tensor, is %s", state)
	}
	if err := sameType(op, "output_state type must equal initial_state type", state, outs[0]); err != nil {
		return err
	}
	return elemIn(op, "output", outs[1], classInt|classFloat)
}
