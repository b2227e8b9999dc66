package elementwise

import (
	"github.com/gojax/gojax/go/ir"

	"github.com/gojax/gojax/go/internal/byteview"
)

// select and clamp accept a rank-0 operand broadcast against the others;
// kernels see such an operand as a one-element slice.

type c128bits [2]uint64

func selectLoop[T byteview.Elem](d, p, a, b []byte) {
	x, y, z := byteview.As[T](d), byteview.As[T](a), byteview.As[T](b)
	if len(p) == 1 && len(x) > 1 {
		if p[0] != 0 {
			copy(x, y)
		} else {
			copy(x, z)
		}
		return
	}
	p, y, z = p[:len(x)], y[:len(x)], z[:len(x)]
	for i := range x {
		if p[i] != 0 {
			x[i] = y[i]
		} else {
			x[i] = z[i]
		}
	}
}

// selectKern copies whole elements, so one loop per element size serves every type.
func selectKern(t ir.ElemType) kern {
	switch t.ByteSize() {
	case 1:
		return selectVec8
	case 2:
		return selectVec16
	case 4:
		return selectVec32
	case 8:
		return selectVec64
	case 16:
		return selectLoop[c128bits]
	}
	return nil
}

// clampLoop computes min(max(x, lo), hi) with lo and hi scalar or per element.
// For floats Go's max/min propagate NaN, as XLA's clamp does.
func clampLoop[T real_](d, lo, x, hi []byte) {
	r, l, v, h := byteview.As[T](d), byteview.As[T](lo), byteview.As[T](x), byteview.As[T](hi)
	v = v[:len(r)]
	n := len(r)
	switch {
	case len(l) == 1 && len(h) == 1 && n > 1:
		a, b := l[0], h[0]
		for i := range r {
			r[i] = min(max(v[i], a), b)
		}
	case len(l) == 1 && n > 1:
		a := l[0]
		h = h[:n]
		for i := range r {
			r[i] = min(max(v[i], a), h[i])
		}
	case len(h) == 1 && n > 1:
		b := h[0]
		l = l[:n]
		for i := range r {
			r[i] = min(max(v[i], l[i]), b)
		}
	default:
		l, h = l[:n], h[:n]
		for i := range r {
			r[i] = min(max(v[i], l[i]), h[i])
		}
	}
}

// clampCplx orders complex values lexicographically, like maximum/minimum.
func clampCplx[T cplx](d, lo, x, hi []byte) {
	r, l, v, h := byteview.As[T](d), byteview.As[T](lo), byteview.As[T](x), byteview.As[T](hi)
	n := len(r)
	tmp := [1]T{}
	for i := range r {
		li, hi_ := 0, 0
		if len(l) != 1 || n == 1 {
			li = i
		}
		if len(h) != 1 || n == 1 {
			hi_ = i
		}
		cmax(tmp[:], v[i:i+1], l[li:li+1])
		cmin(r[i:i+1], tmp[:], h[hi_:hi_+1])
	}
}

func clampKern(t ir.ElemType) kern {
	switch t {
	case ir.Pred, ir.U1, ir.U2, ir.U4, ir.U8:
		return clampLoop[uint8]
	case ir.S1, ir.S2, ir.S4, ir.S8:
		return clampLoop[int8]
	case ir.S16:
		return clampLoop[int16]
	case ir.S32:
		return clampLoop[int32]
	case ir.S64:
		return clampLoop[int64]
	case ir.U16:
		return clampLoop[uint16]
	case ir.U32:
		return clampLoop[uint32]
	case ir.U64:
		return clampLoop[uint64]
	case ir.F32:
		return clampLoop[float32]
	case ir.F64:
		return clampLoop[float64]
	case ir.C64:
		return clampCplx[complex64]
	case ir.C128:
		return clampCplx[complex128]
	}
	if emulated(t) {
		return emulate(clampLoop[float32], t, true)
	}
	return nil
}
