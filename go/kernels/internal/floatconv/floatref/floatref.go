// Package floatref is a slow, exact reference for gojax's narrow float
// formats, for tests only: values are decoded into big.Rat and narrowing is
// rounding of the exact rational, written from the formats' definitions and
// independently of floatconv's bit manipulation.
package floatref

import (
	"math"
	"math/big"

	"github.com/gojax/gojax/go/ir"
)

// Kind is a format's family of special values.
type Kind int

const (
	IEEE Kind = iota // ±Inf and NaNs where the exponent field is all ones
	FN               // no Inf; NaN is all ones in exponent and mantissa
	FNUZ             // no Inf, no -0; the single NaN is the -0 pattern
	None             // neither Inf nor NaN: overflow saturates
	E8M0             // unsigned powers of two; 0xFF is NaN
)

// Spec describes a narrow format.
type Spec struct {
	T                  ir.ElemType
	Ebits, Mbits, Bias int
	Kind               Kind
}

// Specs lists every narrow float type gojax stores.
var Specs = []Spec{
	{ir.F16, 5, 10, 15, IEEE},
	{ir.BF16, 8, 7, 127, IEEE},
	{ir.F8E5M2, 5, 2, 15, IEEE},
	{ir.F8E4M3, 4, 3, 7, IEEE},
	{ir.F8E3M4, 3, 4, 3, IEEE},
	{ir.F8E4M3FN, 4, 3, 7, FN},
	{ir.F8E4M3FNUZ, 4, 3, 8, FNUZ},
	{ir.F8E4M3B11FNUZ, 4, 3, 11, FNUZ},
	{ir.F8E5M2FNUZ, 5, 2, 16, FNUZ},
	{ir.F6E2M3FN, 2, 3, 1, None},
	{ir.F6E3M2FN, 3, 2, 3, None},
	{ir.F4E2M1FN, 2, 1, 1, None},
	{ir.F8E8M0FNU, 8, 0, 127, E8M0},
}

// Bits is the width of a code.
func (s Spec) Bits() int {
	if s.Kind == E8M0 {
		return 8
	}
	return 1 + s.Ebits + s.Mbits
}

func (s Spec) signBit() uint32 { return 1 << (s.Bits() - 1) }

// Class of a code.
type Class int

const (
	Finite Class = iota
	Inf
	NaN
)

// Decode returns the exact value of code c (the magnitude in r, sign in neg)
// and its class.
func (s Spec) Decode(c uint32) (r *big.Rat, neg bool, cl Class) {
	if s.Kind == E8M0 {
		if c == 0xFF {
			return nil, false, NaN
		}
		return pow2(int(c) - 127), false, Finite
	}
	neg = c&s.signBit() != 0
	e := int(c>>s.Mbits) & (1<<s.Ebits - 1)
	m := int64(c & (1<<s.Mbits - 1))
	eAll, mAll := e == 1<<s.Ebits-1, m == 1<<s.Mbits-1
	switch {
	case s.Kind == IEEE && eAll && m == 0:
		return nil, neg, Inf
	case s.Kind == IEEE && eAll, s.Kind == FN && eAll && mAll:
		return nil, neg, NaN
	case s.Kind == FNUZ && neg && e == 0 && m == 0:
		return nil, true, NaN
	}
	if e == 0 { // subnormal: m·2^(1-bias-mbits)
		r = new(big.Rat).Mul(new(big.Rat).SetInt64(m), pow2(1-s.Bias-s.Mbits))
	} else {
		r = new(big.Rat).Mul(new(big.Rat).SetInt64(m+1<<s.Mbits), pow2(e-s.Bias-s.Mbits))
	}
	return r, neg, Finite
}

// maxCode is the largest finite positive code.
func (s Spec) maxCode() uint32 {
	e, m := uint32(1)<<s.Ebits-1, uint32(1)<<s.Mbits-1
	switch s.Kind {
	case IEEE:
		e--
	case FN:
		m--
	case E8M0:
		return 254
	}
	return e<<s.Mbits | m
}

func (s Spec) nan(neg bool) uint32 {
	switch s.Kind {
	case IEEE: // the quiet NaN; callers compare NaNs by class
		return s.sign(neg) | (1<<s.Ebits-1)<<s.Mbits | 1<<(s.Mbits-1)
	case FN:
		return s.sign(neg) | (1<<s.Ebits-1)<<s.Mbits | (1<<s.Mbits - 1)
	case FNUZ:
		return s.signBit()
	case E8M0:
		return 0xFF
	}
	// No NaN at all: ml_dtypes gives a zero with the opposite sign.
	return s.sign(!neg)
}

func (s Spec) sign(neg bool) uint32 {
	if neg {
		return s.signBit()
	}
	return 0
}

func (s Spec) overflow(neg bool) uint32 {
	switch s.Kind {
	case IEEE:
		return s.sign(neg) | (1<<s.Ebits-1)<<s.Mbits
	case None:
		return s.sign(neg) | s.maxCode()
	}
	return s.nan(neg)
}

func (s Spec) zero(neg bool) uint32 {
	switch s.Kind {
	case FNUZ:
		return 0
	case E8M0:
		return 0xFF
	}
	return s.sign(neg)
}

// Round returns the code nearest to x (ties to even; for E8M0 ties away
// from zero, as ml_dtypes rounds it), with the format's rules for NaN,
// infinities, zeros and overflow.
func (s Spec) Round(x float64) uint32 {
	neg := math.Signbit(x)
	switch {
	case math.IsNaN(x):
		return s.nan(neg)
	case math.IsInf(x, 0):
		if s.Kind == E8M0 {
			return 0xFF
		}
		return s.overflow(neg)
	case x == 0:
		return s.zero(neg)
	case s.Kind == E8M0 && neg:
		return 0xFF
	}
	return s.RoundRat(new(big.Rat).SetFloat64(math.Abs(x)), neg)
}

// RoundInt is Round for an integer source (exact, however wide).
func (s Spec) RoundInt(v *big.Int) uint32 {
	if v.Sign() == 0 {
		return s.zero(false)
	}
	if v.Sign() < 0 && s.Kind == E8M0 {
		return 0xFF
	}
	return s.RoundRat(new(big.Rat).SetInt(new(big.Int).Abs(v)), v.Sign() < 0)
}

// RoundRat rounds the magnitude a > 0 with sign neg.
func (s Spec) RoundRat(a *big.Rat, neg bool) uint32 {
	// e = floor(log2 a)
	e := a.Num().BitLen() - a.Denom().BitLen()
	if a.Cmp(pow2(e)) < 0 {
		e--
	}
	if s.Kind == E8M0 && a.Cmp(pow2(-126)) < 0 {
		// ml_dtypes: up to 2^-127 → 2^-127 (code 0), larger → 2^-126.
		if a.Cmp(pow2(-127)) > 0 {
			return 1
		}
		return 0
	}
	emin := 1 - s.Bias
	q := max(e, emin) - s.Mbits // the quantum's exponent at a
	n := roundRat(new(big.Rat).Mul(a, pow2(-q)), s.Kind == E8M0)
	if n.Sign() == 0 {
		return s.zero(neg)
	}
	if s.Kind == E8M0 {
		c := q + 127
		if n.Int64() == 2 {
			c++
		}
		if c > 254 {
			return 0xFF
		}
		return uint32(c)
	}
	if !n.IsInt64() || n.Int64() > 2<<s.Mbits {
		panic("floatref: rounding out of range")
	}
	nv := n.Int64()
	if nv == 2<<s.Mbits { // carried into the next binade
		nv >>= 1
		q++
	}
	var code uint32
	if nv < 1<<s.Mbits {
		code = uint32(nv) // subnormal
	} else {
		code = uint32(q+s.Mbits+s.Bias)<<s.Mbits | uint32(nv-1<<s.Mbits)
	}
	if code > s.maxCode() || q+s.Mbits+s.Bias >= 1<<s.Ebits {
		return s.overflow(neg)
	}
	return s.sign(neg) | code
}

// roundRat rounds r ≥ 0 to an integer: half to even, or half up.
func roundRat(r *big.Rat, halfUp bool) *big.Int {
	num, den := r.Num(), r.Denom()
	q, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	c := new(big.Int).Lsh(rem, 1).Cmp(den)
	if c > 0 || (c == 0 && (halfUp || q.Bit(0) == 1)) {
		q.Add(q, big.NewInt(1))
	}
	return q
}

func pow2(e int) *big.Rat {
	one := big.NewInt(1)
	if e >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Lsh(one, uint(e)))
	}
	return new(big.Rat).SetFrac(one, new(big.Int).Lsh(one, uint(-e)))
}

// Cases returns float64 inputs at which narrowing to s is delicate: every
// tie between neighbouring codes (all codes for 8-bit formats, a sample
// plus the subnormal and overflow binades for 16-bit ones), values one f64
// or f32 ulp off those ties, values off a tie by less than half an f32 ulp
// (rounding through f32 first would land on the tie), the codes themselves,
// the smallest subnormal and half of it, max, max plus half an ulp, huge
// and tiny values, zeros, infinities and NaNs; each with both signs.
func (s Spec) Cases() []float64 {
	var pos []float64
	n := uint32(1) << s.Bits()
	if s.Kind != E8M0 {
		n = s.signBit()
	}
	for c := uint32(0); c < n; c++ {
		if s.Bits() == 16 {
			e := int(c >> s.Mbits)
			if !(e <= 2 || e >= 1<<s.Ebits-3 || (e == s.Bias && c%7 == 0) || c%97 == 0) {
				continue
			}
		}
		v, _, cl := s.Decode(c)
		if cl != Finite {
			continue
		}
		lo, _ := v.Float64()
		hiR, _, hcl := s.Decode(c + 1)
		var hi float64
		if hcl == Finite && c+1 < n {
			hi, _ = hiR.Float64()
		} else { // past max: the next code of the unbounded format
			ulp := lo - func() float64 { p, _, _ := s.Decode(c - 1); f, _ := p.Float64(); return f }()
			hi = lo + ulp
		}
		mid := lo + (hi-lo)/2 // exact: few significant bits
		pos = append(pos, lo, hi, mid,
			math.Nextafter(mid, 0), math.Nextafter(mid, math.Inf(1)),
			mid*(1+0x1p-40), mid*(1-0x1p-40), mid*(1+0x1p-30), mid*(1-0x1p-30),
			float64(math.Nextafter32(float32(mid), 0)), float64(math.Nextafter32(float32(mid), float32(math.Inf(1)))),
			lo*(1+0x1p-40), lo*(1-0x1p-40))
	}
	pos = append(pos, 5e-324, 0x1p-1022, 0x1p-149, 0x1p-126, 1e-300, 1e300, math.MaxFloat64, math.MaxFloat32, 1, 3)
	var out []float64
	for _, v := range pos {
		if v != 0 && !math.IsInf(v, 0) {
			out = append(out, v, -v)
		}
	}
	return append(out, 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), -math.NaN(),
		math.Float64frombits(0x7FF0000000000001), math.Float64frombits(0xFFF8000000000123))
}

// Is reports whether got is the code want, NaNs of IEEE formats matching any
// NaN of the same sign.
func (s Spec) Is(got, want uint32) bool {
	if got == want {
		return true
	}
	_, gn, gc := s.Decode(got)
	_, wn, wc := s.Decode(want)
	return s.Kind == IEEE && gc == NaN && wc == NaN && gn == wn
}
