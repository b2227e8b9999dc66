package elementwise

import "math"

// float32 log and log1p without the generality of math.Log and math.Log1p
// (about half of jax.random.normal's kernel time was math.Log1p; this is
// about 1.3x faster per element, scalar Go as before): the argument,
// exact in float64, is split as 2^e·m with m in [√½, √2), and
// log m = 2·atanh(s), s = (m−1)/(m+1), |s| ≤ 0.1716, is summed as an odd
// series to s^17. The series' truncation error is below
// 2·s^19/19/(1−s²) < 2^-50 relative to log m, and the float64 steps add a
// few ulps of 2^-53 (s: m−1 is exact, Sterbenz; the sum e·ln2 + log m never
// cancels more than a factor of 3, as |log m| ≤ ½ln2 ≤ ½|e·ln2| for e ≠ 0),
// so the float64 result is within 2^-47 relative of log(1+x) and its
// rounding to float32 is within 0.5 + 2^-23 float32 ULP: correctly rounded
// except where log(1+x) lies within 2^-23 ULP of a midpoint.
// log32_test.go checks the bound against math.Log1p over a sweep of all
// float32 exponents.

const (
	logLn2 = 0.693147180559945309417232121458176568
	// logSqrt2Mant is the mantissa field of the float64 above √2.
	logSqrt2Mant = 0x6A09E667F3BCD
)

// log1pCore is log(u) for a positive finite normal float64 u. It has no
// branch (random inputs would mispredict the √2 test half the time), and
// the polynomial is evaluated in Estrin's form to shorten its chain.
func log1pCore(u float64) float64 {
	const mant = 1<<52 - 1
	b := math.Float64bits(u)
	// k is 1 where the mantissa is at least √2's: m = 2^-k·mantissa.
	k := (b&mant + (1<<52 - logSqrt2Mant)) >> 52
	e := int64(b>>52) - 1023 + int64(k)
	m := math.Float64frombits(b&mant | (1023-k)<<52)
	s := (m - 1) / (m + 1)
	z := s * s
	z2 := z * z
	z4 := z2 * z2
	p := (1.0/3 + z*(1.0/5)) + z2*(1.0/7+z*(1.0/9)) +
		z4*((1.0/11+z*(1.0/13))+z2*(1.0/15+z*(1.0/17)))
	return float64(e)*logLn2 + 2*(s+s*z*p)
}

// log1p32 is log(1+x) rounded to float32.
func log1p32(x float32) float32 {
	switch {
	case x != x:
		return x + x // quieted, as math.Log1p's through float64 was
	case x <= -1:
		if x == -1 {
			return float32(math.Inf(-1))
		}
		return float32(math.NaN())
	case x > math.MaxFloat32:
		return x
	case x < 0x1p-29 && x > -0x1p-29:
		// log(1+x) = x − x²/2 + …: the correction is below 2^-30·|x|,
		// under half a float32 ULP of x even at a power of two.
		return x
	}
	// 1+x is exact in float64 for |x| ≥ 2^-29 and below 2^24; above, its
	// relative error 2^-53 moves the logarithm (≥ 16) by 2^-53 absolute.
	return float32(log1pCore(1 + float64(x)))
}

// log32 is log(x) rounded to float32.
func log32(x float32) float32 {
	switch {
	case x != x:
		return x + x
	case x <= 0:
		if x == 0 {
			return float32(math.Inf(-1))
		}
		return float32(math.NaN())
	case x > math.MaxFloat32:
		return x
	}
	return float32(log1pCore(float64(x))) // float32 subnormals are normal in float64
}

// logVecConsts is what the vector loop (log32_amd64.s, at these offsets)
// reads: log1pCore's coefficients as Go rounds them, and the bounds of the
// inputs that take the general path of log1p32 or log32.
type logVecConsts struct {
	coef      [8]float64 // 0
	ln2, one  float64    // 64, 72
	mant, off uint64     // 80, 88
	bias      uint64     // 96
	lo, max   float32    // 104, 108: lo < x <= max
	tiny      float32    // 112: |x| >= tiny
	abs       uint32     // 116
}

func logConsts(lo, tiny float32) logVecConsts {
	return logVecConsts{
		coef: [8]float64{1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11, 1.0 / 13, 1.0 / 15, 1.0 / 17},
		ln2:  logLn2, one: 1, mant: 1<<52 - 1, off: 1<<52 - logSqrt2Mant, bias: 1023,
		lo: lo, max: math.MaxFloat32, tiny: tiny, abs: 1<<31 - 1,
	}
}

var (
	log1pVec = logConsts(-1, 0x1p-29) // log1p32's switch, negated
	logVec   = logConsts(0, 0)
)

// flog1p32 and flog32 run the vector loop while whole blocks take the
// general path and the scalar function on a block that does not.
func flog1p32(d, a []float32) {
	a = a[:len(d)]
	for i := 0; i < len(a); {
		i += log32Vec(d[i:], a[i:], &log1pVec, true)
		for end := min(i+16, len(a)); i < end; i++ {
			d[i] = log1p32(a[i])
		}
	}
}

func flog32(d, a []float32) {
	a = a[:len(d)]
	for i := 0; i < len(a); {
		i += log32Vec(d[i:], a[i:], &logVec, false)
		for end := min(i+16, len(a)); i < end; i++ {
			d[i] = log32(a[i])
		}
	}
}
