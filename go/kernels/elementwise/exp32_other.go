//go:build !amd64 || purego

package elementwise

func exp32x8(dst, src []float32) {
	for i, x := range src {
		dst[i] = expPoly(x)
	}
}

func exp32x16(dst, src []float32) { exp32x8(dst, src) }
