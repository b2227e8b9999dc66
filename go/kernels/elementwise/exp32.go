package elementwise

import (
	"math"

	"github.com/gojax/gojax/go/internal/cpufeat"
)

// float32 e^x in float32 arithmetic (Cody-Waite reduction by ln 2 in two
// parts, a degree-5 polynomial, scaling by 2^n in two halves so results near
// overflow and in the subnormal range come out right): within 2 ULP of exact
// (exp32_test.go). x is first clamped to [-110, 100], where e^x already
// underflows to 0 or overflows to +Inf, and NaN stays NaN.
//
// The AVX2 kernel (exp32_amd64.s) evaluates the same float32 operations in
// the same order, without fused multiply-adds, so the two agree bit for bit
// and results do not depend on how work is split between threads.
const (
	expLo    = float32(-110)
	expHi    = float32(100)
	expLog2e = float32(1.44269504088896341)
	expC1    = float32(0.693359375) // ln 2 = C1 - C2, C1 with few bits
	expC2    = float32(-2.12194440e-4)
	expP0    = float32(1.9875691500e-4)
	expP1    = float32(1.3981999507e-3)
	expP2    = float32(8.3334519073e-3)
	expP3    = float32(4.1665795894e-2)
	expP4    = float32(1.6666665459e-1)
	expP5    = float32(5.0000001201e-1)
)

// expPoly is the scalar kernel; float32() conversions keep multiply and add
// from fusing.
func expPoly(x float32) float32 {
	if x != x {
		return x
	}
	c := min(max(x, expLo), expHi)
	n := float32(math.RoundToEven(float64(float32(c * expLog2e))))
	r := c - float32(n*expC1)
	r = r - float32(n*expC2)
	z := float32(r * r)
	p := float32(expP0*r) + expP1
	p = float32(p*r) + expP2
	p = float32(p*r) + expP3
	p = float32(p*r) + expP4
	p = float32(p*r) + expP5
	y := float32(float32(p*z)+r) + 1
	ni := int32(n)
	h := ni >> 1
	k := ni - h
	s1 := math.Float32frombits(uint32(h+127) << 23)
	s2 := math.Float32frombits(uint32(k+127) << 23)
	return float32(y*s1) * s2
}

// fexp32 is e^x over a slice: sixteen lanes at a time with AVX-512, eight
// with AVX2, the rest in Go.
func fexp32(d, a []float32) {
	d = d[:len(a)]
	n := 0
	switch {
	case cpufeat.AVX512:
		n = len(a) &^ 15
		if n > 0 {
			exp32x16(d[:n], a[:n])
		}
	case cpufeat.AVX2FMA:
		n = len(a) &^ 7
		if n > 0 {
			exp32x8(d[:n], a[:n])
		}
	}
	for i := n; i < len(a); i++ {
		d[i] = expPoly(a[i])
	}
}
