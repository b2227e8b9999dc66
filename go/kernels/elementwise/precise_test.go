package elementwise

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// bigPow computes x^y for integer y exactly enough with math/big.
func ulps(got, want float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / (math.Nextafter(math.Abs(want), math.Inf(1)) - math.Abs(want))
}

func TestPow64Accuracy(t *testing.T) {
	cases := []struct{ x, y float64 }{{0.1, 100}, {1.0001, 12345}, {3, 40}, {0.999, -5000}, {7.5, 0.5}, {2, -1074}, {10, 308}, {1.5, 1700}}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		cases = append(cases, struct{ x, y float64 }{rng.Float64()*4 + 0.01, float64(rng.IntN(400) - 200)})
	}
	for _, c := range cases {
		// Reference with math/big for integer exponents: exact power, rounded once.
		yi, yf := math.Modf(c.y)
		got := pow64(c.x, c.y)
		if yf != 0 {
			require.InDelta(t, math.Pow(c.x, c.y), got, 2e-16*math.Abs(got), "%v^%v", c.x, c.y)
			continue
		}
		b := new(big.Float).SetPrec(4000).SetFloat64(c.x)
		r := new(big.Float).SetPrec(4000).SetInt64(1)
		n := int64(math.Abs(yi))
		for n > 0 {
			if n&1 != 0 {
				r.Mul(r, b)
			}
			b.Mul(b, b)
			n >>= 1
		}
		if yi < 0 {
			r.Quo(new(big.Float).SetPrec(4000).SetInt64(1), r)
		}
		want, _ := r.Float64()
		require.LessOrEqual(t, ulps(got, want), 1.0, "%v^%v = %v, want %v", c.x, c.y, got, want)
	}
	require.Equal(t, 1e40, pow64(10000, 10)) // reference interpreter's case
	require.Equal(t, -8.0, pow64(-2, 3))
	require.True(t, math.IsNaN(pow64(-2, 0.5)))
	require.Equal(t, math.Inf(1), pow64(10, 400))
	require.Equal(t, 0.0, pow64(10, -400))
	require.Equal(t, 1.0, pow64(nan64, 0))
}

func TestTrig64Accuracy(t *testing.T) {
	// sin(π) = π - fl(π) to first order: 1.2246467991473532e-16.
	require.Equal(t, 1.2246467991473532e-16, sin64(math.Pi))
	require.Equal(t, -1.2246467991473532e-16, tan64(math.Pi))
	require.Equal(t, 6.123233995736766e-17, cos64(math.Pi/2))
	for _, x := range []float64{0.5, 1, 2, 3, 10, 100, 1e4, 1e6, -7.25, 1e300, 710.5} {
		require.InDelta(t, math.Sin(x), sin64(x), 4e-16*math.Max(1e-300, math.Abs(math.Sin(x)))+1e-300, "sin %v", x)
		require.InDelta(t, math.Cos(x), cos64(x), 4e-16*math.Abs(math.Cos(x))+1e-300, "cos %v", x)
		require.InDelta(t, math.Tan(x), tan64(x), 8e-16*math.Abs(math.Tan(x))+1e-300, "tan %v", x)
	}
}
