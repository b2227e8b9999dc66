//go:build amd64 && !purego

package elementwise

import "github.com/gojax/gojax/go/internal/cpufeat"

func init() { useArith(arithBest()) }

// arithBest names the widest vector loops the CPU supports: "Z" (AVX-512),
// "Y" (AVX2) or "" (Go only).
func arithBest() string {
	switch {
	case cpufeat.AVX512:
		return "Z"
	case cpufeat.AVX2FMA:
		return "Y"
	}
	return ""
}

// useArith selects the vector loops by name; tests use it to run each.
func useArith(isa string) {
	switch isa {
	case "Z":
		simd32, simd64, lanes32, lanes64 = &arith32Z, &arith64Z, 16, 8
	case "Y":
		simd32, simd64, lanes32, lanes64 = &arith32Y, &arith64Y, 8, 4
	default:
		simd32, simd64, lanes32, lanes64 = nil, nil, 1, 1
	}
}

// arithISAs lists the loop sets this CPU can run, Go first.
func arithISAs() []string {
	l := []string{""}
	if cpufeat.AVX2FMA {
		l = append(l, "Y")
	}
	if cpufeat.AVX512 {
		l = append(l, "Z")
	}
	return l
}
