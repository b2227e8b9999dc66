package linalg

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// randUnitary returns an n×n unitary (orthogonal when !cplx) matrix: a
// product of n random Householder reflectors, unitary to rounding.
func randUnitary(r *rand.Rand, n int, cplx bool) []complex128 {
	q := eye(n)
	v := make([]complex128, n)
	for range n {
		v = randMat(r, n, cplx)
		nn := 0.0
		for _, x := range v {
			nn += real(x)*real(x) + imag(x)*imag(x)
		}
		// q ← q·(I − 2·v·vᴴ/‖v‖²)
		for i := 0; i < n; i++ {
			var w complex128
			for j := 0; j < n; j++ {
				w += q[i*n+j] * v[j]
			}
			w *= complex(2/nn, 0)
			for j := 0; j < n; j++ {
				q[i*n+j] -= w * cmplx.Conj(v[j])
			}
		}
	}
	return q
}

// svdCase is A = U0·diag(sigma)·V0ᴴ with random unitary U0, V0: its
// singular values are sigma up to the rounding of forming A, which moves
// them by at most ‖δA‖₂ ≤ c·n·eps·σmax (Weyl).
func svdCase(r *rand.Rand, m, n int, cplx bool, sigma []float64) []complex128 {
	k := min(m, n)
	u0, v0 := randUnitary(r, m, cplx), randUnitary(r, n, cplx)
	us := make([]complex128, m*k)
	for i := 0; i < m; i++ {
		for j := 0; j < k; j++ {
			us[i*k+j] = u0[i*m+j] * complex(sigma[j], 0)
		}
	}
	return matMul(us, m, k, adjoint(v0, n, n)[:k*n], n)
}

// TestSvdKnownValues runs gesdd (f64 and c128, reduced and full, tall,
// wide and square, batched) on matrices with known singular values:
// well conditioned, rank deficient, graded over 15 decades, repeated
// values, scaled near the under- and overflow thresholds, and zero.
// Bounds are normwise (LAPACK's backward stability): values within
// 8·max(m,n)·eps·σmax of the exact ones, ‖A − U·Σ·Vᴴ‖_max and
// ‖UᴴU − I‖_max within 8·max(m,n)·eps (relative to σmax).
func TestSvdKnownValues(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	const eps = 0x1p-52
	type spec struct {
		name  string
		sigma func(k int) []float64
	}
	specs := []spec{
		{"uniform", func(k int) []float64 {
			s := make([]float64, k)
			for i := range s {
				s[i] = 1 + r.Float64()
			}
			return s
		}},
		{"rankdef", func(k int) []float64 {
			s := make([]float64, k)
			for i := range s[:k/2] {
				s[i] = 1 + r.Float64()
			}
			return s
		}},
		{"graded", func(k int) []float64 {
			s := make([]float64, k)
			for i := range s {
				s[i] = math.Pow(10, -15*float64(i)/float64(max(k-1, 1)))
			}
			return s
		}},
		{"repeated", func(k int) []float64 {
			s := make([]float64, k)
			for i := range s {
				s[i] = float64(1 + i%3)
			}
			return s
		}},
		{"tiny", func(k int) []float64 {
			s := make([]float64, k)
			for i := range s {
				s[i] = (1 + r.Float64()) * 1e-295
			}
			return s
		}},
		{"huge", func(k int) []float64 {
			s := make([]float64, k)
			for i := range s {
				s[i] = (1 + r.Float64()) * 1e295
			}
			return s
		}},
		{"zero", func(k int) []float64 { return make([]float64, k) }},
	}
	shapes := [][2]int{{1, 1}, {7, 1}, {1, 5}, {40, 40}, {70, 33}, {33, 70}, {150, 150}, {230, 120}, {120, 230}}
	// f32 and c64 (rotated in float32) against their own eps; their
	// range excludes the specs scaled by 1e±295.
	types := []struct {
		et      ir.ElemType
		name, p string
		cplx    bool
		eps     float64
	}{{ir.F64, "f64", "d", false, eps}, {ir.C128, "c128", "z", true, eps}, {ir.F32, "f32", "s", false, 0x1p-23}, {ir.C64, "c64", "c", true, 0x1p-23}}
	for _, ty := range types {
		et, name, p, cplx := ty.et, ty.name, ty.p, ty.cplx
		for _, mn := range shapes {
			m, n := mn[0], mn[1]
			k := min(m, n)
			for si, sp := range specs {
				if ty.eps != eps && (sp.name == "tiny" || sp.name == "huge") {
					continue
				}
				mode := []byte{'S', 'A'}[si%2]
				batch := 1 + si%2
				t.Run(fmt.Sprintf("%s/%dx%d/%s/%c", name, m, n, sp.name, mode), func(t *testing.T) {
					var in []complex128
					var sigmas [][]float64
					for range batch {
						sg := sp.sigma(k)
						in = append(in, svdCase(r, m, n, cplx, sg)...)
						sort.Sort(sort.Reverse(sort.Float64Slice(sg)))
						sigmas = append(sigmas, sg)
					}
					uc, vr := m, n
					if mode == 'S' {
						uc, vr = k, k
					}
					bm, bn := int64(batch), int64(m)
					op := ccOp("lapack_"+p+"gesdd_ffi", []*ir.TensorType{ir.Tensor(et, bm, bn, int64(n))},
						[]*ir.TensorType{ir.Tensor(et, bm, bn, int64(n)), ir.Tensor(realOf(et), bm, int64(k)),
							ir.Tensor(et, bm, bn, int64(uc)), ir.Tensor(et, bm, int64(vr), int64(n)), ir.Tensor(ir.S32, bm)},
						ir.Attrs{"mode": u8(mode)})
					outs := runOp(t, fakeCtx{2}, op, encodeAs(in, name))
					sAll := bytesF64(outs[1])
					if ty.eps != eps {
						sAll = f32to64(bytesF32(outs[1]))
					}
					uAll, vtAll := decodeAs(outs[2], name), decodeAs(outs[3], name)
					tol := 8 * float64(max(m, n)) * ty.eps
					for b := 0; b < batch; b++ {
						require.Equal(t, int64(0), loadInt(ir.S32, outs[4], b))
						a := in[b*m*n : (b+1)*m*n]
						s := sAll[b*k : (b+1)*k]
						sg := sigmas[b]
						smax := sg[0]
						for i := range s {
							require.LessOrEqual(t, math.Abs(s[i]-sg[i]), tol*smax, "value %d: %g, want %g", i, s[i], sg[i])
							if i > 0 {
								require.LessOrEqual(t, s[i], s[i-1])
							}
						}
						u := uAll[b*m*uc : (b+1)*m*uc]
						vt := vtAll[b*vr*n : (b+1)*vr*n]
						require.Less(t, maxAbsDiff(matMul(adjoint(u, m, uc), uc, m, u, uc), eye(uc)), tol)
						require.Less(t, maxAbsDiff(matMul(vt, vr, n, adjoint(vt, vr, n), vr), eye(vr)), tol)
						if smax == 0 {
							continue
						}
						// Compare A/σmax with U·(Σ/σmax)·Vᴴ so that nothing
						// over- or underflows.
						us := make([]complex128, m*k)
						an := make([]complex128, m*n)
						for i := 0; i < m; i++ {
							for j := 0; j < k; j++ {
								us[i*k+j] = u[i*uc+j] * complex(s[j]/smax, 0)
							}
							for j := 0; j < n; j++ {
								an[i*n+j] = a[i*n+j] / complex(smax, 0)
							}
						}
						require.Less(t, maxAbsDiff(matMul(us, m, k, vt[:k*n], n), an), tol)
					}
				})
			}
		}
	}
}

// TestBdsvdZeroDiagonal checks the bidiagonal QR on bidiagonals with zero
// diagonal entries (where the zero-shift sweep must deflate) and on a
// 2×2 block: B = Uᵀᵀ·Σ·Vᵀ within 8·n·eps·‖B‖ with orthogonal U, V.
func TestBdsvdZeroDiagonal(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for _, n := range []int{2, 3, 10, 57} {
		for z := 0; z < 3; z++ {
			d, e := make([]float64, n), make([]float64, n)
			for i := range d {
				d[i] = r.NormFloat64()
				e[i] = r.NormFloat64()
			}
			if z > 0 {
				d[n/2] = 0
			}
			if z > 1 {
				d[0], d[n-1] = 0, 0
			}
			b := make([]complex128, n*n)
			for i := 0; i < n; i++ {
				b[i*n+i] = complex(d[i], 0)
				if i < n-1 {
					b[i*n+i+1] = complex(e[i], 0)
				}
			}
			ut, vt := make([]float64, n*n), make([]float64, n*n)
			for i := 0; i < n; i++ {
				ut[i*n+i], vt[i*n+i] = 1, 1
			}
			require.True(t, bdsvdRot(serial, n, d, e, ut, n, n, vt, n, n))
			us, vc := make([]complex128, n*n), make([]complex128, n*n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					us[i*n+j] = complex(ut[j*n+i]*d[j], 0)
					vc[i*n+j] = complex(vt[i*n+j], 0)
				}
			}
			tol := 8 * float64(n) * 0x1p-52 * max(frob(b), 1)
			require.Less(t, maxAbsDiff(matMul(us, n, n, vc, n), b), tol, "n=%d z=%d", n, z)
			require.Less(t, maxAbsDiff(matMul(vc, n, n, adjoint(vc, n, n), n), eye(n)), tol)
			for i := 1; i < n; i++ {
				require.LessOrEqual(t, d[i], d[i-1])
				require.GreaterOrEqual(t, d[i], 0.0)
			}
		}
	}
}

// TestGemvRows2 checks the two-vector row products against gemvRows run
// once per vector, bit for bit (the same sums in the same order), at row
// counts and lengths around the four-row and four-column blocks.
func TestGemvRows2(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	for _, m := range []int{1, 3, 4, 7, 9} {
		for _, n := range []int{1, 3, 4, 5, 17, 64} {
			lda := n + 2
			a := make([]float64, m*lda)
			v, w := make([]float64, n), make([]float64, n)
			for i := range a {
				a[i] = r.NormFloat64()
			}
			for i := range v {
				v[i], w[i] = r.NormFloat64(), r.NormFloat64()
			}
			y1, z1 := make([]float64, m), make([]float64, m)
			y2, z2 := make([]float64, m), make([]float64, m)
			gemvRows(a, lda, v, y1)
			gemvRows(a, lda, w, z1)
			gemvRows2(a, lda, v, w, y2, z2)
			require.Equal(t, y1, y2, "m=%d n=%d", m, n)
			require.Equal(t, z1, z2, "m=%d n=%d", m, n)
		}
	}
}
