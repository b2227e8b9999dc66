//go:build !amd64 || purego

package elementwise

func tanh32x8(dst, src []float32) {
	for i, x := range src {
		dst[i] = tanhRational(x)
	}
}

func tanh32x16(dst, src []float32) { tanh32x8(dst, src) }
