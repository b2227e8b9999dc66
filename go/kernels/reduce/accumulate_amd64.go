//go:build amd64 && !purego

package reduce

import "github.com/gojax/gojax/go/internal/cpufeat"

//go:generate go run gen_accumulate.go

//go:noescape
func addAccF32Asm(dst, src []float32)

//go:noescape
func addAccF64Asm(dst, src []float64)

//go:noescape
func addAccF32Z(dst, src []float32)

//go:noescape
func addAccF64Z(dst, src []float64)

//go:noescape
func addRowsF32Z(dst, src *float32, n, stride, rows int, set bool)

//go:noescape
func addRowsF32Y(dst, src *float32, n, stride, rows int, set bool)

// rowGroup is how many rows addRowsF32Z/Y add per pass over a dst block: few
// enough input streams at once for the prefetchers to follow.
const rowGroup = 8

func init() { useAccumulate(cpufeat.Widest()) }

// useAccumulate selects the vector dst[i] += src[i] (sums along a leading
// axis) for a cpufeat set; tests run each. Every element gets the same
// single IEEE addition as in sumAcc, so results are identical to the Go
// loop whatever the width or the split.
func useAccumulate(isa string) {
	addAccF32, addAccF64, addRowsF32 = sumAcc[float32], sumAcc[float64], nil
	switch isa {
	case "Z":
		addRowsF32 = addRowsZ
		addAccF32, addAccF64 = vecAcc(addAccF32Z, 64), vecAcc(addAccF64Z, 32)
	case "Y":
		addRowsF32 = addRowsY
		addAccF32, addAccF64 = vecAcc(addAccF32Asm, 32), vecAcc(addAccF64Asm, 16)
	}
}

// vecAcc runs kernel over the whole blocks of block elements (a power of
// two) and sumAcc over the rest.
func vecAcc[T float32 | float64](kernel func(dst, src []T), block int) func(dst, src []T) {
	return func(dst, src []T) {
		src = src[:len(dst)]
		n := len(dst) &^ (block - 1)
		kernel(dst[:n], src[:n])
		sumAcc(dst[n:], src[n:])
	}
}

// addRowsZ and addRowsY run the kernel over the columns that fill whole
// blocks (128 floats for AVX-512, 64 for AVX2), rowGroup rows per pass, and
// addAccF32 per row over the rest.
func addRowsZ(dst, src []float32, stride, rows int, set bool) {
	addRows(addRowsF32Z, 127, dst, src, stride, rows, set)
}
func addRowsY(dst, src []float32, stride, rows int, set bool) {
	addRows(addRowsF32Y, 63, dst, src, stride, rows, set)
}

func addRows(kernel func(dst, src *float32, n, stride, rows int, set bool), mask int, dst, src []float32, stride, rows int, set bool) {
	if rows <= 0 || len(dst) == 0 {
		return
	}
	_ = src[(rows-1)*stride+len(dst)-1]
	n := len(dst) &^ mask
	for r := 0; r < rows; r += rowGroup {
		g := min(rowGroup, rows-r)
		first := set && r == 0
		if n > 0 {
			kernel(&dst[0], &src[r*stride], n, stride, g, first)
		}
		i := r
		if first && n < len(dst) {
			copy(dst[n:], src[n:len(dst)])
			i++
		}
		for ; i < r+g && n < len(dst); i++ {
			addAccF32(dst[n:], src[i*stride+n:i*stride+len(dst)])
		}
	}
}
