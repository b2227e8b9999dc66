package elementwise

import (
	"math/cmplx"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// real, imag, complex, abs of complex and is_finite: ops whose result type
// differs from their operand type.

func init() {
	kernel.RegisterOp("stablehlo.real", lowerWith(resolvePart(false)),
		kernel.Traits{Elementwise: true, Arity: 1, InPlace: true, TypeRule: partRule, Loop: partsLoop(resolvePart(false))})
	kernel.RegisterOp("stablehlo.imag", lowerWith(resolvePart(true)),
		kernel.Traits{Elementwise: true, Arity: 1, InPlace: true, TypeRule: partRule, Loop: partsLoop(resolvePart(true))})
	kernel.RegisterOp("stablehlo.complex", lowerWith(resolveComplex),
		kernel.Traits{Elementwise: true, Arity: 2, InPlace: true, TypeRule: complexRule, Loop: partsLoop(resolveComplex)})
	register(opClass{name: "is_finite"}, 1, resolveIsFinite, isFiniteRule)
}

func cabs64(d []float32, a []complex64) {
	a = a[:len(d)]
	for i := range d {
		d[i] = float32(cmplx.Abs(complex128(a[i])))
	}
}

func cabs128(d []float64, a []complex128) {
	a = a[:len(d)]
	for i := range d {
		d[i] = cmplx.Abs(a[i])
	}
}

// partType is the float type of a complex type's components (t itself otherwise).
func partType(t ir.ElemType) ir.ElemType {
	switch t {
	case ir.C64:
		return ir.F32
	case ir.C128:
		return ir.F64
	}
	return t
}

// complexOf is the complex type with components of float type t.
func complexOf(t ir.ElemType) ir.ElemType {
	switch t {
	case ir.F32:
		return ir.C64
	case ir.F64:
		return ir.C128
	}
	return ir.Invalid
}

// absRule: signed, float or complex operands; complex ones give their
// part type.
func absRule(op *ir.Op, ins []*ir.TensorType, out *ir.TensorType) error {
	if err := kernel.ElemIn(op, "operand", ins[0], kernel.ClassSFC); err != nil {
		return err
	}
	if err := kernel.SameShape(op, "result shape must equal operand shape", ins[0], out); err != nil {
		return err
	}
	return kernel.WantElem(op, "result", out, partType(ins[0].Elem))
}

// partRule: real and imag of a complex operand give its part type, of a
// float operand its type.
func partRule(op *ir.Op, ins []*ir.TensorType, out *ir.TensorType) error {
	if err := kernel.ElemIn(op, "operand", ins[0], kernel.ClassFC); err != nil {
		return err
	}
	if err := kernel.SameShape(op, "result shape must equal operand shape", ins[0], out); err != nil {
		return err
	}
	return kernel.WantElem(op, "result", out, partType(ins[0].Elem))
}

// complexRule: two f32 or two f64 operands give complex<f32> or complex<f64>.
func complexRule(op *ir.Op, ins []*ir.TensorType, out *ir.TensorType) error {
	if ins[0].Elem != ir.F32 && ins[0].Elem != ir.F64 {
		return op.Errorf("lhs must be f32 or f64, is %s", ins[0])
	}
	if err := kernel.SameType(op, "rhs type must equal lhs type", ins[0], ins[1]); err != nil {
		return err
	}
	if err := kernel.SameShape(op, "result shape must equal operand shape", ins[0], out); err != nil {
		return err
	}
	return kernel.WantElem(op, "result", out, complexOf(ins[0].Elem))
}

// isFiniteRule: float operands, an i1 result.
func isFiniteRule(op *ir.Op, ins []*ir.TensorType, out *ir.TensorType) error {
	if err := kernel.ElemIn(op, "operand", ins[0], kernel.ClassFloat); err != nil {
		return err
	}
	if err := kernel.SameShape(op, "result shape must equal operand shape", ins[0], out); err != nil {
		return err
	}
	return kernel.WantElem(op, "result", out, ir.Pred)
}

// resolveComplexAbs: abs of complex<fN> is the fN modulus (hypot, no overflow).
func resolveComplexAbs(op *ir.Op, ins []*ir.TensorType, out *ir.TensorType) (resolved, error) {
	if out.Elem != partType(ins[0].Elem) {
		return resolved{}, op.Errorf("abs of %s must give %s, not %s", ins[0].Elem, partType(ins[0].Elem), out.Elem)
	}
	scalar, err := sameShape(op, ins, out)
	if err != nil {
		return resolved{}, err
	}
	k := k1(cabs128)
	if out.Elem == ir.F32 {
		k = k1(cabs64)
	}
	return resolved{k, ins, out, scalar}, nil
}

// partLoop copies component idx (0 real, 1 imag) of each complex element.
func partLoop[T float](idx int) kern {
	return func(d, a, _, _ []byte) {
		x, y := byteview.As[T](d), byteview.As[T](a)
		y = y[:2*len(x)]
		for i := range x {
			x[i] = y[2*i+idx]
		}
	}
}

// resolvePart: real/imag of a complex tensor; of a float tensor, real is
// the operand and imag is zero (the spec allows float operands).
func resolvePart(imagPart bool) resolver {
	return func(op *ir.Op) (resolved, error) {
		ins, out, err := tensorOperands(op, 1)
		if err != nil {
			return resolved{}, err
		}
		in := ins[0].Elem
		if !(in.IsComplex() || in.IsFloat()) || out.Elem != partType(in) {
			return resolved{}, op.Errorf("wants complex<fN> -> fN or fN -> fN, got %s -> %s", in, out.Elem)
		}
		scalar, err := sameShape(op, ins, out)
		if err != nil {
			return resolved{}, err
		}
		idx := 0
		if imagPart {
			idx = 1
		}
		var k kern
		switch {
		case in == ir.C64:
			k = partLoop[float32](idx)
		case in == ir.C128:
			k = partLoop[float64](idx)
		case imagPart:
			// Zero of the type: every float format encodes +0 as all-zero bits.
			k = func(d, _, _, _ []byte) { clear(d) }
		default:
			k = k1(copyLoop[byte])
		}
		return resolved{k, ins, out, scalar}, nil
	}
}

func makeComplex[T float, C cplx](d []C, re, im []T) {
	re, im = re[:len(d)], im[:len(d)]
	parts := byteview.As[T](byteview.Bytes(d))
	for i := range d {
		parts[2*i], parts[2*i+1] = re[i], im[i]
	}
}

func resolveComplex(op *ir.Op) (resolved, error) {
	ins, out, err := tensorOperands(op, 2)
	if err != nil {
		return resolved{}, err
	}
	if ins[0].Elem != ins[1].Elem || complexOf(ins[0].Elem) != out.Elem || out.Elem == ir.Invalid {
		return resolved{}, op.Errorf("wants (fN, fN) -> complex<fN>, got %s, %s -> %s", ins[0].Elem, ins[1].Elem, out.Elem)
	}
	scalar, err := sameShape(op, ins, out)
	if err != nil {
		return resolved{}, err
	}
	k := k2(makeComplex[float64, complex128])
	if out.Elem == ir.C64 {
		k = k2(makeComplex[float32, complex64])
	}
	return resolved{k, ins, out, scalar}, nil
}

// partsLoop offers real, imag and complex to fused kernels (they also run
// in place: a result takes only a same-typed operand's buffer, and then the
// loop copies or clears forward). They only move
// components, so in a fusion such as (x + conj(y))/2, which reaches us as
// complex(real(y), -imag(y)), they run on the block in cache instead of as
// passes over whole tensors.
func partsLoop(r resolver) func(op *ir.Op) (kernel.Loop, bool) {
	return func(op *ir.Op) (kernel.Loop, bool) {
		x, err := r(op)
		if err != nil {
			return kernel.Loop{}, false
		}
		code, _ := kernel.OpcodeOf(op.Name)
		k := x.k
		l := kernel.Loop{Op: code, Cost: 1}
		if len(op.Operands) == 1 {
			l.F1 = func(d, a []byte) { k(d, a, nil, nil) }
		} else {
			l.F2 = func(d, a, b []byte) { k(d, a, b, nil) }
		}
		return l, true
	}
}

func isFinite[T float](d []uint8, a []T) {
	a = a[:len(d)]
	for i := range d {
		x := a[i]
		d[i] = b2u(x-x == 0) // Inf-Inf and NaN-NaN are NaN
	}
}

func isFiniteKern(t ir.ElemType) kern {
	switch {
	case t == ir.F32:
		return k1(isFinite[float32])
	case t == ir.F64:
		return k1(isFinite[float64])
	case emulated(t):
		return emulate(k1(isFinite[float32]), t, false)
	}
	return nil
}

func resolveIsFinite(op *ir.Op) (resolved, error) {
	ins, out, err := tensorOperands(op, 1)
	if err != nil {
		return resolved{}, err
	}
	k := isFiniteKern(ins[0].Elem)
	if k == nil || out.Elem != ir.Pred {
		return resolved{}, op.Errorf("wants a float operand and an i1 result, got %s -> %s", ins[0].Elem, out.Elem)
	}
	scalar, err := sameShape(op, ins, out)
	if err != nil {
		return resolved{}, err
	}
	return resolved{k, ins, out, scalar}, nil
}
