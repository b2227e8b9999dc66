//go:build !amd64 || purego

package elementwise

func tanh32x8(dst, src []float32, aff *[2]float32) { tanh32Go(dst[:len(src)], src, aff) }

func tanh32x16(dst, src []float32, aff *[2]float32) { tanh32x8(dst, src, aff) }
