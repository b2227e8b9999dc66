package elementwise

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/gojax/gojax/go/internal/cpufeat"
	"github.com/stretchr/testify/require"
)

func TestTanhRationalAccuracy(t *testing.T) {
	worst, exact, n := int64(0), 0, 0
	for b := uint32(0); b < 0x7f800000; b += 37 {
		for _, x := range []float32{math.Float32frombits(b), -math.Float32frombits(b)} {
			u := f32ULPs(tanhRational(x), float32(math.Tanh(float64(x))))
			worst = max(worst, u)
			if u == 0 {
				exact++
			}
			n++
		}
	}
	require.LessOrEqual(t, worst, int64(6))
	require.Greater(t, float64(exact)/float64(n), 0.95)
	for _, x := range []float32{0, negz32, inf32, -inf32, 1e-30, -1e-30, 1e-40, 7.9, 8, 1e30} {
		got, want := tanhRational(x), float32(math.Tanh(float64(x)))
		require.LessOrEqualf(t, f32ULPs(got, want), int64(6), "tanh(%v) = %v, want %v", x, got, want)
	}
	require.True(t, math.Signbit(float64(tanhRational(negz32))), "tanh(-0) = -0")
	require.True(t, tanhRational(nan32) != tanhRational(nan32))
}

// The vector kernel and the scalar one agree bit for bit, so a result does
// not depend on how the work was split between threads.
func TestTanhVectorMatchesScalar(t *testing.T) {
	if !cpufeat.AVX2FMA {
		t.Log("no AVX2: the vector path is the scalar one")
	}
	var src []float32
	for b := uint32(0); b < 0xff800000; b += 4099 {
		src = append(src, math.Float32frombits(b))
	}
	src = append(src, 0, negz32, inf32, -inf32, nan32, 3e-4, -3e-4, 4e-4, 7.905311, -7.905311)
	for len(src)%8 != 3 {
		src = append(src, 0.5)
	}
	got := make([]float32, len(src))
	ftanh32(got, src)
	for i, x := range src {
		want := tanhRational(x)
		require.Truef(t, math.Float32bits(got[i]) == math.Float32bits(want) || (got[i] != got[i] && want != want),
			"tanh(%v): vector %v, scalar %v", x, got[i], want)
	}
}

func BenchmarkTanh32(b *testing.B) {
	src := make([]float32, 1<<16)
	for i := range src {
		src[i] = float32(i-1<<15) / 4096
	}
	dst := make([]float32, len(src))
	b.SetBytes(int64(4 * len(src)))
	for b.Loop() {
		ftanh32(dst, src)
	}
}

// fma32 rounds the exact x*y+z once, checked against big.Float on operands
// whose exponents are close (exact float64 sums) and far apart (where a
// plain float64 sum would round twice).
func TestFMA32Exact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	f := func() float32 {
		m := float32(r.Uint32()>>8|1<<23) / (1 << 23)
		if r.IntN(2) == 0 {
			m = -m
		}
		return float32(math.Ldexp(float64(m), r.IntN(80)-40))
	}
	for range 200000 {
		x, y, z := f(), f(), f()
		if r.IntN(4) == 0 {
			// z just below a float32 midpoint of x*y: the double-rounding case.
			z = float32(math.Ldexp(float64(z), -30))
		}
		bx, by, bz := big.NewFloat(float64(x)), big.NewFloat(float64(y)), big.NewFloat(float64(z))
		exact := new(big.Float).SetPrec(300).Mul(bx, by)
		exact.Add(exact, bz)
		want, _ := exact.Float32()
		got := fma32(x, y, z)
		require.Truef(t, math.Float32bits(got) == math.Float32bits(want), "fma32(%g, %g, %g) = %g, want %g", x, y, z, got, want)
	}
	require.Equal(t, float32(1), fma32(1, 1, 0))
	require.True(t, math.IsInf(float64(fma32(inf32, 2, 1)), 1))
	require.True(t, fma32(inf32, 0, 1) != fma32(inf32, 0, 1))
}
