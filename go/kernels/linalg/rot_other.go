//go:build !amd64 || purego

package linalg

// rot applies the plane rotation x, y := c·x − s·y, s·x + c·y to two
// equally long rows.
func rot(x, y []float64, c, s float64) { rotGo(x, y, c, s) }
