//go:build !amd64 || purego

package linalg

var packTransOK = false

func packA14Trans[T float32 | float64](pan, a []T, offs *[14]int, k int) int { return 0 }

func packBTrans32[T float32 | float64](pan, b []T, cols []int, c0, k int) int { return 0 }

func packAPairs14Trans(pan []uint32, a []uint16, offs *[14]int, kq int) int { return 0 }

func packA14RowsF32(pan, a []float32, offs *[14]int, k int) bool { return false }

func packBPairsVec(dst []uint32, b []uint16, ks, cols []int, nr int, unit bool, kpad int) int {
	return 0
}
