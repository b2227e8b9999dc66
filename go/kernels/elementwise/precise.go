package elementwise

import (
	"math"
	"math/big"
)

// More accurate float64 pow, sin, cos and tan than Go's math package, whose
// pow loses tens of ulps for large exponents (0.1^100) and whose sin/cos/tan
// lose several ulps near multiples of π. XLA's CPU backend is accurate there,
// and users compare against NumPy, so these use double-double arithmetic:
// pow as exp(y·log x) with log x carried to ~2^-70, and trig functions with
// a three-part π/2 for argument reduction.

// twoSum returns s = fl(a+b) and the exact rounding error e.
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return
}

const logTableSize = 128

var (
	exp2DD     [32][2]float64 // 2^(j/32) as hi, lo
	ln2by32Hi  float64        // ln2/32 to 36 bits, so n·ln2by32Hi is exact for |n| < 2^17
	ln2by32Lo  float64
	logTable   [logTableSize + 1][2]float64 // ln(1 + k/128) as hi, lo
	ln2Hi      float64
	ln2Lo      float64
	pio2       [4]float64 // π/2 = pio2[0] + pio2[1] + pio2[2] (33 bits each) + pio2[3]
	twoOverPi  = 2 / math.Pi
	trigMaxArg = math.Ldexp(math.Pi/2, 20) // |n| ≤ 2^20 keeps n·pio2[i] exact
)

// piDigits is π to 100 decimal places, enough for the 130-bit split below.
const piDigits = "3.1415926535897932384626433832795028841971693993751058209749445923078164062862089986280348253421170679"

func bigLn(c *big.Float) *big.Float {
	// ln c = 2·atanh(s), s = (c-1)/(c+1), summed until terms vanish at 200 bits.
	const prec = 200
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	s := new(big.Float).SetPrec(prec).Sub(c, one)
	den := new(big.Float).SetPrec(prec).Add(c, one)
	s.Quo(s, den)
	s2 := new(big.Float).SetPrec(prec).Mul(s, s)
	sum := new(big.Float).SetPrec(prec)
	term := new(big.Float).SetPrec(prec).Set(s)
	for k := int64(1); k < 400; k += 2 {
		t := new(big.Float).SetPrec(prec).Quo(term, new(big.Float).SetPrec(prec).SetInt64(k))
		sum.Add(sum, t)
		term.Mul(term, s2)
		if term.Sign() == 0 || term.MantExp(nil) < -prec {
			break
		}
	}
	return sum.Mul(sum, new(big.Float).SetPrec(prec).SetInt64(2))
}

// splitDD rounds a big value to a float64 pair hi + lo.
func splitDD(v *big.Float) (hi, lo float64) {
	hi, _ = v.Float64()
	r := new(big.Float).SetPrec(v.Prec()).Sub(v, new(big.Float).SetFloat64(hi))
	lo, _ = r.Float64()
	return
}

func init() {
	for k := 0; k <= logTableSize; k++ {
		c := new(big.Float).SetPrec(200).SetFloat64(1 + float64(k)/logTableSize)
		logTable[k][0], logTable[k][1] = splitDD(bigLn(c))
	}
	ln2 := bigLn(new(big.Float).SetPrec(200).SetInt64(2))
	ln2Hi, ln2Lo = splitDD(ln2)
	l32 := new(big.Float).SetPrec(200).Quo(ln2, big.NewFloat(32))
	h36 := new(big.Float).SetPrec(36).SetMode(big.ToNearestEven).Set(l32)
	ln2by32Hi, _ = h36.Float64()
	ln2by32Lo, _ = new(big.Float).SetPrec(200).Sub(l32, h36).Float64()
	for j := range exp2DD {
		// 2^(j/32) = e^(j·ln2/32), summed as a Taylor series at 200 bits.
		x := new(big.Float).SetPrec(200).Mul(l32, new(big.Float).SetInt64(int64(j)))
		sum := new(big.Float).SetPrec(200).SetInt64(1)
		term := new(big.Float).SetPrec(200).SetInt64(1)
		for k := int64(1); k < 60; k++ {
			term.Mul(term, x)
			term.Quo(term, new(big.Float).SetInt64(k))
			sum.Add(sum, term)
		}
		exp2DD[j][0], exp2DD[j][1] = splitDD(sum)
	}

	pi, _, err := big.ParseFloat(piDigits, 10, 300, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	rest := new(big.Float).SetPrec(300).Quo(pi, big.NewFloat(2))
	for i := range 3 {
		part := new(big.Float).SetPrec(33).SetMode(big.ToNearestEven).Set(rest)
		pio2[i], _ = part.Float64()
		rest.Sub(rest, part)
	}
	pio2[3], _ = rest.Float64()
}

// logDD returns ln x as a double-double for finite x > 0 (subnormals included).
func logDD(x float64) (hi, lo float64) {
	m, e := math.Frexp(x) // x = m·2^e, m in [0.5, 1)
	m *= 2
	e--
	k := int((m-1)*logTableSize + 0.5)
	c := 1 + float64(k)/logTableSize
	num := m - c // exact: m and c are within a factor of two
	dh, dl := twoSum(m, c)
	u := num / dh
	ul := (math.FMA(-u, dh, num) - u*dl) / dh
	// ln(m/c) = 2·atanh(u) = 2u + 2u³/3 + 2u⁵/5 + …, |u| ≤ 1/512.
	u2 := u * u
	tail := 2 * u * u2 * (1.0/3 + u2*(1.0/5+u2*(1.0/7)))
	fe := float64(e)
	ph := fe * ln2Hi
	pl := math.FMA(fe, ln2Hi, -ph) + fe*ln2Lo
	s, err := twoSum(ph, logTable[k][0])
	err += pl + logTable[k][1]
	s, e2 := twoSum(s, 2*u)
	err += e2 + 2*ul + tail
	return twoSum(s, err)
}

// pow64 is x^y with C99 pow's special cases and about 1 ulp of error.
func pow64(x, y float64) float64 {
	switch {
	case x == 1 || y == 0 || math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0:
		return math.Pow(x, y)
	}
	neg := false
	if x < 0 {
		yi, yf := math.Modf(y)
		if yf != 0 {
			return math.NaN()
		}
		neg = math.Mod(yi, 2) != 0
		x = -x
	}
	lh, ll := logDD(x)
	p := y * lh
	pe := math.FMA(y, lh, -p) + y*ll
	r := expDD(p, pe)
	if neg {
		return -r
	}
	return r
}

// expDD is e^(hi+lo) for a double-double argument, with about 0.5 ulp of
// error: hi + lo = (32m + j)·ln2/32 + r, |r| ≤ ln2/64, and
// e^(hi+lo) = 2^m · 2^(j/32) · e^r with 2^(j/32) carried as a double-double.
func expDD(hi, lo float64) float64 {
	switch {
	case hi > 710:
		return math.Inf(1)
	case hi < -746:
		return 0
	}
	n := math.RoundToEven(hi * (32 / math.Ln2))
	r := (hi - n*ln2by32Hi) - n*ln2by32Lo + lo
	// e^r - 1 to degree 7: the remainder r^8/8! is below 2^-80 for |r| ≤ 0.011.
	p := r * (1 + r*(0.5+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720+r*(1.0/5040)))))))
	ni := int64(n)
	t := exp2DD[ni&31]
	v := t[0] + (t[1] + t[0]*p)
	return math.Ldexp(v, int(ni>>5))
}

// reduce returns r = x - n·π/2 as hi + lo and the quadrant n mod 4, for
// |x| ≤ trigMaxArg.
func reduce(x float64) (hi, lo float64, q int) {
	n := math.RoundToEven(x * twoOverPi)
	a := x - n*pio2[0] // exact
	s, e := twoSum(a, -n*pio2[1])
	s, e2 := twoSum(s, -n*pio2[2])
	e += e2 - n*pio2[3]
	hi, lo = twoSum(s, e)
	return hi, lo, int(int64(n) & 3)
}

func sin64(x float64) float64 {
	if !(math.Abs(x) <= trigMaxArg) {
		return math.Sin(x)
	}
	if math.Abs(x) < math.Pi/4 {
		return math.Sin(x)
	}
	h, l, q := reduce(x)
	switch q {
	case 0:
		return math.Sin(h) + l*math.Cos(h)
	case 1:
		return math.Cos(h) - l*math.Sin(h)
	case 2:
		return -(math.Sin(h) + l*math.Cos(h))
	}
	return -(math.Cos(h) - l*math.Sin(h))
}

func cos64(x float64) float64 {
	if !(math.Abs(x) <= trigMaxArg) {
		return math.Cos(x)
	}
	if math.Abs(x) < math.Pi/4 {
		return math.Cos(x)
	}
	h, l, q := reduce(x)
	switch q {
	case 0:
		return math.Cos(h) - l*math.Sin(h)
	case 1:
		return -(math.Sin(h) + l*math.Cos(h))
	case 2:
		return -(math.Cos(h) - l*math.Sin(h))
	}
	return math.Sin(h) + l*math.Cos(h)
}

func tan64(x float64) float64 {
	if !(math.Abs(x) <= trigMaxArg) {
		return math.Tan(x)
	}
	if math.Abs(x) < math.Pi/4 {
		return math.Tan(x)
	}
	h, l, q := reduce(x)
	t := math.Tan(h)
	t += l * (1 + t*t)
	if q&1 != 0 {
		return -1 / t
	}
	return t
}
