// Package cpufeat reports, once at start, which vector instruction sets the
// CPU and the OS support, for kernels that pick an assembly path at run time.
package cpufeat

// AVX2FMA is true when AVX2 and FMA are available and the OS saves the YMM
// registers. It is false under the purego build tag and on other
// architectures, where kernels use their plain-Go code.
var AVX2FMA = detectAVX2FMA()

// AVX512 is true when AVX2FMA holds, the CPU has AVX-512 F, BW, DQ and VL,
// and the OS saves the opmask and all 32 ZMM registers (XCR0 bits 5-7).
var AVX512 = AVX2FMA && detectAVX512()

// AVX512BF16 is true when AVX512 holds and the CPU has the AVX512_BF16
// dot-product and conversion instructions (VDPBF16PS, VCVTNE2PS2BF16).
var AVX512BF16 = AVX512 && detectAVX512BF16()

// Vector instruction sets by the short names kernels select them with:
// "Z" (AVX-512), "Y" (AVX2 + FMA) and "" (plain Go).

// Widest names the widest set this CPU runs.
func Widest() string {
	switch {
	case AVX512:
		return "Z"
	case AVX2FMA:
		return "Y"
	}
	return ""
}

// Sets lists every set this CPU runs, plain Go first, so tests can run each
// kernel variant.
func Sets() []string {
	l := []string{""}
	if AVX2FMA {
		l = append(l, "Y")
	}
	if AVX512 {
		l = append(l, "Z")
	}
	return l
}
