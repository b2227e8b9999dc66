// Package floatconv converts between float64/float32 and gojax's narrow
// float storage formats (f16, bf16 and the f8/f6/f4 families). Every
// narrowing rounds once from the source value, to nearest with ties to
// even, so results do not depend on which CPU (or which intermediate
// format) a conversion would otherwise have gone through.
package floatconv

import "math"

// NaNs narrowed to f16/bf16 keep their sign and the top payload bits and
// come out quiet, as the x86 conversion instructions produce them; the
// float64 variants give the same bits as narrowing through float32 would.

// F16ToF32 widens an IEEE half (exact).
func F16ToF32(h uint16) float32 {
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

// F32ToF16 rounds a float32 to the nearest half, ties to even.
func F32ToF16(x float32) uint16 {
	b := math.Float32bits(x)
	s := uint16(b >> 16 & 0x8000)
	a := b & 0x7FFFFFFF
	switch {
	case a > 0x7F800000: // NaN
		return s | 0x7E00 | uint16(a>>13)&0x3FF
	case a >= 0x477FF000: // ≥ 65520 (max + half an ulp; max is odd) rounds to Inf
		return s | 0x7C00
	case a >= 0x38800000: // normal in f16
		r := a + 0xFFF + (a >> 13 & 1) // round to nearest even at bit 13
		return s | uint16((r-0x38000000)>>13)
	}
	// Subnormal or zero: scaled so the f16 quantum 2^-24 is 1 (exact), then
	// rounded to an integer.
	v := math.Float32frombits(a) * (1 << 24)
	return s | uint16(math.RoundToEven(float64(v)))
}

// F64ToF16 rounds a float64 to the nearest half, ties to even, in one step
// (through float32 would round twice).
func F64ToF16(x float64) uint16 {
	b := math.Float64bits(x)
	s := uint16(b >> 48 & 0x8000)
	a := b &^ (1 << 63)
	switch {
	case a > 0x7FF0000000000000: // NaN
		return s | 0x7E00 | uint16(a>>42)&0x3FF
	case a >= 0x40EFFE0000000000: // ≥ 65520 rounds to Inf
		return s | 0x7C00
	case a >= 0x3F10000000000000: // ≥ 2^-14: normal in f16
		r := a + (1<<41 - 1) + (a >> 42 & 1)
		return s | uint16((r-1008<<52)>>42)
	}
	return s | uint16(math.RoundToEven(math.Float64frombits(a)*(1<<24)))
}

// BF16ToF32 widens a bfloat16 (exact).
func BF16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// F32ToBF16 rounds a float32 to the nearest bfloat16, ties to even.
func F32ToBF16(x float32) uint16 {
	b := math.Float32bits(x)
	if b&0x7FFFFFFF > 0x7F800000 {
		return uint16(b>>16) | 0x40
	}
	return uint16((b + 0x7FFF + (b >> 16 & 1)) >> 16)
}

// F64ToBF16 rounds a float64 to the nearest bfloat16, ties to even, in one
// step.
func F64ToBF16(x float64) uint16 {
	b := math.Float64bits(x)
	s := uint16(b >> 48 & 0x8000)
	a := b &^ (1 << 63)
	switch {
	case a > 0x7FF0000000000000: // NaN
		return s | 0x7FC0 | uint16(a>>45)&0x7F
	case a >= 0x47EFF00000000000: // ≥ max + half an ulp rounds to Inf
		return s | 0x7F80
	case a >= 0x3810000000000000: // ≥ 2^-126: normal in bf16
		r := a + (1<<44 - 1) + (a >> 45 & 1)
		return s | uint16((r-896<<52)>>45)
	}
	return s | uint16(math.RoundToEven(math.Float64frombits(a)*0x1p133))
}
