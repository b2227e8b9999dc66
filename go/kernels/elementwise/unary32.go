package elementwise

import (
	"math"

	"github.com/gojax/gojax/go/internal/byteview"
)

// f32 sqrt, floor, ceil, round_nearest_even and s32→f32 convert with
// vector instructions (unary32_amd64.s). The Go loops compute these in
// float64 and round once to float32; the vector instructions give the same
// bits: floor, ceil and rounding to an integer are exact, as is widening;
// a square root rounded to float64 and then to float32 is the correctly
// rounded float32 root (53 >= 2*24+2 bits, so the double rounding is
// innocuous), which VSQRTPS returns; an int32 converts with one rounding
// either way. NaNs: both quiet a signaling NaN and keep its payload, and a
// negative root is the default NaN on both paths.

const (
	uSqrt = iota
	uFloor
	uCeil
	uRNE
	uCvtI32
	unaryOps32
)

// unary32Vec holds the selected loops (nil: Go only); unary32Block is
// the elements they take per step.
var (
	unary32Vec   *[unaryOps32]func(d, a *float32, n int)
	unary32Block = 1
)

// unary32 runs op's vector loop on the whole blocks of d and returns the
// elements done; the caller finishes the rest.
func unary32(op int, d []float32, a []float32) int {
	t := unary32Vec
	if t == nil || len(d) < unary32Block {
		return 0
	}
	n := len(d) / unary32Block * unary32Block
	t[op](&d[0], &a[0], n)
	return n
}

func fsqrt32(d, a []float32) {
	a = a[:len(d)]
	for i := unary32(uSqrt, d, a); i < len(d); i++ {
		d[i] = float32(math.Sqrt(float64(a[i])))
	}
}

func ffloor32(d, a []float32) {
	a = a[:len(d)]
	for i := unary32(uFloor, d, a); i < len(d); i++ {
		d[i] = float32(math.Floor(float64(a[i])))
	}
}

func fceil32(d, a []float32) {
	a = a[:len(d)]
	for i := unary32(uCeil, d, a); i < len(d); i++ {
		d[i] = float32(math.Ceil(float64(a[i])))
	}
}

func frne32(d, a []float32) {
	a = a[:len(d)]
	for i := unary32(uRNE, d, a); i < len(d); i++ {
		d[i] = float32(math.RoundToEven(float64(a[i])))
	}
}

func convI32F32(d []float32, s []int32) {
	s = s[:len(d)]
	a := byteview.As[float32](byteview.Bytes(s)) // the loop reads the int32 bits
	for i := unary32(uCvtI32, d, a); i < len(d); i++ {
		d[i] = float32(s[i])
	}
}
