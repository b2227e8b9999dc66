package elementwise

import (
	"strings"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
)

// Loop kernels by op name, for linalg's element conversions (ConvertLoop),
// lower.go's fused loops and tests; fused kernels get the loops from the
// registry (kernel.Traits.Loop). Each returned loop processes whole
// elements in gojax storage layout: the element count is len(dst) divided by
// the result element size, and operands hold the same number of elements
// (select's predicate and clamp's bounds may instead hold exactly one, a
// broadcast scalar). Loops do not allocate (pooled scratch serves the
// emulated float types), keep no reference to their arguments, and may run
// concurrently on disjoint slices. Op names are StableHLO names with or
// without the "stablehlo." prefix.

func trimOp(op string) string { return strings.TrimPrefix(op, "stablehlo.") }

// unaryLoopOf returns the loop of a same-type unary op (negate, abs, sqrt,
// rsqrt, exponential, log, tanh, logistic, sign, not, popcnt, …) on t.
// abs of a complex type returns its float modulus and is served by
// complexAbsLoopOf.
func unaryLoopOf(op string, t ir.ElemType) (func(dst, src []byte), bool) {
	k := unaryKern(trimOp(op), t)
	if k == nil {
		return nil, false
	}
	return func(dst, src []byte) { k(dst, src, nil, nil) }, true
}

// binaryLoopOf returns the loop of a same-type binary op (add, subtract,
// multiply, divide, remainder, maximum, minimum, power, atan2, and, or, xor,
// shift_left, shift_right_logical, shift_right_arithmetic) on t.
func binaryLoopOf(op string, t ir.ElemType) (func(dst, a, b []byte), bool) {
	k := binaryKern(trimOp(op), t)
	if k == nil {
		return nil, false
	}
	return func(dst, a, b []byte) { k(dst, a, b, nil) }, true
}

// compareLoopOf returns a comparison of two t operands writing pred bytes.
// direction is EQ, NE, LT, LE, GT or GE; compareType is FLOAT, TOTALORDER,
// SIGNED, UNSIGNED or "" / NOTYPE for the element type's default.
func compareLoopOf(direction, compareType string, t ir.ElemType) (func(dst, a, b []byte), bool) {
	k := compareKern(direction, t, compareType == "TOTALORDER")
	if k == nil || (compareType == "TOTALORDER" && !t.IsFloat() && !t.IsComplex()) {
		return nil, false
	}
	return func(dst, a, b []byte) { k(dst, a, b, nil) }, true
}

// selectLoopOf returns select(pred, onTrue, onFalse) for values of type t;
// pred may hold one element (broadcast).
func selectLoopOf(t ir.ElemType) (func(dst, pred, onTrue, onFalse []byte), bool) {
	k := selectKern(t)
	if k == nil {
		return nil, false
	}
	return func(dst, p, a, b []byte) { k(dst, p, a, b) }, true
}

// clampLoopOf returns clamp(lo, x, hi) for type t; lo and hi may each hold one
// element (broadcast).
func clampLoopOf(t ir.ElemType) (func(dst, lo, x, hi []byte), bool) {
	k := clampKern(t)
	if k == nil {
		return nil, false
	}
	return func(dst, lo, x, hi []byte) { k(dst, lo, x, hi) }, true
}

// ConvertLoop returns the conversion from one element type to another with
// StableHLO/XLA semantics (see convert.go).
func ConvertLoop(from, to ir.ElemType) (func(dst, src []byte), bool) {
	k := convertKern(from, to)
	if k == nil {
		return nil, false
	}
	return func(dst, src []byte) { k(dst, src, nil, nil) }, true
}

// complexAbsLoopOf returns |z| for complex<f32> (to f32) or complex<f64> (to f64).
func complexAbsLoopOf(t ir.ElemType) (func(dst, src []byte), bool) {
	switch t {
	case ir.C64:
		k := k1(cabs64)
		return func(d, s []byte) { k(d, s, nil, nil) }, true
	case ir.C128:
		k := k1(cabs128)
		return func(d, s []byte) { k(d, s, nil, nil) }, true
	}
	return nil, false
}

// isFiniteLoopOf returns is_finite for a float type t, writing pred bytes.
func isFiniteLoopOf(t ir.ElemType) (func(dst, src []byte), bool) {
	k := isFiniteKern(t)
	if k == nil {
		return nil, false
	}
	return func(d, s []byte) { k(d, s, nil, nil) }, true
}

// unaryAffineLoop returns the loop of a unary op on t whose operand is an
// affine function of src: dst[i] = op(src[i]*scale[0] + offset[0]), the
// multiply and the add each rounded, so the results equal those of
// binaryScalarLoop multiply, then add, then unaryLoopOf. A fusion member
// like tanh(x*2 + 1) with broadcast scalars then reads x once instead of
// running two extra passes over the block. A multiply alone is offset -0
// (x*s + -0 = x*s, signed zeros and NaNs included); an add alone is
// scale 1. scale and offset hold one element each. Only ops whose vector
// kernel evaluates the prologue in registers are served: tanh on f32.
func unaryAffineLoop(op string, t ir.ElemType) (func(dst, src, scale, offset []byte), bool) {
	if trimOp(op) != "tanh" || t != ir.F32 {
		return nil, false
	}
	return func(d, s, sc, off []byte) {
		aff := [2]float32{byteview.As[float32](sc)[0], byteview.As[float32](off)[0]}
		tanh32Chain(byteview.As[float32](d), byteview.As[float32](s), &aff, nil, 0)
	}, true
}

// unaryAffineBinaryLoop is unaryAffineLoop followed by the binary op bop
// (add, subtract, multiply or divide) with an array operand w holding one
// element per result: dst[i] = bop(r, w[i]) when unaryFirst, else
// bop(w[i], r), where r = op(src[i]*scale[0] + offset[0]). Each step
// rounds as its own loop would, so a fusion like tanh(x*2 + 1) * y runs
// in one pass over its inputs with unchanged results.
func unaryAffineBinaryLoop(op, bop string, t ir.ElemType, unaryFirst bool) (func(dst, src, w, scale, offset []byte), bool) {
	b, ok := arithByName[trimOp(bop)]
	if trimOp(op) != "tanh" || t != ir.F32 || !ok || b > arDiv {
		return nil, false
	}
	epi := 1 + 2*int(b)
	if !unaryFirst {
		epi++
	}
	return func(d, s, w, sc, off []byte) {
		aff := [2]float32{byteview.As[float32](sc)[0], byteview.As[float32](off)[0]}
		tanh32Chain(byteview.As[float32](d), byteview.As[float32](s), &aff, byteview.As[float32](w), epi)
	}, true
}
