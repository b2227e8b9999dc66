//go:build amd64 && !purego

package elementwise

import "github.com/gojax/gojax/go/internal/cpufeat"

func init() { useArith(cpufeat.Widest()) }

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
