package reduce

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// Monomorphic building blocks of the reduction fast paths. Each op comes as a
// triple: leaf reduces a contiguous slice, acc folds a row into a vector of
// accumulators, comb combines two partial results. The op is chosen once at
// lowering; inner loops contain no calls.

type floatT interface{ ~float32 | ~float64 }

type intT interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

type complexT interface{ ~complex64 | ~complex128 }

type numT interface{ floatT | intT | complexT }

type orderedT interface{ floatT | intT }

type opFuncs[A any] struct {
	leaf func(s []A) A
	acc  func(dst, src []A)
	comb func(a, b A) A
	// foldAt folds s[base+rel[0]], s[base+rel[1]], … into acc in that order.
	foldAt func(acc A, s []A, base int, rel []int) A
}

func sumAt[A numT](acc A, s []A, base int, rel []int) A {
	for _, r := range rel {
		acc += s[base+r]
	}
	return acc
}

func prodAt[A numT](acc A, s []A, base int, rel []int) A {
	for _, r := range rel {
		acc *= s[base+r]
	}
	return acc
}

func maxAt[A orderedT](acc A, s []A, base int, rel []int) A {
	for _, r := range rel {
		if v := s[base+r]; v > acc || v != v {
			acc = v
		}
	}
	return acc
}

func minAt[A orderedT](acc A, s []A, base int, rel []int) A {
	for _, r := range rel {
		if v := s[base+r]; v < acc || v != v {
			acc = v
		}
	}
	return acc
}

func andAt[A intT](acc A, s []A, base int, rel []int) A {
	for _, r := range rel {
		acc &= s[base+r]
	}
	return acc
}

func orAt[A intT](acc A, s []A, base int, rel []int) A {
	for _, r := range rel {
		acc |= s[base+r]
	}
	return acc
}

func xorAt[A intT](acc A, s []A, base int, rel []int) A {
	for _, r := range rel {
		acc ^= s[base+r]
	}
	return acc
}

// pairwiseBase is the leaf size of pairwise summation: error grows with
// log2(n/pairwiseBase) instead of n.
const pairwiseBase = 128

// sumSlice sums pairwise; the split points depend only on len(s).
func sumSlice[A numT](s []A) A {
	if len(s) <= pairwiseBase {
		var a0, a1, a2, a3 A
		i := 0
		for ; i+4 <= len(s); i += 4 {
			a0 += s[i]
			a1 += s[i+1]
			a2 += s[i+2]
			a3 += s[i+3]
		}
		for ; i < len(s); i++ {
			a0 += s[i]
		}
		return (a0 + a1) + (a2 + a3)
	}
	h := len(s) / 2
	return sumSlice(s[:h]) + sumSlice(s[h:])
}

func sumAcc[A numT](dst, src []A) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] += src[i]
	}
}

func add[A numT](a, b A) A { return a + b }

func prodSlice[A numT](s []A) A {
	var p A = 1
	for _, v := range s {
		p *= v
	}
	return p
}

func prodAcc[A numT](dst, src []A) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] *= src[i]
	}
}

func mul[A numT](a, b A) A { return a * b }

// maxOf propagates NaN (a != a only holds for NaN; it folds away for ints).
func maxOf[A orderedT](a, b A) A {
	if b > a || b != b {
		return b
	}
	return a
}

func minOf[A orderedT](a, b A) A {
	if b < a || b != b {
		return b
	}
	return a
}

// Integer maximum and minimum use the builtins (conditional moves): a
// compare-and-branch per element mispredicts on unordered data, which made
// int32 max over 4096² 5x slower than XLA:CPU.

func maxSlice[A intT](s []A) A {
	m := s[0]
	for _, v := range s[1:] {
		m = max(m, v)
	}
	return m
}

func minSlice[A intT](s []A) A {
	m := s[0]
	for _, v := range s[1:] {
		m = min(m, v)
	}
	return m
}

// maxAcc and minAcc are unrolled by four (a fifth faster than the plain
// loop).
func maxAcc[A intT](dst, src []A) {
	src = src[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		d, s := dst[i:i+4:i+4], src[i:i+4:i+4]
		d[0], d[1], d[2], d[3] = max(d[0], s[0]), max(d[1], s[1]), max(d[2], s[2]), max(d[3], s[3])
	}
	for ; i < len(dst); i++ {
		dst[i] = max(dst[i], src[i])
	}
}

func minAcc[A intT](dst, src []A) {
	src = src[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		d, s := dst[i:i+4:i+4], src[i:i+4:i+4]
		d[0], d[1], d[2], d[3] = min(d[0], s[0]), min(d[1], s[1]), min(d[2], s[2]), min(d[3], s[3])
	}
	for ; i < len(dst); i++ {
		dst[i] = min(dst[i], src[i])
	}
}

func andSlice[A intT](s []A) A {
	m := s[0]
	for _, v := range s[1:] {
		m &= v
	}
	return m
}

func orSlice[A intT](s []A) A {
	var m A
	for _, v := range s {
		m |= v
	}
	return m
}

func xorSlice[A intT](s []A) A {
	var m A
	for _, v := range s {
		m ^= v
	}
	return m
}

func andAcc[A intT](dst, src []A) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] &= src[i]
	}
}

func orAcc[A intT](dst, src []A) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] |= src[i]
	}
}

func xorAcc[A intT](dst, src []A) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] ^= src[i]
	}
}

func and[A intT](a, b A) A { return a & b }
func or[A intT](a, b A) A  { return a | b }
func xor[A intT](a, b A) A { return a ^ b }

// Op kinds recognized in reduction bodies.
type opKind int

const (
	opNone opKind = iota
	opAdd
	opMul
	opMax
	opMin
	opAnd
	opOr
	opXor
)

var opByName = map[string]opKind{
	"stablehlo.add":      opAdd,
	"stablehlo.multiply": opMul,
	"stablehlo.maximum":  opMax,
	"stablehlo.minimum":  opMin,
	"stablehlo.and":      opAnd,
	"stablehlo.or":       opOr,
	"stablehlo.xor":      opXor,
}

func floatOps[A floatT](op opKind) (opFuncs[A], bool) {
	switch op {
	case opAdd:
		return opFuncs[A]{floatLeaf(sumSlice[A], sumSliceF32), floatSumAcc[A](), add[A], sumAt[A]}, true
	case opMul:
		return opFuncs[A]{prodSlice[A], prodAcc[A], mul[A], prodAt[A]}, true
	case opMax:
		return opFuncs[A]{floatLeaf(maxSliceF[A], maxSliceF32), maxAccF[A], maxOfF[A], maxAtF[A]}, true
	case opMin:
		return opFuncs[A]{minSliceF[A], minAccF[A], minOfF[A], minAtF[A]}, true
	}
	return opFuncs[A]{}, false
}

// floatLeaf picks the float32 row kernel (rowvec.go) when A is float32.
func floatLeaf[A floatT](generic func([]A) A, f32 func([]float32) float32) func([]A) A {
	if f, ok := any(f32).(func([]A) A); ok {
		return f
	}
	return generic
}

func intOps[A intT](op opKind) (opFuncs[A], bool) {
	switch op {
	case opAdd:
		return opFuncs[A]{sumSlice[A], sumAcc[A], add[A], sumAt[A]}, true
	case opMul:
		return opFuncs[A]{prodSlice[A], prodAcc[A], mul[A], prodAt[A]}, true
	case opMax:
		return opFuncs[A]{maxSlice[A], maxAcc[A], maxOf[A], maxAt[A]}, true
	case opMin:
		return opFuncs[A]{minSlice[A], minAcc[A], minOf[A], minAt[A]}, true
	case opAnd:
		return bytewise(op, opFuncs[A]{andSlice[A], andAcc[A], and[A], andAt[A]}), true
	case opOr:
		return bytewise(op, opFuncs[A]{orSlice[A], orAcc[A], or[A], orAt[A]}), true
	case opXor:
		return bytewise(op, opFuncs[A]{xorSlice[A], xorAcc[A], xor[A], xorAt[A]}), true
	}
	return opFuncs[A]{}, false
}

// bytewise gives one-byte element types (pred, the 8-bit and sub-byte
// integers) slice loops for the bitwise ops that work on eight elements per
// 64-bit word: each byte of a word is combined with its own byte only, so
// the results are those of the element loops.
func bytewise[A intT](op opKind, f opFuncs[A]) opFuncs[A] {
	var z A
	if unsafe.Sizeof(z) != 1 {
		return f
	}
	f.leaf = func(s []A) A { return A(bytesLeaf(op, bytesOf(s))) }
	f.acc = func(dst, src []A) { bytesAcc(op, bytesOf(dst), bytesOf(src[:len(dst)])) }
	return f
}

func bytesOf[A intT](s []A) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// wordOp is op (and, or or xor) on 64-bit words or single bytes.
func wordOp[W uint64 | byte](op opKind, a, b W) W {
	switch op {
	case opAnd:
		return a & b
	case opOr:
		return a | b
	}
	return a ^ b
}

func bytesAcc(op opKind, dst, src []byte) {
	le := binary.LittleEndian
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		le.PutUint64(dst[i:], wordOp(op, le.Uint64(dst[i:]), le.Uint64(src[i:])))
	}
	for ; i < len(dst); i++ {
		dst[i] = wordOp(op, dst[i], src[i])
	}
}

func bytesLeaf(op opKind, s []byte) byte {
	le := binary.LittleEndian
	i, acc := 1, s[0]
	if len(s) >= 16 {
		w := le.Uint64(s)
		for i = 8; i+8 <= len(s); i += 8 {
			w = wordOp(op, w, le.Uint64(s[i:]))
		}
		// Fold the word's eight bytes into its low byte.
		w = wordOp(op, w, w>>32)
		w = wordOp(op, w, w>>16)
		acc = wordOp(op, byte(w), byte(w>>8))
	}
	for _, v := range s[i:] {
		acc = wordOp(op, acc, v)
	}
	return acc
}

func complexOps[A complexT](op opKind) (opFuncs[A], bool) {
	switch op {
	case opAdd:
		return opFuncs[A]{sumSlice[A], sumAcc[A], add[A], sumAt[A]}, true
	case opMul:
		return opFuncs[A]{prodSlice[A], prodAcc[A], mul[A], prodAt[A]}, true
	}
	return opFuncs[A]{}, false
}

// Float maximum/minimum follow IEEE 754-2019 (as the elementwise kernels do):
// NaN propagates and -0 < +0, so a tie between zeros prefers +0 for maximum
// and -0 for minimum.

func isNegZero[A floatT](v A) bool { return v == 0 && math.Signbit(float64(v)) }

func maxOfF[A floatT](a, b A) A {
	if b > a || b != b || (b == a && isNegZero(a)) {
		return b
	}
	return a
}

func minOfF[A floatT](a, b A) A {
	if b < a || b != b || (b == a && isNegZero(b)) {
		return b
	}
	return a
}

func maxSliceF[A floatT](s []A) A {
	m := s[0]
	for _, v := range s[1:] {
		if v > m || v != v || (v == m && isNegZero(m)) {
			m = v
		}
	}
	return m
}

func minSliceF[A floatT](s []A) A {
	m := s[0]
	for _, v := range s[1:] {
		if v < m || v != v || (v == m && isNegZero(v)) {
			m = v
		}
	}
	return m
}

func maxAccF[A floatT](dst, src []A) {
	src = src[:len(dst)]
	for i, v := range src {
		if m := dst[i]; v > m || v != v || (v == m && isNegZero(m)) {
			dst[i] = v
		}
	}
}

func minAccF[A floatT](dst, src []A) {
	src = src[:len(dst)]
	for i, v := range src {
		if m := dst[i]; v < m || v != v || (v == m && isNegZero(v)) {
			dst[i] = v
		}
	}
}

func maxAtF[A floatT](acc A, s []A, base int, rel []int) A {
	for _, r := range rel {
		if v := s[base+r]; v > acc || v != v || (v == acc && isNegZero(acc)) {
			acc = v
		}
	}
	return acc
}

func minAtF[A floatT](acc A, s []A, base int, rel []int) A {
	for _, r := range rel {
		if v := s[base+r]; v < acc || v != v || (v == acc && isNegZero(v)) {
			acc = v
		}
	}
	return acc
}
