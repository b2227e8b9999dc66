package elementwise

import (
	"math"
	"unsafe"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
)

// Comparisons write pred (one 0/1 byte per element).

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func cmpEQ[T real_](d []uint8, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = b2u(a[i] == b[i])
	}
}

func cmpNE[T real_](d []uint8, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = b2u(a[i] != b[i])
	}
}

func cmpLT[T real_](d []uint8, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = b2u(a[i] < b[i])
	}
}

func cmpLE[T real_](d []uint8, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = b2u(a[i] <= b[i])
	}
}

func cmpGT[T real_](d []uint8, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = b2u(a[i] > b[i])
	}
}

func cmpGE[T real_](d []uint8, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = b2u(a[i] >= b[i])
	}
}

func cmpReal[T real_](dir string) kern {
	if f := cmpFunc[T](dir); f != nil {
		return k2(f)
	}
	return nil
}

// Total order of floats (-NaN < -Inf < … < -0 < +0 < … < +Inf < +NaN) maps
// each value to a signed integer key.
func totalKey32(x float32) int32 {
	k := int32(math.Float32bits(x))
	if k < 0 {
		k ^= math.MaxInt32
	}
	return k
}

func totalKey64(x float64) int64 {
	k := int64(math.Float64bits(x))
	if k < 0 {
		k ^= math.MaxInt64
	}
	return k
}

func holds(dir string, c int) bool {
	switch dir {
	case "EQ":
		return c == 0
	case "NE":
		return c != 0
	case "LT":
		return c < 0
	case "LE":
		return c <= 0
	case "GT":
		return c > 0
	case "GE":
		return c >= 0
	}
	return false
}

func cmp3[T int32 | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpTotal compares floats in total order: it reads each float's bits as
// the signed integer K and compares their order keys, one loop per
// direction (a per-element direction switch and key call made it several
// times slower; it is searchsorted's comparator).
func cmpTotal[K int32 | int64](dir string) kern {
	loop := func(f func(d []uint8, x, y []K)) kern {
		return func(d, a, b, _ []byte) {
			f(d, byteview.As[K](a)[:len(d)], byteview.As[K](b)[:len(d)])
		}
	}
	switch dir {
	case "EQ":
		return loop(func(d []uint8, x, y []K) {
			for i := range d {
				d[i] = b2u(orderKey(x[i]) == orderKey(y[i]))
			}
		})
	case "NE":
		return loop(func(d []uint8, x, y []K) {
			for i := range d {
				d[i] = b2u(orderKey(x[i]) != orderKey(y[i]))
			}
		})
	case "LT":
		return loop(func(d []uint8, x, y []K) {
			for i := range d {
				d[i] = b2u(orderKey(x[i]) < orderKey(y[i]))
			}
		})
	case "LE":
		return loop(func(d []uint8, x, y []K) {
			for i := range d {
				d[i] = b2u(orderKey(x[i]) <= orderKey(y[i]))
			}
		})
	case "GT":
		return loop(func(d []uint8, x, y []K) {
			for i := range d {
				d[i] = b2u(orderKey(x[i]) > orderKey(y[i]))
			}
		})
	case "GE":
		return loop(func(d []uint8, x, y []K) {
			for i := range d {
				d[i] = b2u(orderKey(x[i]) >= orderKey(y[i]))
			}
		})
	}
	return nil
}

// orderKey maps a float's bits, read as a signed integer, to its total-order
// key: negative values have every bit but the sign flipped (totalKey32).
func orderKey[K int32 | int64](k K) K {
	bits := 8 * unsafe.Sizeof(k)
	return k ^ (k >> (bits - 1) & ^(K(1) << (bits - 1)))
}

// cmpFunc is the integer compare loop for dir.
func cmpFunc[T real_](dir string) func(d []uint8, a, b []T) {
	switch dir {
	case "EQ":
		return cmpEQ[T]
	case "NE":
		return cmpNE[T]
	case "LT":
		return cmpLT[T]
	case "LE":
		return cmpLE[T]
	case "GT":
		return cmpGT[T]
	case "GE":
		return cmpGE[T]
	}
	return nil
}

// cmpComplex compares lexicographically by (real, imag), with FLOAT
// (partial order: any NaN makes all but NE false) or TOTALORDER semantics.
func cmpComplex[T cplx](dir string, total bool) kern {
	return func(d, a, b, _ []byte) {
		x, y := byteview.As[T](a), byteview.As[T](b)
		for i := range d {
			p, q := complex128(x[i]), complex128(y[i])
			if total {
				c := cmp3(totalKey64(real(p)), totalKey64(real(q)))
				if c == 0 {
					c = cmp3(totalKey64(imag(p)), totalKey64(imag(q)))
				}
				d[i] = b2u(holds(dir, c))
				continue
			}
			if p != p || q != q {
				d[i] = b2u(dir == "NE")
				continue
			}
			var c int
			switch {
			case real(p) < real(q):
				c = -1
			case real(p) > real(q):
				c = 1
			case imag(p) < imag(q):
				c = -1
			case imag(p) > imag(q):
				c = 1
			}
			d[i] = b2u(holds(dir, c))
		}
	}
}

// compareKern resolves compare for operand type t; total selects TOTALORDER.
func compareKern(dir string, t ir.ElemType, total bool) kern {
	if !holdsDir(dir) {
		return nil
	}
	switch t {
	case ir.Pred, ir.U1, ir.U2, ir.U4, ir.U8:
		return cmpReal[uint8](dir)
	case ir.S1, ir.S2, ir.S4, ir.S8:
		return cmpReal[int8](dir)
	case ir.S16:
		return cmpReal[int16](dir)
	case ir.S32:
		return cmpReal[int32](dir)
	case ir.S64:
		return cmpReal[int64](dir)
	case ir.U16:
		return cmpReal[uint16](dir)
	case ir.U32:
		return cmpReal[uint32](dir)
	case ir.U64:
		return cmpReal[uint64](dir)
	case ir.F32:
		if total {
			return cmpTotal[int32](dir)
		}
		return cmpVec32(dir)
	case ir.F64:
		if total {
			return cmpTotal[int64](dir)
		}
		return cmpVec64(dir)
	case ir.C64:
		return cmpComplex[complex64](dir, total)
	case ir.C128:
		return cmpComplex[complex128](dir, total)
	}
	if emulated(t) {
		// Decoding to f32 is exact and keeps the order, signs of zero and NaNs.
		return emulate(compareKern(dir, ir.F32, total), t, false)
	}
	return nil
}

func holdsDir(dir string) bool {
	switch dir {
	case "EQ", "NE", "LT", "LE", "GT", "GE":
		return true
	}
	return false
}
