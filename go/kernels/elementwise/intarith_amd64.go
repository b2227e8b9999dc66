//go:build amd64 && !purego

package elementwise

import "github.com/gojax/gojax/go/internal/cpufeat"

func init() { useIntArith(cpufeat.Widest()) }

// useIntArith selects the 32-bit integer vector loops by name; tests use it
// to run each.
func useIntArith(isa string) {
	switch isa {
	case "Z":
		isimd32, ilanes32 = &intArith32Z, 16
	case "Y":
		isimd32, ilanes32 = &intArith32Y, 8
	default:
		isimd32, ilanes32 = nil, 1
	}
}
