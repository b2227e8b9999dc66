//go:build !amd64 || purego

package shape

var vectorTakeFill = false

func takeFill32Vec(_, _ []uint32, _ []int32, _ int64, _ uint32, _ []uint32) int { return 0 }
