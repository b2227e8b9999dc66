package elementwise

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// cdiv against the division operator, bit for bit, over special values
// (signed zeros, infinities, NaN, tiny and huge magnitudes) and random
// operands, for both complex types.
func TestCdivMatchesOperator(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	parts := []float64{0x1p-1022, 0x1p1023, 0x1p-1021, 0x1p1022, 0.25, -8, 0x1p-1023, 0x1p-149, 0x1p127, 0x1p-126, 0x1p-127, 0, math.Copysign(0, -1), 1, -1, 2, -0.5, 3.7, inf, -inf, nan, 1e-300, -1e300, 5e-324, 1e-40, 3e38, -7e-39}
	var ns, ms []complex128
	for _, re := range parts {
		for _, im := range parts {
			ns = append(ns, complex(re, im))
		}
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 4000; i++ {
		ns = append(ns, complex(r.NormFloat64()*math.Pow(10, float64(r.Intn(20)-10)), r.NormFloat64()))
	}
	for i := 0; i < 2000; i++ { // real powers of two
		ns = append(ns, complex(math.Ldexp(1, r.Intn(2200)-1100), math.Copysign(0, float64(r.Intn(2))-0.5)))
	}
	ms = append(ms, ns...)
	r.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	var a, b []complex128
	for i, n := range ns {
		a = append(a, n, n)
		b = append(b, ms[i], ns[(i*7)%len(ns)])
	}
	d := make([]complex128, len(a))
	cdiv(d, a, b)
	for i := range d {
		want := a[i] / b[i]
		require.Equal(t, math.Float64bits(real(want)), math.Float64bits(real(d[i])), "%v / %v: %v, want %v", a[i], b[i], d[i], want)
		require.Equal(t, math.Float64bits(imag(want)), math.Float64bits(imag(d[i])), "%v / %v: %v, want %v", a[i], b[i], d[i], want)
	}
	a64, b64 := make([]complex64, len(a)), make([]complex64, len(b))
	for i := range a {
		a64[i], b64[i] = complex64(a[i]), complex64(b[i])
	}
	d64 := make([]complex64, len(a))
	cdiv(d64, a64, b64)
	for i := range d64 {
		want := a64[i] / b64[i]
		require.Equal(t, math.Float32bits(real(want)), math.Float32bits(real(d64[i])), "%v / %v: %v, want %v", a64[i], b64[i], d64[i], want)
		require.Equal(t, math.Float32bits(imag(want)), math.Float32bits(imag(d64[i])), "%v / %v: %v, want %v", a64[i], b64[i], d64[i], want)
	}
	cdiv(d64[:0], a64, b64) // empty
}

func BenchmarkCdivC64(b *testing.B) {
	n := 1 << 16
	x, y, d := make([]complex64, n), make([]complex64, n), make([]complex64, n)
	for i := range x {
		x[i], y[i] = complex(float32(i), 1), 2
	}
	b.Run("cdiv", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			cdiv(d, x, y)
		}
	})
	b.Run("operator", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			fdiv(d, x, y)
		}
	})
}
