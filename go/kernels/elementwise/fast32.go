package elementwise

import "math"

// Fast float32 logistic (exp: exp32.go, tanh: tanh32.go): evaluated in float64 with short
// polynomials whose error (< 1e-12 relative) is far below half an f32 ulp,
// so results are faithfully (almost always correctly) rounded, at a few ns
// per element instead of a call into math.Exp.

const (
	log2e    = 1.4426950408889634
	ln2      = 0.6931471805599453
	rndMagic = 0x1.8p52 // adding and subtracting rounds to an integer (ties to even)
)

// exp2Table[j] = 2^(j/32).
var exp2Table = func() (t [32]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / 32)
	}
	return
}()

// expF64 is e^x to about 1e-12 relative error for |x| ≤ 1000: x·log2(e) =
// (32m + j + f)/32 with |f| ≤ 1/2, so e^x = 2^m · 2^(j/32) · e^(f·ln2/32),
// the last factor from a degree-4 Taylor polynomial.
func expF64(x float64) float64 {
	t := x * (32 * log2e)
	n := (t + rndMagic) - rndMagic
	y := (t - n) * (ln2 / 32)
	p := 1 + y*(1+y*(0.5+y*(1.0/6+y*(1.0/24))))
	ni := int64(n)
	scale := math.Float64frombits(uint64(ni>>5+1023) << 52)
	return exp2Table[ni&31] * p * scale
}

func logistic32(x float32) float32 {
	xd := float64(x)
	switch {
	case xd != xd:
		return x
	case xd < -105:
		return 0
	case xd > 20:
		return 1 // 1 - e^-20 rounds to 1 in float32
	}
	return float32(1 / (1 + expF64(-xd)))
}

func flogistic32(d, a []float32) {
	a = a[:len(d)]
	for i := range d {
		d[i] = logistic32(a[i])
	}
}
