package elementwise

import (
	"math"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// reduce_precision rounds each value to a float format with exponent_bits
// exponent bits and mantissa_bits mantissa bits (round to nearest even), then
// maps overflow to ±Inf and values below the format's smallest normal to ±0
// (no subnormals), as XLA and the reference interpreter do. NaN stays NaN,
// except that with zero mantissa bits the reference interpreter gives Inf
// (a NaN cannot be told apart from Inf without mantissa bits).

func init() {
	kernel.RegisterOp("stablehlo.reduce_precision", lowerReducePrecision,
		kernel.Traits{Elementwise: true, Arity: 1, InPlace: true, Class: kernel.ClassFloat, TypeRule: reducePrecisionRule})
}

// reducePrecisionRule: the target format has an exponent and a mantissa
// of at least 1 and 0 bits.
func reducePrecisionRule(op *ir.Op, _ []*ir.TensorType, _ *ir.TensorType) error {
	e, err := kernel.IntAttr(op, "exponent_bits", true, 0)
	if err != nil {
		return err
	}
	m, err := kernel.IntAttr(op, "mantissa_bits", true, 0)
	if err != nil {
		return err
	}
	if e < 1 || m < 0 {
		return op.Errorf("exponent_bits must be >= 1 and mantissa_bits >= 0, are %d and %d", e, m)
	}
	return nil
}

// reduceBits works on the raw bits of an IEEE binary format with srcE
// exponent and srcM mantissa bits (f32: 8/23, f64: 11/52).
func reduceBits(x uint64, srcE, srcM, e, m uint) uint64 {
	signBit := uint64(1) << (srcE + srcM)
	expMask := (uint64(1)<<srcE - 1) << srcM
	mantMask := uint64(1)<<srcM - 1
	isNaN := x&expMask == expMask && x&mantMask != 0
	if isNaN {
		if m == 0 {
			return x&signBit | expMask
		}
		return x
	}
	if m < srcM {
		shift := srcM - m
		lastBit := uint64(1) << shift
		bias := lastBit>>1 - 1 + (x>>shift)&1
		x = (x + bias) &^ (lastBit - 1)
	}
	if e < srcE {
		srcBias := uint64(1)<<(srcE-1) - 1
		redBias := uint64(1)<<(e-1) - 1
		maxExp := srcBias + redBias
		minExp := srcBias - redBias
		exp := x & expMask
		sign := x & signBit
		switch {
		case exp > maxExp<<srcM:
			x = sign | expMask
		case exp <= minExp<<srcM:
			x = sign
		}
	}
	return x
}

func reducePrecisionKern(t ir.ElemType, e, m uint) kern {
	switch {
	case t == ir.F32:
		return k1(func(d, a []uint32) {
			a = a[:len(d)]
			for i := range d {
				d[i] = uint32(reduceBits(uint64(a[i]), 8, 23, e, m))
			}
		})
	case t == ir.F64:
		return k1(func(d, a []uint64) {
			a = a[:len(d)]
			for i := range d {
				d[i] = reduceBits(a[i], 11, 52, e, m)
			}
		})
	case emulated(t):
		// Narrow formats hold their values exactly in f32; reduce there.
		return emulate(k1(func(d, a []float32) {
			a = a[:len(d)]
			for i := range d {
				d[i] = math.Float32frombits(uint32(reduceBits(uint64(math.Float32bits(a[i])), 8, 23, min(e, 8), min(m, 23))))
			}
		}), t, true)
	}
	return nil
}

func lowerReducePrecision(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	ins, out, err := tensorOperands(op, 1)
	if err != nil {
		return nil, err
	}
	if ins[0].Elem != out.Elem {
		return nil, op.Errorf("operand %s and result %s differ", ins[0], out)
	}
	scalar, err := sameShape(op, ins, out)
	if err != nil {
		return nil, err
	}
	e, ok1 := op.Attrs.Int("exponent_bits")
	m, ok2 := op.Attrs.Int("mantissa_bits")
	if !ok1 || !ok2 || e < 1 || m < 0 {
		return nil, op.Errorf("needs exponent_bits >= 1 and mantissa_bits >= 0 (got %v, %v)", op.Attrs["exponent_bits"], op.Attrs["mantissa_bits"])
	}
	k := reducePrecisionKern(out.Elem, uint(min(e, 64)), uint(min(m, 64)))
	if k == nil {
		return nil, op.Errorf("element type %s is not supported", out.Elem)
	}
	return newPlan(op, k, ins, out, scalar).step(ctx), nil
}
