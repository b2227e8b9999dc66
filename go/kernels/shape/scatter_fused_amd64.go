//go:build amd64 && !purego

package shape

import "github.com/gojax/gojax/go/internal/cpufeat"

//go:noescape
func maxPointsF32Z(d, s *float32, ix *int32, n, lim int) int

//go:noescape
func minPointsF32Z(d, s *float32, ix *int32, n, lim int) int

// vectorPointsF32 is whether pointsF32Vec runs the vector loops; tests turn
// it off to run the Go loops.
var vectorPointsF32 = cpufeat.Widest() == "Z"

// pointsF32Vec combines the leading whole blocks of 16 updates s[j] into
// d[ix[j]] (max, or min when isMin) up to the first block holding an index
// outside [0, len(d)), and returns how many it combined. len(s) >= len(ix).
func pointsF32Vec(d, s []float32, ix []int32, isMin bool) int {
	n := len(ix) &^ 15
	if !vectorPointsF32 || n == 0 || len(d) == 0 || len(d) > 1<<31-1 {
		return 0
	}
	_ = s[n-1]
	if isMin {
		return minPointsF32Z(&d[0], &s[0], &ix[0], n, len(d))
	}
	return maxPointsF32Z(&d[0], &s[0], &ix[0], n, len(d))
}
