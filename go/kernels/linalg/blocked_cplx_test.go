package linalg

import (
	"math"
	"math/cmplx"
	"math/rand"
	"testing"
)

// TestGemmUpdComplexPlanes checks the complex gemmUpd (run as four real
// products from cplxGemmMin on) against the product summed term by term in
// complex128, for every conjugation, sign, the lower-triangle mode and
// strided (transposed) operands: each element within k·eps·Σ|a||b|.
func TestGemmUpdComplexPlanes(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	par := func(n, grain int, fn func(lo, hi int)) { fn(0, n) }
	for _, dims := range [][3]int{{3, 5, 4}, {17, 23, 31}, {40, 33, 70}, {130, 97, 65}} {
		for mode := 0; mode < 32; mode++ {
			m, n, k := dims[0], dims[1], dims[2]
			neg, ca, cb, lower, trans := mode&1 != 0, mode&2 != 0, mode&4 != 0, mode&8 != 0, mode&16 != 0
			if lower {
				n = m
			}
			lda := k + 3
			a := make([]complex128, m*lda+k*(m+2))
			for i := range a {
				a[i] = complex(r.NormFloat64(), r.NormFloat64())
			}
			ars, acs := lda, 1
			if trans {
				ars, acs = 1, m+2
			}
			ldb := n + 1
			b := make([]complex128, k*ldb)
			for i := range b {
				b[i] = complex(r.NormFloat64(), r.NormFloat64())
			}
			ldc := n + 2
			c := make([]complex128, m*ldc)
			for i := range c {
				c[i] = complex(r.NormFloat64(), r.NormFloat64())
			}
			want := append([]complex128(nil), c...)
			bound := make([]float64, len(c))
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					if lower && j > i {
						continue
					}
					var s complex128
					for p := 0; p < k; p++ {
						x, y := a[i*ars+p*acs], b[p*ldb+j]
						if ca {
							x = cmplx.Conj(x)
						}
						if cb {
							y = cmplx.Conj(y)
						}
						s += x * y
						bound[i*ldc+j] += cmplx.Abs(x) * cmplx.Abs(y)
					}
					if neg {
						s = -s
					}
					want[i*ldc+j] += s
				}
			}
			gemmUpd[complex128](par, m, n, k, neg, a, ars, acs, ca, b, ldb, 1, cb, c, ldc, lower)
			for i := range c {
				tol := 4 * float64(k+2) * 0x1p-52 * (bound[i] + cmplx.Abs(want[i]))
				if d := cmplx.Abs(c[i] - want[i]); d > tol || math.IsNaN(d) {
					t.Fatalf("m=%d n=%d k=%d mode=%05b: element %d = %v, want %v (|diff| %g > %g)", m, n, k, mode, i, c[i], want[i], d, tol)
				}
			}
		}
	}
}
