//go:build amd64 && !purego

package linalg

import "github.com/gojax/gojax/go/internal/cpufeat"

//go:noescape
func rotAVX2(x, y *float64, n int, c, s float64)

// rot applies the plane rotation x, y := c·x − s·y, s·x + c·y to two
// equally long rows.
func rot(x, y []float64, c, s float64) {
	y = y[:len(x)]
	if cpufeat.AVX2FMA && len(x) >= 4 {
		rotAVX2(&x[0], &y[0], len(x), c, s)
		return
	}
	rotGo(x, y, c, s)
}
