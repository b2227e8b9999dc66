//go:build !amd64 || purego

package elementwise

import "unsafe"

func tanh32x8(dst, src []float32, aff *[2]float32, w *float32, epi int) {
	var ws []float32
	if w != nil {
		ws = unsafe.Slice(w, len(src))
	}
	tanh32Go(dst[:len(src)], src, aff, ws, epi)
}

func tanh32x16(dst, src []float32, aff *[2]float32, w *float32, epi int) {
	tanh32x8(dst, src, aff, w, epi)
}
