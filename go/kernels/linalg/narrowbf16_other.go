//go:build !amd64 || purego

package linalg

// narrowRowBF16 is fromF32 to bf16 on a typed row.
func narrowRowBF16(dst []uint16, src []float32) { narrowBF16Go(dst, src) }

// No vector narrowing here (narrowbf16_amd64.go); tests set these.
var narrowBF16OK512, narrowBF16OK2 = false, false
