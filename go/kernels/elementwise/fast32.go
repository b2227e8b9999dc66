package elementwise

import "math"

// Fast float32 exp, tanh and logistic: evaluated in float64 with short
// polynomials whose error (< 1e-12 relative) is far below half an f32 ulp,
// so results are faithfully (almost always correctly) rounded, at a few ns
// per element instead of a call into math.Exp.

const (
	log2e    = 1.4426950408889634
	ln2      = 0.6931471805599453
	rndMagic = 0x1.8p52 // adding and subtracting rounds to an integer (ties to even)
)

// exp2Frac returns 2^f for |f| ≤ 0.5 (degree-10 Taylor of e^(f·ln2): error < 1e-14).
func exp2Frac(f float64) float64 {
	y := f * ln2
	p := 1.0 / 3628800
	p = p*y + 1.0/362880
	p = p*y + 1.0/40320
	p = p*y + 1.0/5040
	p = p*y + 1.0/720
	p = p*y + 1.0/120
	p = p*y + 1.0/24
	p = p*y + 1.0/6
	p = p*y + 0.5
	p = p*y + 1
	return p*y + 1
}

// expF64 is e^x for x in [-1000, 1000] without over/underflow handling
// beyond the float64 range: enough for float32 results.
func expF64(x float64) float64 {
	t := x * log2e
	n := (t + rndMagic) - rndMagic
	p := exp2Frac(t - n)
	// 2^n built from its bits; n stays within float64's exponent range here.
	return p * math.Float64frombits(uint64(int64(n)+1023)<<52)
}

func exp32(x float32) float32 {
	xd := float64(x)
	switch {
	case xd != xd:
		return x
	case xd > 89:
		return float32(math.Inf(1))
	case xd < -105:
		return 0
	}
	return float32(expF64(xd))
}

// expm1Small is e^y - 1 for |y| ≤ 0.35 (Taylor to y^11: error < 1e-13 relative).
func expm1Small(y float64) float64 {
	p := 1.0 / 39916800
	p = p*y + 1.0/3628800
	p = p*y + 1.0/362880
	p = p*y + 1.0/40320
	p = p*y + 1.0/5040
	p = p*y + 1.0/720
	p = p*y + 1.0/120
	p = p*y + 1.0/24
	p = p*y + 1.0/6
	p = p*y + 0.5
	return (p*y + 1) * y
}

func tanh32(x float32) float32 {
	xd := float64(x)
	a := math.Abs(xd)
	var r float64
	switch {
	case xd != xd:
		return x
	case a < 0.17:
		e := expm1Small(2 * a)
		r = e / (e + 2)
	case a > 10:
		r = 1 // tanh(10) rounds to 1 in float32
	default:
		r = 1 - 2/(expF64(2*a)+1)
	}
	return float32(math.Copysign(r, xd))
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

func fexp32(d, a []float32) {
	a = a[:len(d)]
	for i := range d {
		d[i] = exp32(a[i])
	}
}

func ftanh32(d, a []float32) {
	a = a[:len(d)]
	for i := range d {
		d[i] = tanh32(a[i])
	}
}

func flogistic32(d, a []float32) {
	a = a[:len(d)]
	for i := range d {
		d[i] = logistic32(a[i])
	}
}
