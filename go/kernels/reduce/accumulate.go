package reduce

// addAccF32 and addAccF64 are the dst[i] += src[i] kernels of float sums;
// useAccumulate (accumulate_amd64.go) swaps in AVX2 or AVX-512 versions.
var (
	addAccF32 = sumAcc[float32]
	addAccF64 = sumAcc[float64]
)

// floatSumAcc picks the accumulate kernel for A.
func floatSumAcc[A floatT]() func(dst, src []A) {
	var zero A
	switch any(zero).(type) {
	case float32:
		return any(addAccF32).(func(dst, src []A))
	case float64:
		return any(addAccF64).(func(dst, src []A))
	}
	return sumAcc[A]
}
