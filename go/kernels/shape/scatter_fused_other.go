//go:build !amd64 || purego

package shape

var vectorPointsF32 = false

func pointsF32Vec(_, _ []float32, _ []int32, _ bool) int { return 0 }
