//go:build amd64 && !purego

package reduce

import "github.com/gojax/gojax/go/internal/cpufeat"

//go:generate go run gen_rowvec.go

//go:noescape
func sumLanes32Y(s *float32, n int, tail *[64]float32) float32

//go:noescape
func sumLanes32Z(s *float32, n int, tail *[64]float32) float32

//go:noescape
func maxLanes32Y(s *float32, n int) (m float32, nan bool)

//go:noescape
func maxLanes32Z(s *float32, n int) (m float32, nan bool)

func init() { useRowVec(cpufeat.Widest()) }

// useRowVec selects the row kernels; tests run each.
func useRowVec(isa string) {
	switch isa {
	case "Z":
		rowISA = 2
	case "Y":
		rowISA = 1
	default:
		rowISA = 0
	}
}
