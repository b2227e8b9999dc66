package elementwise

import (
	"math"

	"github.com/gojax/gojax/go/ir"
)

// Codecs between gojax storage of narrow float types and float32/float64.
// Encoding rounds to nearest, ties to even, with each format's overflow rule
// as ml_dtypes (and XLA's CPU backend) apply it:
//   - IEEE-like formats (f16, bf16, f8E5M2, f8E4M3, f8E3M4): overflow → ±Inf.
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

type fformat struct {
	ebits, mbits, bias int
	kind               fkind
}

func (f fformat) nbits() int {
	if f.kind == kindE8M0 {
		return 8 // no sign bit
	}
	return 1 + f.ebits + f.mbits
}

var formats = map[ir.ElemType]fformat{
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

// decode returns the exact value of code c.
func (f fformat) decode(c uint32) float64 {
	if f.kind == kindE8M0 {
		if c == 0xFF {
			return math.NaN()
		}
		return math.Ldexp(1, int(c)-127)
	}
	n := f.nbits()
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
func (f fformat) maxCode() uint32 {
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

func (f fformat) nanCode(neg bool) uint32 {
	n := f.nbits()
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

// encode rounds x to the nearest code, ties to even.
func (f fformat) encode(x float64) uint32 {
	if f.kind == kindE8M0 {
		return encodeE8M0(x)
	}
	n := f.nbits()
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

func (f fformat) overflow(s uint32, neg bool) uint32 {
	switch f.kind {
	case kindIEEE:
		return s | (uint32(1)<<f.ebits-1)<<f.mbits
	case kindNone:
		return s | f.maxCode()
	}
	return f.nanCode(neg)
}

func encodeE8M0(x float64) uint32 {
	if !(x > 0) || math.IsInf(x, 1) {
		return 0xFF
	}
	if x < 0x1p-126 {
		// ml_dtypes rounds below 2^-126 as if code 0 were a zero: values up to
		// and including 2^-127 give code 0 (2^-127), larger ones code 1.
		if x > 0x1p-127 {
			return 1
		}
		return 0
	}
	fr, e := math.Frexp(x) // x = fr·2^e, fr in [0.5, 1)
	e--                    // x = (2·fr)·2^e with 2·fr in [1, 2)
	if fr >= 0.75 {
		e++ // ties round up, as ml_dtypes does
	}
	if c := e + 127; c <= 254 {
		return uint32(c)
	}
	return 0xFF
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

// Fast paths for the 16-bit formats.

func bf16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

func f32ToBF16(x float32) uint16 {
	b := math.Float32bits(x)
	if x != x {
		return uint16(b>>16&0x8000) | 0x7FC0
	}
	return uint16((b + 0x7FFF + (b >> 16 & 1)) >> 16)
}

func f16ToF32(h uint16) float32 {
	s := uint32(h&0x8000) << 16
	e := uint32(h>>10) & 0x1F
	m := uint32(h & 0x3FF)
	switch e {
	case 0:
		v := float32(m) * (1.0 / (1 << 24))
		return math.Float32frombits(math.Float32bits(v) | s)
	case 0x1F:
		return math.Float32frombits(s | 0x7F800000 | m<<13)
	}
	return math.Float32frombits(s | (e+112)<<23 | m<<13)
}

func f32ToF16(x float32) uint16 {
	b := math.Float32bits(x)
	s := uint16(b >> 16 & 0x8000)
	a := b & 0x7FFFFFFF
	switch {
	case a > 0x7F800000: // NaN: canonical quiet NaN keeping the sign
		return s | 0x7E00
	case a >= 0x477FF000: // ≥ 65520 rounds to Inf
		return s | 0x7C00
	case a >= 0x38800000: // normal in f16
		r := a + 0xFFF + (a >> 13 & 1) // round to nearest even at bit 13
		return s | uint16((r-0x38000000)>>13)
	}
	// Subnormal or zero: scale so the f16 subnormal quantum 2^-24 is 1 and
	// let float32 rounding (ties to even) do the work.
	v := math.Float32frombits(a) * (1 << 24)
	return s | uint16(math.RoundToEven(float64(v)))
}

// Byte-slice codecs to float32, by element type.

var decodeTables = map[ir.ElemType]*[256]float32{}

func init() {
	for t, f := range formats {
		if t.ByteSize() != 1 {
			continue
		}
		tab := new([256]float32)
		for c := range 1 << f.nbits() {
			tab[c] = float32(f.decode(uint32(c)))
		}
		decodeTables[t] = tab
	}
}

// decoder returns a loop converting len(dst) elements of t to float32.
func decoder(t ir.ElemType) func(dst []float32, src []byte) {
	switch t {
	case ir.BF16:
		return func(dst []float32, src []byte) {
			s := view[uint16](src)[:len(dst)]
			for i := range dst {
				dst[i] = bf16ToF32(s[i])
			}
		}
	case ir.F16:
		return func(dst []float32, src []byte) {
			s := view[uint16](src)[:len(dst)]
			for i := range dst {
				dst[i] = f16ToF32(s[i])
			}
		}
	}
	tab := decodeTables[t]
	if tab == nil {
		return nil
	}
	return func(dst []float32, src []byte) {
		src = src[:len(dst)]
		for i := range dst {
			dst[i] = tab[src[i]] // codes beyond the format's width cannot occur in valid data
		}
	}
}

// encoder returns a loop rounding float32 values to t.
func encoder(t ir.ElemType) func(dst []byte, src []float32) {
	switch t {
	case ir.BF16:
		return func(dst []byte, src []float32) {
			d := view[uint16](dst)[:len(src)]
			for i := range src {
				d[i] = f32ToBF16(src[i])
			}
		}
	case ir.F16:
		return func(dst []byte, src []float32) {
			d := view[uint16](dst)[:len(src)]
			for i := range src {
				d[i] = f32ToF16(src[i])
			}
		}
	}
	f, ok := formats[t]
	if !ok {
		return nil
	}
	return func(dst []byte, src []float32) {
		dst = dst[:len(src)]
		for i := range src {
			dst[i] = byte(f.encode32(src[i]))
		}
	}
}

// encode32 is encode for a float32 input, done with integer operations on
// its bits (the fast path of the emulated float types). Formats with more
// than 10 mantissa bits or E8M0 take the general path.
func (f fformat) encode32(x float32) uint32 {
	if f.kind == kindE8M0 {
		return encodeE8M0From32(x)
	}
	if f.mbits > 10 {
		return f.encode(float64(x))
	}
	b := math.Float32bits(x)
	neg := b>>31 != 0
	a := b & 0x7FFFFFFF
	n := f.nbits()
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
