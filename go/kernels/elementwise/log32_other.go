//go:build !amd64 || purego

package elementwise

func log32Vec(d, a []float32, c *logVecConsts, plusOne bool) int { return 0 }
