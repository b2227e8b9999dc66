package shape

import (
	"math"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/floatconv"
)

// rowFn combines n source elements into n destination elements in place:
// dst[d + i*ds] = op(dst[d + i*ds], src[s + i*ss]), offsets in elements.
// One is chosen per (op, type) at lowering; scatter calls it per window row.
type rowFn func(dst, src []byte, d, ds, s, ss, n int)

type numT interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64 | ~complex64 | ~complex128
}

type orderedT interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

type intT interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

func addRow[T numT](dst, src []byte, d, ds, s, ss, n int) {
	D, S := byteview.As[T](dst), byteview.As[T](src)
	if ds == 1 && ss == 1 {
		// Contiguous rows (segment_sum, embedding gradients): a loop the
		// compiler can unroll without index arithmetic or bounds checks.
		add4(D[d:d+n], S[s:s+n])
		return
	}
	for i := 0; i < n; i, d, s = i+1, d+ds, s+ss {
		D[d] += S[s]
	}
}

// add4 adds s into d, four elements a step.
func add4[T numT](d, s []T) {
	s = s[:len(d)]
	i := 0
	for ; i+4 <= len(d); i += 4 {
		dd, ss := d[i:i+4:i+4], s[i:i+4:i+4]
		dd[0], dd[1], dd[2], dd[3] = dd[0]+ss[0], dd[1]+ss[1], dd[2]+ss[2], dd[3]+ss[3]
	}
	for ; i < len(d); i++ {
		d[i] += s[i]
	}
}

func mulRow[T numT](dst, src []byte, d, ds, s, ss, n int) {
	D, S := byteview.As[T](dst), byteview.As[T](src)
	for i := 0; i < n; i, d, s = i+1, d+ds, s+ss {
		D[d] *= S[s]
	}
}

// maxRow/minRow propagate NaN like stablehlo.maximum/minimum.
func maxRow[T orderedT](dst, src []byte, d, ds, s, ss, n int) {
	D, S := byteview.As[T](dst), byteview.As[T](src)
	for i := 0; i < n; i, d, s = i+1, d+ds, s+ss {
		if v := S[s]; v > D[d] || v != v {
			D[d] = v
		}
	}
}

func minRow[T orderedT](dst, src []byte, d, ds, s, ss, n int) {
	D, S := byteview.As[T](dst), byteview.As[T](src)
	for i := 0; i < n; i, d, s = i+1, d+ds, s+ss {
		if v := S[s]; v < D[d] || v != v {
			D[d] = v
		}
	}
}

func andRow[T intT](dst, src []byte, d, ds, s, ss, n int) {
	D, S := byteview.As[T](dst), byteview.As[T](src)
	for i := 0; i < n; i, d, s = i+1, d+ds, s+ss {
		D[d] &= S[s]
	}
}

func orRow[T intT](dst, src []byte, d, ds, s, ss, n int) {
	D, S := byteview.As[T](dst), byteview.As[T](src)
	for i := 0; i < n; i, d, s = i+1, d+ds, s+ss {
		D[d] |= S[s]
	}
}

func xorRow[T intT](dst, src []byte, d, ds, s, ss, n int) {
	D, S := byteview.As[T](dst), byteview.As[T](src)
	for i := 0; i < n; i, d, s = i+1, d+ds, s+ss {
		D[d] ^= S[s]
	}
}

// halfRow computes in f32 and rounds back: one f32 op then one rounding is
// the correctly rounded f16/bf16 result for +, *, max, min.
func halfRow(op string, to func(uint16) float32, from func(float32) uint16) rowFn {
	code := map[string]int{"stablehlo.add": 1, "stablehlo.multiply": 2, "stablehlo.maximum": 3, "stablehlo.minimum": 4}[op]
	if code == 0 {
		return nil
	}
	return func(dst, src []byte, d, ds, s, ss, n int) {
		D, S := byteview.As[uint16](dst), byteview.As[uint16](src)
		for i := 0; i < n; i, d, s = i+1, d+ds, s+ss {
			a, b := to(D[d]), to(S[s])
			var r float32
			switch code {
			case 1:
				r = a + b
			case 2:
				r = a * b
			case 3:
				r = a
				if b > a || b != b || (b == a && isNegZero(a)) {
					r = b
				}
			case 4:
				r = a
				if b < a || b != b || (b == a && isNegZero(b)) {
					r = b
				}
			}
			D[d] = from(r)
		}
	}
}

func typedRow[T numT](op string) rowFn {
	switch op {
	case "stablehlo.add":
		return addRow[T]
	case "stablehlo.multiply":
		return mulRow[T]
	}
	return nil
}

// floatRow is orderedRow with IEEE 754-2019 maximum/minimum (-0 < +0), as
// the elementwise kernels compute them.
func floatRow[T ~float32 | ~float64](op string) rowFn {
	switch op {
	case "stablehlo.maximum":
		return maxRowF[T]
	case "stablehlo.minimum":
		return minRowF[T]
	}
	return typedRow[T](op)
}

func isNegZero[T ~float32 | ~float64](v T) bool { return v == 0 && math.Signbit(float64(v)) }

func maxRowF[T ~float32 | ~float64](dst, src []byte, d, ds, s, ss, n int) {
	D, S := byteview.As[T](dst), byteview.As[T](src)
	for i := 0; i < n; i, d, s = i+1, d+ds, s+ss {
		if v, m := S[s], D[d]; v > m || v != v || (v == m && isNegZero(m)) {
			D[d] = v
		}
	}
}

func minRowF[T ~float32 | ~float64](dst, src []byte, d, ds, s, ss, n int) {
	D, S := byteview.As[T](dst), byteview.As[T](src)
	for i := 0; i < n; i, d, s = i+1, d+ds, s+ss {
		if v, m := S[s], D[d]; v < m || v != v || (v == m && isNegZero(v)) {
			D[d] = v
		}
	}
}

func orderedRow[T orderedT](op string) rowFn {
	if f := typedRow[T](op); f != nil {
		return f
	}
	switch op {
	case "stablehlo.maximum":
		return maxRow[T]
	case "stablehlo.minimum":
		return minRow[T]
	}
	return nil
}

func intRow[T intT](op string) rowFn {
	if f := orderedRow[T](op); f != nil {
		return f
	}
	switch op {
	case "stablehlo.and":
		return andRow[T]
	case "stablehlo.or":
		return orRow[T]
	case "stablehlo.xor":
		return xorRow[T]
	}
	return nil
}

// rowFnFor returns the in-place combiner of op for et, or nil when there is
// no fast path (the region is then called per element).
func rowFnFor(op string, et ir.ElemType) rowFn {
	switch et {
	case ir.F32:
		return floatRow[float32](op)
	case ir.F64:
		return floatRow[float64](op)
	case ir.F16:
		return halfRow(op, floatconv.F16ToF32, floatconv.F32ToF16)
	case ir.BF16:
		return halfRow(op, floatconv.BF16ToF32, floatconv.F32ToBF16)
	case ir.S8:
		return intRow[int8](op)
	case ir.S16:
		return intRow[int16](op)
	case ir.S32:
		return intRow[int32](op)
	case ir.S64:
		return intRow[int64](op)
	case ir.U8:
		return intRow[uint8](op)
	case ir.U16:
		return intRow[uint16](op)
	case ir.U32:
		return intRow[uint32](op)
	case ir.U64:
		return intRow[uint64](op)
	case ir.Pred:
		// StableHLO booleans: add and maximum are logical or, multiply and minimum logical and.
		m := map[string]string{"stablehlo.maximum": "stablehlo.or", "stablehlo.minimum": "stablehlo.and",
			"stablehlo.add": "stablehlo.or", "stablehlo.multiply": "stablehlo.and",
			"stablehlo.and": "stablehlo.and", "stablehlo.or": "stablehlo.or", "stablehlo.xor": "stablehlo.xor"}
		if mapped, ok := m[op]; ok {
			return intRow[uint8](mapped)
		}
	case ir.C64:
		return typedRow[complex64](op)
	case ir.C128:
		return typedRow[complex128](op)
	}
	return nil
}
