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

// addRowsF32, when not nil, adds rows src[r*stride:][:len(dst)] for r in
// [0, rows) into dst, one row after another (the same additions as calling
// addAccF32 per row), keeping a block of dst in registers across the rows
// instead of loading and storing it once per row. With set, dst starts as
// row 0 instead (as a copy of it would, without the copy's pass over dst).
var addRowsF32 func(dst, src []float32, stride, rows int, set bool)

// floatSumRows returns addRowsF32 for float32 (nil when there is none).
func floatSumRows[A any]() func(dst, src []A, stride, rows int, set bool) {
	if f, ok := any(addRowsF32).(func(dst, src []A, stride, rows int, set bool)); ok && f != nil {
		return f
	}
	return nil
}
