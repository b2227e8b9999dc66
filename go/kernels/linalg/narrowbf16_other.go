//go:build !amd64 || purego

package linalg

// narrowRowBF16 is fromF32 to bf16 on a typed row.
func narrowRowBF16(dst []uint16, src []float32) { narrowBF16Go(dst, src) }

func narrowBF16Flags() (v512, vAVX2 bool) { return false, false }

func setNarrowBF16Flags(v512, vAVX2 bool) {}
