package reduce

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gojax/gojax/go/internal/cpufeat"

	"github.com/stretchr/testify/require"
)

func TestVectorAccumulateMatchesLoop(t *testing.T) {
	defer useAccumulate(cpufeat.Widest())
	for _, isa := range cpufeat.Sets() {
		useAccumulate(isa)
		testAccumulate(t, isa)
	}
}

func testAccumulate(t *testing.T, isa string) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 31, 32, 33, 63, 64, 65, 100, 1000, 4099} {
		d32, s32 := make([]float32, n), make([]float32, n)
		d64, s64 := make([]float64, n), make([]float64, n)
		for i := range n {
			d32[i], s32[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64()*1e3)
			d64[i], s64[i] = rng.NormFloat64(), rng.NormFloat64()*1e9
		}
		if n > 3 {
			s32[3], s64[3] = float32(math.NaN()), math.Inf(-1)
		}
		w32, w64 := append([]float32(nil), d32...), append([]float64(nil), d64...)
		sumAcc(w32, s32)
		sumAcc(w64, s64)
		floatSumAcc[float32]()(d32, s32)
		floatSumAcc[float64]()(d64, s64)
		for i := range n {
			require.Equal(t, math.Float32bits(w32[i]), math.Float32bits(d32[i]), "%q f32 n=%d i=%d", isa, n, i)
			require.Equal(t, math.Float64bits(w64[i]), math.Float64bits(d64[i]), "%q f64 n=%d i=%d", isa, n, i)
		}
	}
}

func BenchmarkAccumulateF32(b *testing.B) {
	d, s := make([]float32, 4096), make([]float32, 4096)
	acc := floatSumAcc[float32]()
	b.SetBytes(3 * 4 * 4096)
	for b.Loop() {
		acc(d, s)
	}
}

// addRowsF32 must give the bits of one sumAcc per row, in row order (after
// a copy of row 0 with set).
func TestVectorAddRowsMatchesLoop(t *testing.T) {
	defer useAccumulate(cpufeat.Widest())
	rng := rand.New(rand.NewPCG(5, 6))
	for _, isa := range cpufeat.Sets() {
		useAccumulate(isa)
		f := floatSumRows[float32]()
		if f == nil {
			continue
		}
		for _, n := range []int{1, 64, 127, 128, 129, 300, 4096} {
			for _, rows := range []int{1, 2, 7, 8, 9, 31} {
				stride := n + rng.IntN(3)*64
				src := make([]float32, (rows-1)*stride+n)
				for i := range src {
					src[i] = float32(rng.NormFloat64() * math.Exp2(float64(rng.IntN(30)-15)))
				}
				src[n/2] = float32(math.Inf(1))
				got, want := make([]float32, n), make([]float32, n)
				for _, set := range []bool{false, true} {
					for i := range got {
						got[i] = float32(rng.NormFloat64())
					}
					copy(want, got)
					r0 := 0
					if set {
						copy(want, src[:n])
						r0 = 1
					}
					for r := r0; r < rows; r++ {
						sumAcc(want, src[r*stride:r*stride+n])
					}
					f(got, src, stride, rows, set)
					for i := range n {
						require.Equal(t, math.Float32bits(want[i]), math.Float32bits(got[i]), "%q n=%d rows=%d set=%v i=%d", isa, n, rows, set, i)
					}
				}
			}
		}
	}
}
