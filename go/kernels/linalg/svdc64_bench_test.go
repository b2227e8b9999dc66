package linalg

import (
	"math/rand"
	"testing"
)

// BenchmarkSvdC64 times the complex64 SVD with vectors at 256×256 (the
// complex128 working copy the custom call makes, rotations in float32).
func BenchmarkSvdC64(b *testing.B) {
	const n = 256
	r := rand.New(rand.NewSource(1))
	a := fromC64s(toC64s(randMat(r, n*n, true)))
	x := make([]complex128, n*n)
	s := make([]float64, n)
	u := make([]complex128, n*n)
	vt := make([]complex128, n*n)
	c0 := processCPU()
	defer func() { b.ReportMetric(float64((processCPU()-c0).Microseconds())/1e3/float64(b.N), "cpu-ms/op") }()
	for i := 0; i < b.N; i++ {
		copy(x, a)
		svdVectors(testPar(), n, n, n, x, s, u, n, vt, n, true)
	}
}

func BenchmarkPotrfC64(b *testing.B) {
	const n = 256
	r := rand.New(rand.NewSource(1))
	a := toC64s(hpd(r, n, true))
	x := make([]complex64, n*n)
	c0 := processCPU()
	defer func() { b.ReportMetric(float64((processCPU()-c0).Microseconds())/1e3/float64(b.N), "cpu-ms/op") }()
	for i := 0; i < b.N; i++ {
		copy(x, a)
		potrfBlockedS(testPar(), x, n, n)
	}
}
