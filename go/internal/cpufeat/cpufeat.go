// Package cpufeat reports, once at start, which vector instruction sets the
// CPU and the OS support, for kernels that pick an assembly path at run time.
//
// GOJAX_VECTOR (package config, read once at load) caps the sets kernels
// may use, so every code path can be run on one machine: "auto" (the
// default: whatever the CPU has, AMX tiles included), "avx512" (AVX-512
// and its extensions, no AMX tiles), "avx2" (AVX2 + FMA, no AVX-512) or
// "none" (plain Go everywhere). It never enables a set the CPU
// lacks. Package config rejects any other value (import gojax and client
// creation report it).
package cpufeat

import (
	"fmt"

	"github.com/gojax/gojax/go/config"
)

// EnvVector names the environment variable that caps the vector sets.
const EnvVector = "GOJAX_VECTOR"

// Limit is the widest set GOJAX_VECTOR allows: "T", "Z", "Y" or "" (see
// limits).
var Limit = limits[config.Env().Vector]

// Detected* say what the CPU and OS support, whatever the limit.
var (
	DetectedAVX2FMA    = detectAVX2FMA()
	DetectedAVX512     = DetectedAVX2FMA && detectAVX512()
	DetectedAVX512BF16 = DetectedAVX512 && detectAVX512BF16()
	DetectedAVX512VNNI = DetectedAVX512 && detectAVX512VNNI()
	DetectedF16C       = DetectedAVX2FMA && detectF16C()
	DetectedAMXBF16    = DetectedAVX512BF16 && detectAMXBF16()
)

// AVX2FMA is true when AVX2 and FMA are available, the OS saves the YMM
// registers and GOJAX_VECTOR allows them. It is false under the purego
// build tag and on other architectures, where kernels use their plain-Go
// code.
var AVX2FMA = DetectedAVX2FMA && Limit != ""

// AVX512 is true when AVX2FMA holds, the CPU has AVX-512 F, BW, DQ and VL,
// the OS saves the opmask and all 32 ZMM registers (XCR0 bits 5-7) and
// GOJAX_VECTOR allows it.
var AVX512 = AVX2FMA && DetectedAVX512 && (Limit == "Z" || Limit == "T")

// AVX512BF16 is true when AVX512 holds and the CPU has the AVX512_BF16
// dot-product and conversion instructions (VDPBF16PS, VCVTNE2PS2BF16).
var AVX512BF16 = AVX512 && DetectedAVX512BF16

// AVX512VNNI is true when AVX512 holds and the CPU has the AVX512_VNNI
// integer dot products (VPDPBUSD: u8·s8 quads summed into int32).
var AVX512VNNI = AVX512 && DetectedAVX512VNNI

// AMXBF16 is true when AVX512BF16 holds, the CPU has the AMX tile and
// bf16 tile dot-product instructions, the OS saves tile state (XCR0 bits
// 17-18), GOJAX_VECTOR allows tiles ("auto") and Linux granted this
// process the tile data state (arch_prctl ARCH_REQ_XCOMP_PERM, asked for
// here once, only on such CPUs: without it the first tile instruction
// kills the process).
var AMXBF16 = AVX512BF16 && DetectedAMXBF16 && Limit == "T" && requestAMX()

// F16C is true when AVX2FMA holds and the CPU has the F16C half-precision
// conversions (VCVTPH2PS, VCVTPS2PH) on YMM registers; AVX-512 F has them
// on ZMM registers.
var F16C = AVX2FMA && DetectedF16C

// limits maps each GOJAX_VECTOR value (as package config returns it) to the
// widest set it allows.
// "T" is AVX-512 plus the AMX tiles, which only kernels with a tile path
// use; everything else treats it as "Z".
var limits = map[string]string{"auto": "T", "avx512": "Z", "avx2": "Y", "none": ""}

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

// Describe names the sets in use and the limit, for build and debug
// reports.
func Describe() string {
	names := map[string]string{"Z": "avx512", "Y": "avx2", "": "none"}
	s := names[Widest()]
	if AVX512BF16 {
		s += "+bf16"
	}
	if AVX512VNNI {
		s += "+vnni"
	}
	if AMXBF16 {
		s += "+amx-bf16"
	}
	limit := names[Limit]
	if Limit == "T" {
		limit = "auto"
	}
	return fmt.Sprintf("%s (%s=%s)", s, EnvVector, limit)
}
