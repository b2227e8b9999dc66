package linalg

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// The complex64 SVD through gebrdC64 (complex64 working matrix between
// panels) at sizes that leave one, several and partial panels before
// gebd2, tall, wide and square: residual ‖A − U·S·Vᴴ‖ and orthogonality
// within TestSvdKnownValues' single-precision bound, singular values
// against a complex128 SVD of the same input.
func TestSvdC64BlockedBrd(t *testing.T) {
	r := rand.New(rand.NewSource(41))
	for _, mn := range [][2]int{{97, 97}, {131, 131}, {200, 130}, {130, 200}, {300, 97}, {256, 256}} {
		m, n := mn[0], mn[1]
		t.Run(fmt.Sprintf("%dx%d", m, n), func(t *testing.T) {
			k := min(m, n)
			a := fromC64s(toC64s(randMat(r, m*n, true)))
			s, u, vt := make([]float64, k), make([]complex128, m*k), make([]complex128, k*n)
			require.True(t, svdVectors(testPar(), m, n, k, append([]complex128(nil), a...), s, u, k, vt, k, true))
			s64, u64, vt64 := make([]float64, k), make([]complex128, m*k), make([]complex128, k*n)
			require.True(t, svdVectors(testPar(), m, n, k, append([]complex128(nil), a...), s64, u64, k, vt64, k, false))
			tol := 8 * float64(max(m, n)) * 0x1p-23
			smax := s64[0]
			for i := range s {
				require.LessOrEqual(t, math.Abs(s[i]-s64[i]), tol*smax, "value %d", i)
			}
			orthU := maxAbsDiff(matMul(adjoint(u, m, k), k, m, u, k), eye(k))
			orthV := maxAbsDiff(matMul(vt, k, n, adjoint(vt, k, n), k), eye(k))
			require.Less(t, orthU, tol)
			require.Less(t, orthV, tol)
			us := make([]complex128, m*k)
			an := make([]complex128, m*n)
			for i := 0; i < m; i++ {
				for j := 0; j < k; j++ {
					us[i*k+j] = u[i*k+j] * complex(s[j]/smax, 0)
				}
				for j := 0; j < n; j++ {
					an[i*n+j] = a[i*n+j] / complex(smax, 0)
				}
			}
			res := maxAbsDiff(matMul(us, m, k, vt, n), an)
			require.Less(t, res, tol)
			t.Logf("residual %.3g, orthogonality %.3g %.3g (bound %.3g)", res, orthU, orthV, tol)
		})
	}
}

// axpy4x2F64 against float64 sums with the bound of a four-term sum's
// roundings, every tail length, rows strided past their used length.
func TestAxpy4x2F64(t *testing.T) {
	r := rand.New(rand.NewSource(43))
	for _, n := range []int{0, 1, 3, 4, 5, 7, 8, 9, 17, 64, 203} {
		ldx := n + 3
		x := make([]float64, 3*ldx+n+1)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		p, q := make([]float64, n), make([]float64, n)
		for i := range p {
			p[i], q[i] = r.NormFloat64(), r.NormFloat64()
		}
		var c [8]float64
		for k := range c {
			c[k] = r.NormFloat64()
		}
		p0, q0 := append([]float64(nil), p...), append([]float64(nil), q...)
		if n > 0 {
			axpy4x2F64(p, q, x, ldx, &c)
		}
		for i := 0; i < n; i++ {
			for h, out := range [][2][]float64{{p, p0}, {q, q0}} {
				want, mag := out[1][i], math.Abs(out[1][i])
				for k := 0; k < 4; k++ {
					v := c[4*h+k] * x[k*ldx+i]
					want += v
					mag += math.Abs(v)
				}
				require.InDelta(t, want, out[0][i], 6*eps64*mag, "n=%d i=%d", n, i)
			}
		}
	}
}

// copyC32 (test helper) fills a32 with the m×n complex matrix a rounded to complex64 and
// at32 with its conjugate transpose, in 16×16 tiles.
func copyC32[T scalar](m, n int, a []T, lda int, a32, at32 []float32) {
	const tb = 16
	for r0 := 0; r0 < m; r0 += tb {
		r1 := min(m, r0+tb)
		for c0 := 0; c0 < n; c0 += tb {
			c1 := min(n, c0+tb)
			for r := r0; r < r1; r++ {
				for c, v := range a[r*lda+c0 : r*lda+c1] {
					c += c0
					vr, vi := float32(re(v)), float32(im(v))
					a32[2*(r*n+c)], a32[2*(r*n+c)+1] = vr, vi
					at32[2*(c*m+r)], at32[2*(c*m+r)+1] = vr, -vi
				}
			}
		}
	}
}
