package elementwise

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/stretchr/testify/require"
)

// Expected values are what XLA:CPU (jaxlib 0.12.0.1) returns for the same
// inputs; NaN parts are compared as NaN.
func TestComplexPowFollowsXLAAtSpecialValues(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	cases := []struct{ x, y, want complex128 }{
		{complex(inf, 0), 0.5, complex(inf, 0)},
		{complex(inf, math.Copysign(0, -1)), 0.5, complex(inf, 0)},
		{complex(inf, 0), -0.5, 0},
		{complex(inf, 1), 0.5, complex(nan, nan)},
		{complex(-1, inf), 0.5, complex(nan, nan)},
		{complex(0, inf), 0.5, complex(nan, nan)},
		{complex(-inf, 0), 0.5, complex(nan, nan)},
		{complex(nan, 0), 0.5, complex(nan, nan)},
		{0, -0.5, complex(nan, nan)},
		{0, complex(0.5, 1), complex(nan, nan)},
		{0, 0.5, 0},
		{complex(nan, inf), 0, 1},
		{1, complex(nan, 1), 1},
	}
	for _, c := range cases {
		got := cpow(c.x, c.y)
		for _, p := range [][2]float64{{real(got), real(c.want)}, {imag(got), imag(c.want)}} {
			if math.IsNaN(p[1]) {
				require.Truef(t, math.IsNaN(p[0]), "pow(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
			} else {
				require.Equalf(t, p[1], p[0], "pow(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
			}
		}
	}
}

// At finite, nonzero inputs the expansion agrees with the polar form.
func TestComplexPowFiniteAgreesWithPolarForm(t *testing.T) {
	for _, x := range []complex128{complex(-2, 0), complex(0.5, -1), complex(3, 4), complex(-1e-3, 7)} {
		for _, y := range []complex128{0.5, -1.5, complex(0.25, 2), complex(-3, -0.5)} {
			want := cmplx.Pow(x, y)
			require.InDeltaf(t, 0, cmplx.Abs(cpow(x, y)-want)/cmplx.Abs(want), 1e-13, "pow(%v, %v)", x, y)
		}
	}
}
