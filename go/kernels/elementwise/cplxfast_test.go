package elementwise

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
)

// c64Specials are complex64 operands built from special parts: signed
// zeros, infinities, NaNs with distinct payloads and signs, subnormals,
// the extremes, and ordinary values.
func c64Specials() []complex64 {
	nan := math.Float32frombits(0x7fc00000)
	nanP := math.Float32frombits(0x7fc12345)
	nanN := math.Float32frombits(0xffc54321)
	inf := float32(math.Inf(1))
	parts := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 2, -0.5, 3.7, inf, -inf, nan, nanP, nanN,
		0x1p-149, -0x1p-149, 0x1p-127, 0x1p-126, 3e38, -3.4028235e38, 1e-40, 0x1p127, 0x1p-100}
	var out []complex64
	for _, re := range parts {
		for _, im := range parts {
			out = append(out, complex(re, im))
		}
	}
	return out
}

func randC64(r *rand.Rand, n int) []complex64 {
	out := make([]complex64, n)
	for i := range out {
		out[i] = complex(float32(r.NormFloat64()*math.Pow(10, float64(r.Intn(60)-30))), float32(r.NormFloat64()))
	}
	return out
}

func requireC64Bits(t *testing.T, want, got []complex64, what string, args ...any) {
	t.Helper()
	require.Equal(t, len(want), len(got))
	for i := range want {
		require.Equal(t, math.Float32bits(real(want[i])), math.Float32bits(real(got[i])), "%s [%d] got %v want %v %v", what, i, got[i], want[i], args)
		require.Equal(t, math.Float32bits(imag(want[i])), math.Float32bits(imag(got[i])), "%s [%d] got %v want %v %v", what, i, got[i], want[i], args)
	}
}

// Complex add and subtract run as float loops over the parts; they must
// give the operator's bits, NaN payloads and signed zeros included, for
// every length (vector body and tail) and in place.
func TestCplxAddSubMatchesOperator(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	sp := c64Specials()
	a := append(append([]complex64{}, sp...), randC64(r, 3001)...)
	b := append([]complex64{}, a...)
	r.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
	for _, name := range []string{"add", "subtract"} {
		k := binaryKern(name, ir.C64)
		for _, n := range []int{0, 1, 3, 7, 8, 17, len(a)} {
			want := make([]complex64, n)
			for i := range want {
				if name == "add" {
					want[i] = a[i] + b[i]
				} else {
					want[i] = a[i] - b[i]
				}
			}
			got := make([]complex64, n)
			k(byteview.Bytes(got), byteview.Bytes(a[:n]), byteview.Bytes(b[:n]), nil)
			requireC64Bits(t, want, got, name)
			inplace := append([]complex64{}, a[:n]...) // d aliases a
			k(byteview.Bytes(inplace), byteview.Bytes(inplace), byteview.Bytes(b[:n]), nil)
			requireC64Bits(t, want, inplace, name+" in place")
		}
	}
	// complex128 takes the float64 loop.
	a128 := []complex128{complex(math.Copysign(0, -1), math.NaN()), complex(math.Inf(1), 1), 1 + 2i, complex(5e-324, -0.0)}
	b128 := []complex128{0, complex(math.Inf(-1), math.Copysign(0, -1)), 3 - 1i, complex(-5e-324, 0)}
	for _, name := range []string{"add", "subtract"} {
		got := make([]complex128, len(a128))
		binaryKern(name, ir.C128)(byteview.Bytes(got), byteview.Bytes(a128), byteview.Bytes(b128), nil)
		for i := range got {
			want := a128[i] + b128[i]
			if name == "subtract" {
				want = a128[i] - b128[i]
			}
			require.Equal(t, math.Float64bits(real(want)), math.Float64bits(real(got[i])), name)
			require.Equal(t, math.Float64bits(imag(want)), math.Float64bits(imag(got[i])), name)
		}
	}
}

// The complex64 divide-by-scalar loop against the operator for divisors
// that take its float32 path (real powers of two with either zero sign,
// including the ends of the range) and ones that do not.
func TestCdivScalarC64MatchesOperator(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	a := append(append([]complex64{}, c64Specials()...), randC64(r, 2000)...)
	negz := float32(math.Copysign(0, -1))
	divs := []complex64{2, -2, complex(2, negz), complex(-2, negz), 0.5, 1, -1, 0x1p126, 0x1p-126, 0x1p127, -0x1p-127,
		0x1p-149, complex(4, 1e-45), 3, complex(0, 2), 0, complex(float32(math.Inf(1)), 0),
		complex(float32(math.NaN()), 0), 1 + 1i}
	for i := 0; i < 50; i++ {
		divs = append(divs, complex(float32(math.Ldexp(1, r.Intn(300)-150)), 0))
	}
	f, ok := binaryScalarLoop("divide", ir.C64, false)
	require.True(t, ok)
	for _, s := range divs {
		for _, n := range []int{0, 1, 65, len(a)} {
			want := make([]complex64, n)
			for i := range want {
				want[i] = a[i] / s
			}
			got := make([]complex64, n)
			f(byteview.Bytes(got), byteview.Bytes(a[:n]), byteview.Bytes([]complex64{s}))
			requireC64Bits(t, want, got, "divide", s)
			inplace := append([]complex64{}, a[:n]...)
			f(byteview.Bytes(inplace), byteview.Bytes(inplace), byteview.Bytes([]complex64{s}))
			requireC64Bits(t, want, inplace, "divide in place", s)
		}
	}
	_, ok = binaryScalarLoop("divide", ir.C64, true)
	require.False(t, ok, "scalar numerator has no such loop")
}

func BenchmarkCplxSymmetrizeC64(b *testing.B) {
	n := 1 << 16
	x, y, d := make([]complex64, n), make([]complex64, n), make([]complex64, n)
	for i := range x {
		x[i], y[i] = complex(float32(i), 1), complex(1, float32(i))
	}
	two := []complex64{2}
	b.Run("add-old", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			add(d, x, y)
		}
	})
	b.Run("add-new", func(b *testing.B) {
		k := binaryKern("add", ir.C64)
		for i := 0; i < b.N; i++ {
			k(byteview.Bytes(d), byteview.Bytes(x), byteview.Bytes(y), nil)
		}
	})
	b.Run("div2-old", func(b *testing.B) {
		y2 := make([]complex64, n)
		for i := range y2 {
			y2[i] = 2
		}
		for i := 0; i < b.N; i++ {
			cdiv(d, x, y2)
		}
	})
	b.Run("div2-new", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			cdivScalarC64(d, x, two[0])
		}
	})
}
