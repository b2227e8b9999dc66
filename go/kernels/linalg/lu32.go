package linalg

import (
	"math"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// Single-precision LU, Cholesky and triangular solves. f32 operands are factored and
// solved in float32, as LAPACK's sgetrf/spotrf/strsm do, with the same
// recursion as getrfRec/potrfBlocked/trsmBlocked and the O(n³) part on the f32 packed GEMM:
// widening to float64 would double the GEMM's cost and add two conversion
// passes without giving the caller more than f32 accuracy.

// sfminLU32 is slamch('S'), sgetf2's threshold for dividing by the pivot
// rather than multiplying by its reciprocal.
const sfminLU32 = 0x1p-126

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// getf2F32 is getf2 in float32: the pivot of column j is the first row
// holding the largest magnitude (isamax's rule).
func getf2F32(m, n int, a []float32, lda int, ipiv []int32) int {
	info := 0
	k := min(m, n)
	for j := 0; j < k; j++ {
		p := j
		var best float32 = -1
		for i := j; i < m; i++ {
			if v := abs32(a[i*lda+j]); v > best {
				best, p = v, i
			}
		}
		ipiv[j] = int32(p + 1)
		if a[p*lda+j] != 0 {
			if p != j {
				rj, rp := a[j*lda:j*lda+n], a[p*lda:p*lda+n]
				for c := range rj {
					rj[c], rp[c] = rp[c], rj[c]
				}
			}
			piv := a[j*lda+j]
			if abs32(piv) >= sfminLU32 {
				r := 1 / piv
				for i := j + 1; i < m; i++ {
					a[i*lda+j] *= r
				}
			} else {
				for i := j + 1; i < m; i++ {
					a[i*lda+j] /= piv
				}
			}
		} else if info == 0 {
			info = j + 1
		}
		if j < k-1 {
			urow := a[j*lda+j+1 : j*lda+n]
			for i := j + 1; i < m; i++ {
				l := a[i*lda+j]
				if l == 0 {
					continue
				}
				row := a[i*lda+j+1 : i*lda+n]
				row = row[:len(urow)]
				for c := range row {
					row[c] -= l * urow[c]
				}
			}
		}
	}
	return info
}

// gemmUpdF32 is gemmUpd's C -= A·B (real, no conjugation) on the f32
// micro-kernel.
func gemmUpdF32(par parallelFn, m, n, k int, a []float32, ars, acs int, b []float32, brs, bcs int, c []float32, ldc int) {
	if m <= 0 || n <= 0 || k <= 0 {
		return
	}
	gemmUpdReal(ukF32, f32scratch, par, m, n, k, true, a, ars, acs, b, brs, bcs, c, ldc, false)
}

// potrfLowerF32 is potrfLower in float32 (spotf2: f32 dot products).
func potrfLowerF32(a []float32, n, lda int) int {
	for j := 0; j < n; j++ {
		rowJ := a[j*lda : j*lda+j]
		d := a[j*lda+j]
		for _, v := range rowJ {
			d -= v * v
		}
		if !(d > 0) {
			a[j*lda+j] = d
			return j + 1
		}
		d = float32(math.Sqrt(float64(d)))
		a[j*lda+j] = d
		inv := 1 / d
		for i := j + 1; i < n; i++ {
			rowI := a[i*lda : i*lda+j]
			rowI = rowI[:len(rowJ)]
			s := a[i*lda+j]
			for k, v := range rowI {
				s -= v * rowJ[k]
			}
			a[i*lda+j] = s * inv
		}
	}
	return 0
}

// potrfBlockedF32 is potrfBlocked in float32.
func potrfBlockedF32(par parallelFn, a []float32, n, lda int) int {
	if n < blockMin {
		return potrfLowerF32(a, n, lda)
	}
	for j0 := 0; j0 < n; j0 += blockNB {
		jb := min(blockNB, n-j0)
		if info := potrfLowerF32(a[j0*lda+j0:], jb, lda); info != 0 {
			return j0 + info
		}
		r0 := j0 + jb
		if r0 >= n {
			break
		}
		trsmParF32(par, triParams{lower: true, trans: 'T'}, a[j0*lda+j0:], lda, jb, a[r0*lda+j0:], lda, n-r0, jb)
		l21 := a[r0*lda+j0:]
		gemmUpdReal(ukF32, f32scratch, par, n-r0, n-r0, jb, true, l21, lda, 1, l21, 1, lda, a[r0*lda+r0:], lda, true)
	}
	return 0
}

// potrfStepF32 is potrfStep for f32, in place in the output.
func potrfStepF32(par parallelFn, batch, n int, lower bool) kernel.Step {
	return func(ins, outs [][]byte) error {
		all := byteview.As[float32](outs[0])[:batch*n*n]
		copy(all, byteview.As[float32](ins[0]))
		info := make([]int32, batch)
		forBatch(par, batch, n*n*n/3+1, func(lo, hi int) {
			var t []float32
			if !lower {
				t = kernel.Make[float32](n * n)
			}
			for b := lo; b < hi; b++ {
				m := all[b*n*n : (b+1)*n*n]
				if lower {
					info[b] = int32(potrfBlockedF32(par, m, n, n))
					continue
				}
				// A = Uᵀ·U from the upper triangle: factor L = Uᵀ.
				for i := 0; i < n; i++ {
					for j := 0; j <= i; j++ {
						t[i*n+j] = m[j*n+i]
					}
				}
				info[b] = int32(potrfBlockedF32(par, t, n, n))
				for i := 0; i < n; i++ {
					for j := 0; j <= i; j++ {
						m[j*n+i] = t[i*n+j]
					}
				}
			}
		})
		putI32s(outs[1], info)
		return nil
	}
}

// getrfRecF32 is getrfRec in float32.
func getrfRecF32(par parallelFn, m, n int, a []float32, lda int, ipiv []int32) int {
	kmin := min(m, n)
	if kmin <= luBase || n <= luBase {
		return getf2F32(m, n, a, lda, ipiv)
	}
	n1 := kmin / 2
	if n1 > 2*luBase {
		n1 = n1 / luBase * luBase
	}
	n2 := n - n1
	info := getrfRecF32(par, m, n1, a, lda, ipiv[:n1])
	swapRows(a[n1:], lda, n2, ipiv[:n1], 0)
	trsmParF32(par, triParams{left: true, lower: true, unit: true, trans: 'N'}, a, lda, n1, a[n1:], lda, n1, n2)
	gemmUpdF32(par, m-n1, n2, n1, a[n1*lda:], lda, 1, a[n1:], lda, 1, a[n1*lda+n1:], lda)
	rest := ipiv[n1:kmin]
	info2 := getrfRecF32(par, m-n1, n2, a[n1*lda+n1:], lda, rest)
	if info == 0 && info2 > 0 {
		info = info2 + n1
	}
	for i := range rest {
		rest[i] += int32(n1)
	}
	swapRows(a, lda, n1, rest, n1)
	return info
}

// trsmF32 is trsm for float32 ('C' reads as 'T' for real data).
func trsmF32(p triParams, a []float32, lda, k int, b []float32, ldb, m, n int) {
	at := func(i, j int) float32 {
		if i == j && p.unit {
			return 1
		}
		if p.trans != 'N' {
			return a[j*lda+i]
		}
		return a[i*lda+j]
	}
	mLower := p.lower == (p.trans == 'N')
	if p.left {
		solveRow := func(i, k0, k1 int) {
			xi := b[i*ldb : i*ldb+n]
			for kk := k0; kk < k1; kk++ {
				f := at(i, kk)
				if f == 0 {
					continue
				}
				xk := b[kk*ldb : kk*ldb+n]
				xk = xk[:len(xi)]
				for j := range xi {
					xi[j] -= f * xk[j]
				}
			}
			if !p.unit {
				d := at(i, i)
				for j := range xi {
					xi[j] /= d
				}
			}
		}
		if mLower {
			for i := 0; i < m; i++ {
				solveRow(i, 0, i)
			}
		} else {
			for i := m - 1; i >= 0; i-- {
				solveRow(i, i+1, m)
			}
		}
		return
	}
	for r := 0; r < m; r++ {
		x := b[r*ldb : r*ldb+n]
		if !mLower {
			for j := 0; j < n; j++ {
				s := x[j]
				for kk := 0; kk < j; kk++ {
					s -= x[kk] * at(kk, j)
				}
				if !p.unit {
					s /= at(j, j)
				}
				x[j] = s
			}
		} else {
			for j := n - 1; j >= 0; j-- {
				s := x[j]
				for kk := j + 1; kk < n; kk++ {
					s -= x[kk] * at(kk, j)
				}
				if !p.unit {
					s /= at(j, j)
				}
				x[j] = s
			}
		}
	}
}

// trsmParF32 is trsmPar for float32.
func trsmParF32(par parallelFn, p triParams, a []float32, lda, k int, b []float32, ldb, m, n int) {
	if m*n*k < 1<<16 {
		trsmBlockedF32(p, a, lda, k, b, ldb, m, n)
		return
	}
	if p.left {
		const cw = 64
		par(ceilDiv(n, cw), 1, func(lo, hi int) {
			j0, j1 := lo*cw, min(n, hi*cw)
			trsmBlockedF32(p, a, lda, k, b[j0:], ldb, m, j1-j0)
		})
		return
	}
	const rw = 32
	par(ceilDiv(m, rw), 1, func(lo, hi int) {
		i0, i1 := lo*rw, min(m, hi*rw)
		trsmBlockedF32(p, a, lda, k, b[i0*ldb:], ldb, i1-i0, n)
	})
}

// trsmBlockedF32 is trsmBlocked for float32: halves of the triangle solved
// recursively, the coupling block removed by an f32 matrix product.
func trsmBlockedF32(p triParams, a []float32, lda, k int, b []float32, ldb, m, n int) {
	if k <= trsmBase || m == 0 || n == 0 || (p.left && n < 4) || (!p.left && m < 4) {
		trsmF32(p, a, lda, k, b, ldb, m, n)
		return
	}
	k1 := k / 2
	if k1 > 2*trsmBase {
		k1 = k1 / trsmBase * trsmBase
	}
	k2 := k - k1
	mLower := p.lower == (p.trans == 'N')
	off := func(r0, c0 int) (blk []float32, rs, cs int) {
		if p.trans == 'N' {
			return a[r0*lda+c0:], lda, 1
		}
		return a[c0*lda+r0:], 1, lda
	}
	a22 := a[k1*lda+k1:]
	if p.left {
		b1, b2 := b, b[k1*ldb:]
		if mLower {
			trsmBlockedF32(p, a, lda, k1, b1, ldb, k1, n)
			m21, rs, cs := off(k1, 0)
			gemmUpdF32(serial, k2, n, k1, m21, rs, cs, b1, ldb, 1, b2, ldb)
			trsmBlockedF32(p, a22, lda, k2, b2, ldb, k2, n)
			return
		}
		trsmBlockedF32(p, a22, lda, k2, b2, ldb, k2, n)
		m12, rs, cs := off(0, k1)
		gemmUpdF32(serial, k1, n, k2, m12, rs, cs, b2, ldb, 1, b1, ldb)
		trsmBlockedF32(p, a, lda, k1, b1, ldb, k1, n)
		return
	}
	b1, b2 := b, b[k1:]
	if mLower {
		trsmBlockedF32(p, a22, lda, k2, b2, ldb, m, k2)
		m21, rs, cs := off(k1, 0)
		gemmUpdF32(serial, m, k1, k2, b2, ldb, 1, m21, rs, cs, b1, ldb)
		trsmBlockedF32(p, a, lda, k1, b1, ldb, m, k1)
		return
	}
	trsmBlockedF32(p, a, lda, k1, b1, ldb, m, k1)
	m12, rs, cs := off(0, k1)
	gemmUpdF32(serial, m, k2, k1, b1, ldb, 1, m12, rs, cs, b2, ldb)
	trsmBlockedF32(p, a22, lda, k2, b2, ldb, m, k2)
}

// getrfStepF32 factors a batch of f32 matrices in place in the output.
func getrfStepF32(par parallelFn, batch, m, n int) kernel.Step {
	k := min(m, n)
	return func(ins, outs [][]byte) error {
		a := byteview.As[float32](outs[0])[:batch*m*n]
		copy(a, byteview.As[float32](ins[0]))
		ipiv := kernel.Make[int32](batch * k)
		info := make([]int32, batch)
		forBatch(par, batch, m*n*k+1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				info[b] = int32(getrfRecF32(par, m, n, a[b*m*n:(b+1)*m*n], n, ipiv[b*k:(b+1)*k]))
			}
		})
		putI32s(outs[1], ipiv)
		putI32s(outs[2], info)
		return nil
	}
}

// trsmRunF32 solves a batch of f32 triangular systems in place in the
// output.
func trsmRunF32(par parallelFn, p triParams, batch, k, m, n int) kernel.Step {
	return func(ins, outs [][]byte) error {
		a := byteview.As[float32](ins[0])
		b := byteview.As[float32](outs[0])[:batch*m*n]
		copy(b, byteview.As[float32](ins[1]))
		forBatch(par, batch, k*m*n+1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				trsmParF32(par, p, a[i*k*k:(i+1)*k*k], k, k, b[i*m*n:(i+1)*m*n], n, m, n)
			}
		})
		return nil
	}
}

// choleskyStepF32 is choleskyStep for f32, in place in the output.
func choleskyStepF32(par parallelFn, batch, n int, lower bool) kernel.Step {
	return func(ins, outs [][]byte) error {
		all := byteview.As[float32](outs[0])[:batch*n*n]
		copy(all, byteview.As[float32](ins[0]))
		forBatch(par, batch, n*n*n/3+1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				m := all[b*n*n : (b+1)*n*n]
				if !lower {
					// The upper triangle of A is the transpose of a lower one.
					for i := 0; i < n; i++ {
						for j := 0; j < i; j++ {
							m[i*n+j] = m[j*n+i]
						}
					}
				}
				if potrfBlockedF32(par, m, n, n) != 0 {
					nan := float32(math.NaN())
					for i := range m {
						m[i] = nan
					}
					continue
				}
				for i := 0; i < n; i++ {
					for j := i + 1; j < n; j++ {
						if lower {
							m[i*n+j] = 0
						} else {
							m[i*n+j] = m[j*n+i]
							m[j*n+i] = 0
						}
					}
				}
			}
		})
		return nil
	}
}
