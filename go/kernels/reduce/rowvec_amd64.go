//go:build amd64 && !purego

package reduce

import "github.com/gojax/gojax/go/internal/cpufeat"

//go:noescape
func sumLanes32Y(p *[32]float32, s *float32, n int)

//go:noescape
func sumLanes32Z(p *[32]float32, s *float32, n int)

//go:noescape
func maxLanes32Y(p *[32]float32, s *float32, n int) bool

//go:noescape
func maxLanes32Z(p *[32]float32, s *float32, n int) bool

func init() { useRowVec(rowVecBest()) }

// rowVecBest names the widest row kernels the CPU runs: "Z", "Y" or "".
func rowVecBest() string {
	switch {
	case cpufeat.AVX512:
		return "Z"
	case cpufeat.AVX2FMA:
		return "Y"
	}
	return ""
}

// useRowVec selects the row kernels; tests run each.
func useRowVec(isa string) {
	switch isa {
	case "Z":
		sumLanes32, maxLanes32 = sumLanes32Z, maxLanes32Z
	case "Y":
		sumLanes32, maxLanes32 = sumLanes32Y, maxLanes32Y
	default:
		sumLanes32, maxLanes32 = nil, nil
	}
}

func rowVecISAs() []string {
	l := []string{""}
	if cpufeat.AVX2FMA {
		l = append(l, "Y")
	}
	if cpufeat.AVX512 {
		l = append(l, "Z")
	}
	return l
}
