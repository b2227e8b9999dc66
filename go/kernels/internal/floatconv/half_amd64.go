//go:build amd64 && !purego

package floatconv

import "github.com/gojax/gojax/go/internal/cpufeat"

// The loops of half_amd64.s (gen_half.go) convert len(src) elements, a
// multiple of 16 (x16, AVX-512) or 8 (x8, AVX2; the f16 ones need F16C);
// dst is at least as long.

//go:noescape
func f16ToF32x16(dst []float32, src []uint16)

//go:noescape
func f16ToF32x8(dst []float32, src []uint16)

//go:noescape
func f32ToF16x16(dst []uint16, src []float32)

//go:noescape
func f32ToF16x8(dst []uint16, src []float32)

//go:noescape
func bf16ToF32x16(dst []float32, src []uint16)

//go:noescape
func bf16ToF32x8(dst []float32, src []uint16)

//go:noescape
func f32ToBF16x16(dst []uint16, src []float32)

//go:noescape
func f32ToBF16x8(dst []uint16, src []float32)

// lanes is the vector length of set ("Z" 16, "Y" 8), 0 for plain Go; f16
// needs F16C on AVX2. The callers have made len(dst) == len(src).
func lanes(set string, f16 bool) int {
	switch {
	case set == "Z":
		return 16
	case set == "Y" && (!f16 || cpufeat.F16C):
		return 8
	}
	return 0
}

// vecF16ToF32 and the three others convert the longest prefix of whole
// vectors and return its length.
func vecF16ToF32(set string, dst []float32, src []uint16) int {
	switch l := lanes(set, true); l {
	case 16:
		n := len(src) &^ 15
		f16ToF32x16(dst[:n], src[:n])
		return n
	case 8:
		n := len(src) &^ 7
		f16ToF32x8(dst[:n], src[:n])
		return n
	}
	return 0
}

func vecF32ToF16(set string, dst []uint16, src []float32) int {
	switch l := lanes(set, true); l {
	case 16:
		n := len(src) &^ 15
		f32ToF16x16(dst[:n], src[:n])
		return n
	case 8:
		n := len(src) &^ 7
		f32ToF16x8(dst[:n], src[:n])
		return n
	}
	return 0
}

func vecBF16ToF32(set string, dst []float32, src []uint16) int {
	switch l := lanes(set, false); l {
	case 16:
		n := len(src) &^ 15
		bf16ToF32x16(dst[:n], src[:n])
		return n
	case 8:
		n := len(src) &^ 7
		bf16ToF32x8(dst[:n], src[:n])
		return n
	}
	return 0
}

func vecF32ToBF16(set string, dst []uint16, src []float32) int {
	switch l := lanes(set, false); l {
	case 16:
		n := len(src) &^ 15
		f32ToBF16x16(dst[:n], src[:n])
		return n
	case 8:
		n := len(src) &^ 7
		f32ToBF16x8(dst[:n], src[:n])
		return n
	}
	return 0
}
