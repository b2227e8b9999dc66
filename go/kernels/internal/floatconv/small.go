package floatconv

import (
	"math"

	"github.com/gojax/gojax/go/ir"
)

// Codecs between gojax storage of narrow float types and float32/float64.
// Encoding rounds once from the source value to nearest, ties to even, with each format's overflow rule
// as ml_dtypes (and XLA's CPU backend) apply it:
//   - IEEE-like formats (f16, bf16, f8E5M2, f8E4M3, f8E3M4): overflow → ±Inf;
//     f16 and bf16 take the F64To*/F32To* paths (NaN payloads kept).
//   - FN formats with a NaN but no Inf (f8E4M3FN): overflow and ±Inf → NaN
//     keeping the sign.
//   - FNUZ formats (one NaN, 0x80; no -0): overflow, ±Inf and NaN → 0x80; -0 → +0.
//   - formats with neither (f4E2M1FN, f6E2M3FN, f6E3M2FN): saturate to ±max;
//     NaN becomes a zero of the opposite sign, matching ml_dtypes bit for bit.
//   - f8E8M0FNU (powers of two, no sign, no zero): rounds half up in the
//     exponent; zero, negatives, Inf and NaN → NaN (0xFF); tiny → 2^-127.

type fkind uint8

const (
	kindIEEE fkind = iota
	kindFN
	kindFNUZ
	kindNone
	kindE8M0
)

// Format describes one narrow float type: exponent and mantissa widths,
// exponent bias and its special-value rules.
type Format struct {
	ebits, mbits, bias int
	kind               fkind
}

// NBits is the format's width in bits.
func (f Format) NBits() int {
	if f.kind == kindE8M0 {
		return 8 // no sign bit
	}
	return 1 + f.ebits + f.mbits
}

// MantBits is the number of stored mantissa bits.
func (f Format) MantBits() int { return f.mbits }

// Quantum is the spacing of the format's subnormals, 2^(1-bias-mbits); 0 for
// f8E8M0FNU, which has none.
func (f Format) Quantum() float64 {
	if f.kind == kindE8M0 {
		return 0
	}
	return math.Ldexp(1, 1-f.bias-f.mbits)
}

var formats = map[ir.ElemType]Format{
	ir.F4E2M1FN:      {2, 1, 1, kindNone},
	ir.F6E2M3FN:      {2, 3, 1, kindNone},
	ir.F6E3M2FN:      {3, 2, 3, kindNone},
	ir.F8E3M4:        {3, 4, 3, kindIEEE},
	ir.F8E4M3:        {4, 3, 7, kindIEEE},
	ir.F8E4M3FN:      {4, 3, 7, kindFN},
	ir.F8E4M3FNUZ:    {4, 3, 8, kindFNUZ},
	ir.F8E4M3B11FNUZ: {4, 3, 11, kindFNUZ},
	ir.F8E5M2:        {5, 2, 15, kindIEEE},
	ir.F8E5M2FNUZ:    {5, 2, 16, kindFNUZ},
	ir.F8E8M0FNU:     {8, 0, 127, kindE8M0},
	ir.F16:           {5, 10, 15, kindIEEE},
	ir.BF16:          {8, 7, 127, kindIEEE},
}

// Decode returns the exact value of code c.
func (f Format) Decode(c uint32) float64 {
	if f.kind == kindE8M0 {
		if c == 0xFF {
			return math.NaN()
		}
		return math.Ldexp(1, int(c)-127)
	}
	n := f.NBits()
	sign := c>>(n-1)&1 != 0
	emax := uint32(1)<<f.ebits - 1
	mmask := uint32(1)<<f.mbits - 1
	e := c >> f.mbits & emax
	m := c & mmask
	var v float64
	switch {
	case f.kind == kindIEEE && e == emax && m == 0:
		v = math.Inf(1)
	case f.kind == kindIEEE && e == emax,
		f.kind == kindFN && e == emax && m == mmask,
		f.kind == kindFNUZ && sign && e == 0 && m == 0:
		v = math.NaN()
		if sign {
			v = math.Copysign(v, -1)
		}
		return v
	case e == 0:
		v = math.Ldexp(float64(m), 1-f.bias-f.mbits)
	default:
		v = math.Ldexp(float64(m|1<<f.mbits), int(e)-f.bias-f.mbits)
	}
	if sign {
		v = -v
	}
	return v
}

// maxCode is the largest finite positive code.
func (f Format) maxCode() uint32 {
	emax := uint32(1)<<f.ebits - 1
	mmask := uint32(1)<<f.mbits - 1
	switch f.kind {
	case kindIEEE:
		return (emax-1)<<f.mbits | mmask
	case kindFN:
		return emax<<f.mbits | (mmask - 1)
	}
	return emax<<f.mbits | mmask
}

func (f Format) nanCode(neg bool) uint32 {
	n := f.NBits()
	var s uint32
	if neg {
		s = 1 << (n - 1)
	}
	emax := uint32(1)<<f.ebits - 1
	switch f.kind {
	case kindIEEE:
		return s | emax<<f.mbits | 1<<(f.mbits-1)
	case kindFN:
		return s | emax<<f.mbits | (1<<f.mbits - 1)
	case kindFNUZ:
		return 1 << (n - 1)
	case kindE8M0:
		return 0xFF
	}
	// No NaN: ml_dtypes yields a zero with the sign flipped.
	if neg {
		return 0
	}
	return 1 << (n - 1)
}

// Encode rounds x to the nearest code, ties to even.
func (f Format) Encode(x float64) uint32 {
	switch {
	case f.kind == kindE8M0:
		return encodeE8M0(x)
	case f.mbits == 10:
		return uint32(F64ToF16(x))
	case f.mbits == 7:
		return uint32(F64ToBF16(x))
	}
	n := f.NBits()
	neg := math.Signbit(x)
	if x != x {
		return f.nanCode(neg)
	}
	var s uint32
	if neg {
		s = 1 << (n - 1)
	}
	a := math.Abs(x)
	if math.IsInf(a, 0) {
		return f.overflow(s, neg)
	}
	if a == 0 {
		if f.kind == kindFNUZ {
			return 0
		}
		return s
	}
	emin := 1 - f.bias
	e := max(math.Ilogb(a), emin)
	r := math.RoundToEven(math.Ldexp(a, f.mbits-e)) // significand as an integer
	if r == 0 {
		if f.kind == kindFNUZ {
			return 0
		}
		return s
	}
	if r >= float64(uint32(2)<<f.mbits) {
		r /= 2
		e++
	}
	var code uint32
	if r < float64(uint32(1)<<f.mbits) {
		code = uint32(r) // subnormal (e == emin)
	} else {
		code = uint32(e+f.bias)<<f.mbits | (uint32(r) - 1<<f.mbits)
	}
	if code > f.maxCode() {
		return f.overflow(s, neg)
	}
	return s | code
}

func (f Format) overflow(s uint32, neg bool) uint32 {
	switch f.kind {
	case kindIEEE:
		return s | (uint32(1)<<f.ebits-1)<<f.mbits
	case kindNone:
		return s | f.maxCode()
	}
	return f.nanCode(neg)
}

func encodeE8M0(x float64) uint32 {
	// Integer operations on the bits: float compares would see an f64
	// subnormal as zero when kernels run with denormals-are-zero.
	b := math.Float64bits(x)
	switch {
	case b == 0 || b >= 0x7FF0000000000000: // +0, negative, Inf, NaN
		return 0xFF
	case b < 0x3810000000000000: // below 2^-126
		// ml_dtypes rounds here as if code 0 were a zero: values up to and
		// including 2^-127 give code 0 (2^-127), larger ones code 1.
		if b > 0x3800000000000000 {
			return 1
		}
		return 0
	}
	// The exponent, plus one when the significand is ≥ 1.5 (ties round up,
	// as ml_dtypes does).
	c := int(b>>52) - 1023 + 127 + int(b>>51&1)
	if c > 254 {
		return 0xFF
	}
	return uint32(c)
}

// encodeE8M0From32 is encodeE8M0 on float32 bits: the exponent field plus
// one when the top mantissa bit is set (ties round up).
func encodeE8M0From32(x float32) uint32 {
	b := math.Float32bits(x)
	switch {
	case b == 0 || b >= 0x7F800000: // zero, negative, Inf, NaN
		return 0xFF
	case b < 0x00800000: // subnormal: see encodeE8M0
		if b > 0x00400000 {
			return 1
		}
		return 0
	}
	c := b>>23 + b>>22&1
	if c > 254 {
		return 0xFF
	}
	return c
}

// Encode32 is Encode for a float32 input, done with integer operations on
// its bits (the fast path of the emulated float types); f16, bf16 and
// E8M0 have paths of their own.
func (f Format) Encode32(x float32) uint32 {
	if f.kind == kindE8M0 {
		return encodeE8M0From32(x)
	}
	switch f.mbits {
	case 10:
		return uint32(F32ToF16(x))
	case 7:
		return uint32(F32ToBF16(x))
	}
	b := math.Float32bits(x)
	neg := b>>31 != 0
	a := b & 0x7FFFFFFF
	n := f.NBits()
	var s uint32
	if neg {
		s = 1 << (n - 1)
	}
	switch {
	case a > 0x7F800000:
		return f.nanCode(neg)
	case a == 0x7F800000:
		return f.overflow(s, neg)
	}
	emin := 1 - f.bias      // smallest normal exponent of the format
	e := int(a>>23) - 127   // exponent of x (f32 subnormals: treated below)
	m := a&0x7FFFFF | 1<<23 // significand with its implicit bit
	if a < 0x00800000 {
		e, m = -126, a // f32 subnormal: no implicit bit
	}
	// Shift so the format's quantum at this exponent becomes 1, rounding to
	// nearest even on the bits shifted out.
	shift := 23 - f.mbits
	if e < emin {
		shift += emin - e
		e = emin
	}
	var q uint32
	if shift > 25 {
		q = 0 // below half the smallest subnormal
	} else {
		half := uint32(1) << (shift - 1)
		rest := m & (1<<shift - 1)
		q = m >> shift
		if rest > half || (rest == half && q&1 != 0) {
			q++
		}
	}
	if q == 0 {
		if f.kind == kindFNUZ {
			return 0
		}
		return s
	}
	// q is the significand in units of 2^(e-mbits); renormalize a carry out.
	if q >= 2<<f.mbits {
		q >>= 1
		e++
	}
	var code uint32
	if q < 1<<f.mbits {
		code = q // subnormal
	} else {
		code = uint32(e+f.bias)<<f.mbits | (q - 1<<f.mbits)
	}
	if code > f.maxCode() {
		return f.overflow(s, neg)
	}
	return s | code
}

// Of returns the format of t (f16, bf16 or a type for which IsSmallFloat
// holds).
func Of(t ir.ElemType) (Format, bool) {
	f, ok := formats[t]
	return f, ok
}
