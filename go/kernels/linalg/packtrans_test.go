package linalg

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// packB of a transposed B (columns contiguous in k, as dy·Wᵀ has) must
// give the plain definition pan[p*nr+j] = B[ks[p]][cols[j]], zero-padded,
// with and without the AVX-512 transpose, for both element types.
func TestPackBTransposedMatchesDefinition(t *testing.T) {
	testPackBTransposed[float32](t)
	testPackBTransposed[float64](t)
}

func testPackBTransposed[T float32 | float64](t *testing.T) {
	r := rand.New(rand.NewSource(5))
	const ld = 600 // B is stored column-major: column c at c*ld
	b := make([]T, 80*ld)
	for i := range b {
		b[i] = T(r.NormFloat64())
	}
	for _, nr := range []int{32, 16, 4} {
		for _, k := range []int{1, 15, 16, 17, 40, 512} {
			for _, ncols := range []int{nr, 2*nr + 3} {
				k0 := r.Intn(ld - k)
				ks := make([]int, k)
				for p := range ks {
					ks[p] = k0 + p
				}
				cols := make([]int, ncols)
				for j := range cols {
					cols[j] = r.Intn(80) * ld
				}
				np := ceilDiv(ncols, nr)
				want := make([]T, np*nr*k)
				for j, co := range cols {
					for p, ko := range ks {
						want[(j/nr)*nr*k+p*nr+j%nr] = b[ko+co]
					}
				}
				for _, asm := range []bool{false, true} {
					name := fmt.Sprintf("%T nr=%d k=%d cols=%d asm=%v", T(0), nr, k, ncols, asm)
					got := make([]T, len(want))
					for i := range got {
						got[i] = 7 // padding must be cleared
					}
					old := packTransOK
					packTransOK = packTransOK && asm
					packB(got, b, ks, cols, nr, false)
					packTransOK = old
					require.Equal(t, want, got, name)
				}
			}
		}
	}
}

// The AVX-512 float64 14-row transposing pack must give the Go loop's
// panel exactly.
func TestPackA14TransF64MatchesGo(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	a := make([]float64, 20*600)
	for i := range a {
		a[i] = r.NormFloat64()
	}
	for _, k := range []int{1, 7, 8, 9, 40, 512} {
		rows := make([]int, 14)
		for i := range rows {
			rows[i] = r.Intn(20) * 590
		}
		for _, ld := range []bool{false, true} {
			want, got := make([]float64, 14*k), make([]float64, 14*k)
			run := func(dst []float64) {
				if ld {
					packA14ld(dst, a, 590, k)
				} else {
					packA14(dst, a, rows, 5, k)
				}
			}
			old := packTransOK
			packTransOK = false
			run(want)
			packTransOK = old
			run(got)
			require.Equal(t, want, got, "k=%d ld=%v", k, ld)
		}
	}
}

// Row-copy packing (row-major B; transposed A, whose 14 rows at one k are
// adjacent) must give the plain definition with and without the assembly
// row copy.
func TestPackRowCopiesMatchDefinition(t *testing.T) {
	testPackRowCopies[float32](t)
	testPackRowCopies[float64](t)
}

func testPackRowCopies[T float32 | float64](t *testing.T) {
	r := rand.New(rand.NewSource(8))
	const ld = 400
	m := make([]T, 800*ld)
	for i := range m {
		m[i] = T(r.NormFloat64())
	}
	for _, kk := range []int{1, 2, 17, 512, -17, -512} {
		// Negative: |kk| rows at uneven steps (no single k stride).
		k := max(kk, -kk)
		ks := make([]int, k)
		k0 := r.Intn(50) * ld
		for p := range ks {
			ks[p] = k0 + p*ld
			if kk < 0 {
				ks[p] += p / 3 * ld
			}
		}
		for _, w := range []int{32, 16, 14, 8, 4} {
			for _, n := range []int{w, 3*w + 5, 5*w + 3} {
				idx := make([]int, n) // columns of B, rows of A: adjacent
				c0 := r.Intn(ld - n)
				for j := range idx {
					idx[j] = c0 + j
				}
				np := ceilDiv(n, w)
				want := make([]T, np*w*k)
				for j, co := range idx {
					for p, ko := range ks {
						want[(j/w)*w*k+p*w+j%w] = m[ko+co]
					}
				}
				for _, asm := range []bool{false, true} {
					old := packTransOK
					packTransOK = packTransOK && asm
					gotB, gotA := make([]T, len(want)), make([]T, len(want))
					for i := range gotB {
						gotB[i], gotA[i] = 7, 7
					}
					packB(gotB, m, ks, idx, w, true)
					packA(gotA, m, idx, ks, w, false)
					packTransOK = old
					name := fmt.Sprintf("%T k=%d w=%d n=%d asm=%v", T(0), kk, w, n, asm)
					require.Equal(t, want, gotB, "packB "+name)
					require.Equal(t, want, gotA, "packA "+name)
				}
			}
		}
	}
}

// packA14RowsF32 must give the definition pan[14p+i] = a[offs[i]+p], 0 for
// rows with a negative offset, over k beyond its 512-column chunks. Where
// it declines (no AVX-512) the panel must be untouched.
func TestPackA14RowsF32MatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	const ld = 1200
	a := make([]float32, 20*ld)
	for i := range a {
		a[i] = float32(r.NormFloat64())
	}
	for _, k := range []int{1, 15, 16, 17, 512, 513, 1100} {
		for _, zeros := range []int{0, 1, 5, 14} {
			var offs [14]int
			for i := range offs {
				offs[i] = r.Intn(20)*ld + r.Intn(ld-k+1)
			}
			for _, i := range r.Perm(14)[:zeros] {
				offs[i] = -1
			}
			want := make([]float32, 14*k)
			for p := range k {
				for i, o := range offs {
					if o >= 0 {
						want[14*p+i] = a[o+p]
					}
				}
			}
			got := make([]float32, 14*k)
			for i := range got {
				got[i] = 7 // zero rows must be written, not skipped
			}
			name := fmt.Sprintf("k=%d zero rows=%d", k, zeros)
			if !packA14RowsF32(got, a, &offs, k) {
				require.False(t, packTransOK, name)
				for i := range got {
					require.Equal(t, float32(7), got[i], name)
				}
				continue
			}
			require.Equal(t, want, got, name)
		}
	}
}
