package linalg

import (
	"math"
	"math/cmplx"
	"unsafe"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// Single-precision LU, Cholesky and triangular solves. f32 and c64 operands
// are factored and solved in float32 and complex64, as LAPACK's
// sgetrf/cgetrf, spotrf and strsm/ctrsm do, with the same recursion as
// getrfRec/potrfBlocked/trsmBlocked and the O(n³) part on the f32 packed
// GEMM (complex products as one real product of twice the width and depth,
// gemmUpdCplxWide): widening to float64/complex128 would double the GEMM's
// cost and add two conversion passes without giving the caller more than
// single-precision accuracy.

// single is the element types factored in single precision.
type single interface{ float32 | complex64 }

// isC64 reports whether T is complex64.
func isC64[T single]() bool {
	var z T
	return unsafe.Sizeof(z) == 8
}

// reim returns v's real and imaginary parts (imaginary 0 for float32).
func reim[T single](v T) (float32, float32) {
	if isC64[T]() {
		p := (*[2]float32)(unsafe.Pointer(&v))
		return p[0], p[1]
	}
	return *(*float32)(unsafe.Pointer(&v)), 0
}

// abs1S is isamax's |v| and icamax's |Re v| + |Im v|: the pivot order.
func abs1S[T single](v T) float32 {
	r, i := reim(v)
	return abs32(r) + abs32(i)
}

// absS is |v|, the modulus for complex64.
func absS[T single](v T) float32 {
	r, i := reim(v)
	if i == 0 {
		return abs32(r)
	}
	return float32(math.Hypot(float64(r), float64(i)))
}

// conjS is the complex conjugate (identity for float32).
func conjS[T single](v T) T {
	if isC64[T]() {
		p := (*[2]float32)(unsafe.Pointer(&v))
		p[1] = -p[1]
	}
	return v
}

// sfminLU32 is slamch('S'), sgetf2's threshold for dividing by the pivot
// rather than multiplying by its reciprocal.
const sfminLU32 = 0x1p-126

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// getf2S is getf2 in single precision: the pivot of column j is the first
// row holding the largest abs1S (isamax's and icamax's rule).
func getf2S[T single](m, n int, a []T, lda int, ipiv []int32) int {
	if m >= getf2ColMin && n <= luBase {
		return getf2ColS(m, n, a, lda, ipiv)
	}
	return getf2RowS(m, n, a, lda, ipiv)
}

// getf2RowS is getf2S in place on the row-major panel.
func getf2RowS[T single](m, n int, a []T, lda int, ipiv []int32) int {
	info := 0
	k := min(m, n)
	for j := 0; j < k; j++ {
		p := j
		var best float32 = -1
		for i := j; i < m; i++ {
			if v := abs1S(a[i*lda+j]); v > best {
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
			if absS(piv) >= sfminLU32 {
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

// getf2ColMin is the panel height from which getf2S factors a column-major
// copy: the rows of a tall row-major panel lie lda apart, a stride that
// maps them onto a few cache sets, so every pass down a column missed L1.
const getf2ColMin = 32

// getf2ColS is getf2S on a column-major copy of the m×n panel (n at most
// luBase): pivot searches, scalings and the rank-1 updates run down
// contiguous columns. Every element gets the same operations in the same
// order as in getf2S, so the results are identical.
func getf2ColS[T single](m, n int, a []T, lda int, ipiv []int32) int {
	sc := scratchS[T](m * n)
	defer sc.release()
	pc := sc.s
	for i := 0; i < m; i++ {
		for c, v := range a[i*lda : i*lda+n] {
			pc[c*m+i] = v
		}
	}
	info := 0
	k := min(m, n)
	for j := 0; j < k; j++ {
		col := pc[j*m : (j+1)*m]
		var p int
		if c32, ok := any(col).([]float32); ok {
			p = j + pivotF32(c32[j:])
		} else if c64, ok := any(col).([]complex64); ok {
			p = j + pivotC64(asF32s(c64[j:]))
		} else {
			p = j
			var best float32 = -1
			for i := j; i < m; i++ {
				if v := abs1S(col[i]); v > best {
					best, p = v, i
				}
			}
		}
		ipiv[j] = int32(p + 1)
		if col[p] != 0 {
			if p != j {
				for c := 0; c < n; c++ {
					pc[c*m+j], pc[c*m+p] = pc[c*m+p], pc[c*m+j]
				}
			}
			piv := col[j]
			below := col[j+1:]
			if absS(piv) >= sfminLU32 {
				r := 1 / piv
				for i := range below {
					below[i] *= r
				}
			} else {
				for i := range below {
					below[i] /= piv
				}
			}
		} else if info == 0 {
			info = j + 1
		}
		if j < k-1 {
			l := col[j+1:]
			for c := j + 1; c < n; c++ {
				u := pc[c*m+j]
				dst := pc[c*m+j+1 : (c+1)*m]
				dst = dst[:len(l)]
				if lc, ok := any(l).([]complex64); ok {
					rank1C64(any(dst).([]complex64), lc, any(u).(complex64))
					continue
				}
				for i, lv := range l {
					if lv != 0 {
						dst[i] -= lv * u
					}
				}
			}
		}
	}
	for i := 0; i < m; i++ {
		row := a[i*lda : i*lda+n]
		for c := range row {
			row[c] = pc[c*m+i]
		}
	}
	return info
}

// rank1C64 is getf2ColS's dst[i] -= l[i]·u for the nonzero l[i], with the
// operator's complex64 product written out (exact float64 products, each
// part rounded once to float32, then the float32 subtraction) so that u's
// widening is hoisted and zero tests are one integer compare: same bits.
func rank1C64(dst, l []complex64, u complex64) {
	ur, ui := float64(real(u)), float64(imag(u))
	dst = dst[:len(l)]
	for i, lv := range l {
		if *(*uint64)(unsafe.Pointer(&l[i]))&0x7fffffff7fffffff == 0 {
			continue // lv == 0, either zero's sign in each part
		}
		lr, li := float64(real(lv)), float64(imag(lv))
		d := dst[i]
		dst[i] = complex(real(d)-float32(lr*ur-li*ui), imag(d)-float32(lr*ui+li*ur))
	}
}

// pivotF32 is isamax: the first index of the largest |x[i]|, NaNs never
// chosen (0 when there is no number). |x| is compared as its bits, which
// order like the magnitudes; four interleaved maxima keep the compares
// independent, and ties go to the lowest index as in one pass.
func pivotF32(x []float32) int {
	const nanBits = 0x7f800000
	var best [4]int64
	var at [4]int
	for l := range best {
		best[l], at[l] = -1, -1
	}
	i := 0
	for ; i+4 <= len(x); i += 4 {
		for l := 0; l < 4; l++ {
			b := int64(math.Float32bits(x[i+l]) & 0x7fffffff)
			if b > nanBits {
				continue
			}
			if b > best[l] {
				best[l], at[l] = b, i+l
			}
		}
	}
	for ; i < len(x); i++ {
		l := i & 3
		b := int64(math.Float32bits(x[i]) & 0x7fffffff)
		if b <= nanBits && b > best[l] {
			best[l], at[l] = b, i
		}
	}
	return mergeLanes(&best, &at)
}

// pivotC64 is icamax over (re, im) pairs: the first index of the largest
// |re| + |im| (summed in float32), NaNs never chosen (0 when there is no
// number), four interleaved maxima with ties to the lowest index.
func pivotC64(x []float32) int {
	const abs = 0x7fffffff
	best := [4]float32{-1, -1, -1, -1}
	at := [4]int{-1, -1, -1, -1}
	n := len(x) / 2
	i := 0
	for ; i+4 <= n; i += 4 {
		q := x[2*i : 2*i+8]
		for l := 0; l < 4; l++ {
			v := math.Float32frombits(math.Float32bits(q[2*l])&abs) + math.Float32frombits(math.Float32bits(q[2*l+1])&abs)
			if v > best[l] {
				best[l], at[l] = v, i+l
			}
		}
	}
	for ; i < n; i++ {
		l := i & 3
		v := math.Float32frombits(math.Float32bits(x[2*i])&abs) + math.Float32frombits(math.Float32bits(x[2*i+1])&abs)
		if v > best[l] {
			best[l], at[l] = v, i
		}
	}
	return mergeLanes(&best, &at)
}

// mergeLanes picks the pivot of four interleaved lanes (at -1: the lane saw
// no number): the largest key, ties to the lowest index; 0 when none.
func mergeLanes[K int64 | float32](best *[4]K, at *[4]int) int {
	p, bp := 0, K(-1)
	for l := range best {
		if at[l] >= 0 && (best[l] > bp || (best[l] == bp && at[l] < p)) {
			p, bp = at[l], best[l]
		}
	}
	return p
}

// gemmUpdS is gemmUpd's C -= op(A)·op(B) (op conjugating complex64 when ca,
// cb) on the f32 micro-kernel.
func gemmUpdS[T single](par parallelFn, m, n, k int, a []T, ars, acs int, ca bool, b []T, brs, bcs int, cb bool, c []T, ldc int) {
	if m <= 0 || n <= 0 || k <= 0 {
		return
	}
	if !isC64[T]() {
		gemmUpdReal(ukF32, f32scratch, par, m, n, k, true, asF32s(a), ars, acs, asF32s(b), brs, bcs, asF32s(c), ldc, false)
		return
	}
	if m*n*k >= cplxGemmMin {
		gemmUpdCplxWide(ukF32, f32scratch, par, m, n, k, true, asF32s(a), ars, acs, ca, asF32s(b), brs, bcs, cb, asF32s(c), ldc)
		return
	}
	// Small products: row axpys in complex64.
	for i := 0; i < m; i++ {
		crow := c[i*ldc : i*ldc+n]
		for p := 0; p < k; p++ {
			f := a[i*ars+p*acs]
			if ca {
				f = conjS(f)
			}
			if f == 0 {
				continue
			}
			for j := range crow {
				v := b[p*brs+j*bcs]
				if cb {
					v = conjS(v)
				}
				crow[j] -= f * v
			}
		}
	}
}

// asF32s views single-precision data as float32s ((re, im) pairs for
// complex64).
func asF32s[T single](s []T) []float32 {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*float32)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(z))/4)
}

// fromReS is the T whose real part is x (imaginary 0).
func fromReS[T single](x float32) T {
	var v T
	*(*float32)(unsafe.Pointer(&v)) = x
	return v
}

// potrfLowerS is potrfLower in single precision (spotf2/cpotf2): float32
// as potrfLowerF32; complex64 factors only diagonal blocks of at most
// blockMin columns, so its dot products accumulate in float64 at little
// cost, each element rounded once.
func potrfLowerS[T single](a []T, n, lda int) int {
	if !isC64[T]() {
		return potrfLowerF32(asF32s(a), n, lda)
	}
	for j := 0; j < n; j++ {
		rowJ := a[j*lda : j*lda+j]
		dr, _ := reim(a[j*lda+j])
		d := float64(dr)
		for _, v := range rowJ {
			r, i := reim(v)
			d -= float64(r)*float64(r) + float64(i)*float64(i)
		}
		if !(d > 0) {
			a[j*lda+j] = fromReS[T](float32(d))
			return j + 1
		}
		d = math.Sqrt(d)
		a[j*lda+j] = fromReS[T](float32(d))
		inv := 1 / d
		for i := j + 1; i < n; i++ {
			rowI := a[i*lda : i*lda+j]
			rowI = rowI[:len(rowJ)]
			sr, si := reim(a[i*lda+j])
			s0, s1 := float64(sr), float64(si)
			// s -= v·conj(w) over the (re, im) pairs.
			x, y := asF32s(rowI), asF32s(rowJ)
			y = y[:len(x)]
			for k := 0; k+1 < len(x); k += 2 {
				vr, vi := float64(x[k]), float64(x[k+1])
				wr, wi := float64(y[k]), float64(y[k+1])
				s0 -= vr*wr + vi*wi
				s1 -= vi*wr - vr*wi
			}
			var out T
			o := (*[2]float32)(unsafe.Pointer(&out))
			o[0], o[1] = float32(s0*inv), float32(s1*inv)
			a[i*lda+j] = out
		}
	}
	return 0
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

// potrfBlockedS is potrfBlocked in single precision.
func potrfBlockedS[T single](par parallelFn, a []T, n, lda int) int {
	if n < blockMin {
		return potrfLowerS(a, n, lda)
	}
	if isC64[T]() {
		return potrfRecC64(par, any(a).([]complex64), n, lda)
	}
	for j0 := 0; j0 < n; j0 += blockNB {
		jb := min(blockNB, n-j0)
		if info := potrfLowerS(a[j0*lda+j0:], jb, lda); info != 0 {
			return j0 + info
		}
		r0 := j0 + jb
		if r0 >= n {
			break
		}
		trsmParS(par, triParams{lower: true, trans: 'C'}, a[j0*lda+j0:], lda, jb, a[r0*lda+j0:], lda, n-r0, jb)
		if isC64[T]() {
			herkLowerC64(par, n-r0, jb, any(a[r0*lda+j0:]).([]complex64), any(a[r0*lda+r0:]).([]complex64), lda)
			continue
		}
		l21 := asF32s(a[r0*lda+j0:])
		gemmUpdReal(ukF32, f32scratch, par, n-r0, n-r0, jb, true, l21, lda, 1, l21, 1, lda, asF32s(a[r0*lda+r0:]), lda, true)
	}
	return 0
}

// potrfRecC64Base is the order from which potrfRecC64 splits.
const potrfRecC64Base = 32

// potrfRecC64 is the complex64 Cholesky as the recursive cpotrf2 does it:
// factor the leading half, solve the block below it against that factor,
// update the trailing half by cherk and factor it. Unlike fixed panels
// this leaves only small diagonal blocks to the scalar (float64
// accumulated) factorization, which costs n·b² for blocks of order b, and
// gives the solves and updates wide operands for the f32 kernel.
func potrfRecC64(par parallelFn, a []complex64, n, lda int) int {
	if n <= potrfRecC64Base {
		return potrfLowerS(a, n, lda)
	}
	n1 := n / 2
	if n1 > 2*trsmBase {
		n1 = n1 / trsmBase * trsmBase
	}
	n2 := n - n1
	if info := potrfRecC64(par, a, n1, lda); info != 0 {
		return info
	}
	a21, a22 := a[n1*lda:], a[n1*lda+n1:]
	trsmParS(par, triParams{lower: true, trans: 'C'}, a, lda, n1, a21, lda, n2, n1)
	herkLowerC64(par, n2, n1, a21, a22, lda)
	if info := potrfRecC64(par, a22, n2, lda); info != 0 {
		return n1 + info
	}
	return 0
}

// herkLowerC64 is cherk's C -= L·Lᴴ on the lower triangle of the m×m
// complex64 C, L being m×k (both with leading dimension ld), as two real
// lower-triangle products on the f32 kernel: with P = [Re L, Im L] and
// Q = [Im L, −Re L] (m×2k, contiguous), Re C -= P·Pᵀ and Im C -= Q·Pᵀ.
// Real and imaginary parts are separate sums, so neither is rounded
// against the other's magnitude; both operands pack at unit stride.
func herkLowerC64(par parallelFn, m, k int, l, c []complex64, ld int) {
	k2 := 2 * k
	sc := f32scratch(2*m*k2 + 2*m*m)
	defer sc.release()
	p, q := sc.s[:m*k2], sc.s[m*k2:2*m*k2]
	cr, ci := sc.s[2*m*k2:2*m*k2+m*m], sc.s[2*m*k2+m*m:]
	for i := 0; i < m; i++ {
		pr, qr := p[i*k2:(i+1)*k2], q[i*k2:(i+1)*k2]
		for j, v := range l[i*ld : i*ld+k] {
			re, im := real(v), imag(v)
			pr[j], pr[k+j] = re, im
			qr[j], qr[k+j] = im, -re
		}
		rr, ri := cr[i*m:i*m+i+1], ci[i*m:i*m+i+1]
		for j, v := range c[i*ld : i*ld+i+1] {
			rr[j], ri[j] = real(v), imag(v)
		}
	}
	gemmUpdReal(ukF32, f32scratch, par, m, m, k2, true, p, k2, 1, p, 1, k2, cr, m, true)
	gemmUpdReal(ukF32, f32scratch, par, m, m, k2, true, q, k2, 1, p, 1, k2, ci, m, true)
	for i := 0; i < m; i++ {
		ci[i*m+i] = 0 // as cherk: the diagonal of a Hermitian update is real
		row := c[i*ld : i*ld+i+1]
		for j := range row {
			row[j] = complex(cr[i*m+j], ci[i*m+j])
		}
	}
}

// scratchS is pooled single-precision scratch.
func scratchS[T single](n int) *buf[T] {
	if isC64[T]() {
		return getBuf[T](&poolC64, n)
	}
	return getBuf[T](&poolF32, n)
}

// potrfStepS is potrfStep for f32 and c64, in place in the output.
func potrfStepS[T single](par parallelFn, batch, n int, lower bool) kernel.Step {
	return func(ins, outs [][]byte) error {
		all := byteview.As[T](outs[0])[:batch*n*n]
		copy(all, byteview.As[T](ins[0]))
		info := make([]int32, batch)
		forBatch(par, batch, n*n*n/3+1, func(lo, hi int) {
			var t *buf[T]
			if !lower {
				t = scratchS[T](n * n)
				defer t.release()
			}
			for b := lo; b < hi; b++ {
				m := all[b*n*n : (b+1)*n*n]
				if lower {
					info[b] = int32(potrfBlockedS(par, m, n, n))
					continue
				}
				// A = Uᴴ·U from the upper triangle: factor L = Uᴴ.
				for i := 0; i < n; i++ {
					for j := 0; j <= i; j++ {
						t.s[i*n+j] = conjS(m[j*n+i])
					}
				}
				info[b] = int32(potrfBlockedS(par, t.s, n, n))
				for i := 0; i < n; i++ {
					for j := 0; j <= i; j++ {
						m[j*n+i] = conjS(t.s[i*n+j])
					}
				}
			}
		})
		putI32s(outs[1], info)
		return nil
	}
}

// getrfRecS is getrfRec in single precision.
func getrfRecS[T single](par parallelFn, m, n int, a []T, lda int, ipiv []int32) int {
	kmin := min(m, n)
	if kmin <= luBase || n <= luBase {
		return getf2S(m, n, a, lda, ipiv)
	}
	n1 := kmin / 2
	if n1 > 2*luBase {
		n1 = n1 / luBase * luBase
	}
	n2 := n - n1
	info := getrfRecS(par, m, n1, a, lda, ipiv[:n1])
	swapRows(a[n1:], lda, n2, ipiv[:n1], 0)
	trsmParS(par, triParams{left: true, lower: true, unit: true, trans: 'N'}, a, lda, n1, a[n1:], lda, n1, n2)
	gemmUpdS(par, m-n1, n2, n1, a[n1*lda:], lda, 1, false, a[n1:], lda, 1, false, a[n1*lda+n1:], lda)
	rest := ipiv[n1:kmin]
	info2 := getrfRecS(par, m-n1, n2, a[n1*lda+n1:], lda, rest)
	if info == 0 && info2 > 0 {
		info = info2 + n1
	}
	for i := range rest {
		rest[i] += int32(n1)
	}
	swapRows(a, lda, n1, rest, n1)
	return info
}

// trsmS is trsm in single precision ('C' conjugates complex64 and reads
// as 'T' for float32).
func trsmS[T single](p triParams, a []T, lda, k int, b []T, ldb, m, n int) {
	if isC64[T]() {
		trsmC64Leaf(p, any(a).([]complex64), lda, k, any(b).([]complex64), ldb, m, n)
		return
	}
	cj := p.trans == 'C' && isC64[T]()
	at := func(i, j int) T {
		if i == j && p.unit {
			return 1
		}
		if cj {
			return conjS(a[j*lda+i])
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
				if !isC64[T]() {
					axpyF32(asF32s(xi), asF32s(xk), -*(*float32)(unsafe.Pointer(&f)))
					continue
				}
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

// trsmC64Leaf solves a complex64 leaf in float64 arithmetic (B as real and
// imaginary planes, updated by vector real axpys) and rounds each result
// once: a complex product rounded in float32 loses its small component to
// the large one's rounding (an element 0.3136+31.39i came out 1.9e-6 off in
// its real part, where LAPACK's ctrsm and the wide solve agree). Leaves are
// at most trsmBase wide, so the copies cost little beside the solve; the
// wide copies live in the package's pooled scratch (leaves run per block).
func trsmC64Leaf(p triParams, a []complex64, lda, k int, b []complex64, ldb, m, n int) {
	// The planes sit 4 KiB + 128 B apart (not a multiple of 4 KiB, which
	// would alias their loads and stores).
	sc := getBuf[complex128](&poolGenC128, k*k+m*n+k+8)
	defer sc.release()
	// mt is M = op(tri(A)) with zeros off its triangle (transposed for a
	// right-side solve, so that both sides read rows), rd the reciprocals
	// of its diagonal.
	mt, rd, bw := sc.s[:k*k], sc.s[k*k:k*k+k], sc.s[k*k+k:]
	clear(mt)
	mLower := p.lower == (p.trans == 'N')
	for i := 0; i < k; i++ {
		j0, j1 := 0, i+1
		if !p.lower {
			j0, j1 = i, k
		}
		for j, v := range a[i*lda+j0 : i*lda+j1] {
			j += j0
			w := complex128(v)
			if p.trans == 'C' {
				w = cmplx.Conj(w)
			}
			// A(i, j) is M(i, j) for 'N', else M(j, i); stored at
			// mt[r*k+c] with (r, c) = (i, j) for rows of M.
			r, c := i, j
			if (p.trans != 'N') != !p.left {
				r, c = j, i
			}
			mt[r*k+c] = w
		}
	}
	for i := 0; i < k; i++ {
		if p.unit {
			mt[i*k+i] = 1
		}
		rd[i] = 1 / mt[i*k+i]
	}
	// B's real and imaginary parts as planes (row-major for a left solve,
	// column-major for a right one): X's rows (columns) are then updated by
	// real axpys on the vector kernel.
	xr, xi := reIm(bw)[:m*n], reIm(bw)[m*n+16:2*m*n+16]
	ld, es := n, 1 // vec length, and the planes' stride along B's rows
	if !p.left {
		ld, es = m, m
	}
	for i := 0; i < m; i++ {
		o := i * n
		if !p.left {
			o = i
		}
		for _, v := range b[i*ldb : i*ldb+n] {
			xr[o], xi[o] = float64(real(v)), float64(imag(v))
			o += es
		}
	}
	// vec r of X (a row for a left solve, a column for a right one) less
	// the combination of vecs k0..k1-1 with coefficients f(kk), then times
	// rd[r] (scale).
	upd := func(r, k0, k1 int, scale bool) {
		yr, yi := xr[r*ld:(r+1)*ld], xi[r*ld:(r+1)*ld]
		for kk := k0; kk < k1; kk++ {
			c := mt[r*k+kk]
			if c == 0 {
				continue
			}
			cr, ci := real(c), imag(c)
			// y −= c·x: Re −= cr·xr − ci·xi, Im −= ci·xr + cr·xi.
			axpy2F64(yr, yi, xr[kk*ld:(kk+1)*ld], -cr, -ci)
			axpy2F64(yr, yi, xi[kk*ld:(kk+1)*ld], ci, -cr)
		}
		if scale {
			d := rd[r]
			dr, di := real(d), imag(d)
			for j, vr := range yr {
				vi := yi[j]
				yr[j], yi[j] = vr*dr-vi*di, vr*di+vi*dr
			}
		}
	}
	if p.left {
		// Row i of X from the rows already solved, all columns at once.
		if mLower {
			for i := 0; i < m; i++ {
				upd(i, 0, i, !p.unit)
			}
		} else {
			for i := m - 1; i >= 0; i-- {
				upd(i, i+1, m, !p.unit)
			}
		}
	} else {
		// Each row x of X solves x·M = b: column j of X is B's column j
		// less the solved columns times M(kk, j), which is mt[j*k+kk].
		if !mLower {
			for j := 0; j < n; j++ {
				upd(j, 0, j, !p.unit)
			}
		} else {
			for j := n - 1; j >= 0; j-- {
				upd(j, j+1, n, !p.unit)
			}
		}
	}
	for i := 0; i < m; i++ {
		o := i * n
		if !p.left {
			o = i
		}
		row := b[i*ldb : i*ldb+n]
		for j := range row {
			row[j] = complex(float32(xr[o]), float32(xi[o]))
			o += es
		}
	}
}

// trsmParS is trsmPar in single precision.
func trsmParS[T single](par parallelFn, p triParams, a []T, lda, k int, b []T, ldb, m, n int) {
	if m*n*k < 1<<16 {
		trsmBlockedS(p, a, lda, k, b, ldb, m, n)
		return
	}
	if p.left {
		const cw = 64
		par(ceilDiv(n, cw), 1, func(lo, hi int) {
			j0, j1 := lo*cw, min(n, hi*cw)
			trsmBlockedS(p, a, lda, k, b[j0:], ldb, m, j1-j0)
		})
		return
	}
	const rw = 32
	par(ceilDiv(m, rw), 1, func(lo, hi int) {
		i0, i1 := lo*rw, min(m, hi*rw)
		trsmBlockedS(p, a, lda, k, b[i0*ldb:], ldb, i1-i0, n)
	})
}

// trsmBlockedS is trsmBlocked in single precision: halves of the triangle
// solved recursively, the coupling block removed by an f32 matrix product.
func trsmBlockedS[T single](p triParams, a []T, lda, k int, b []T, ldb, m, n int) {
	if k <= trsmBase || m == 0 || n == 0 || (p.left && n < 4) || (!p.left && m < 4) {
		trsmS(p, a, lda, k, b, ldb, m, n)
		return
	}
	k1 := k / 2
	if k1 > 2*trsmBase {
		k1 = k1 / trsmBase * trsmBase
	}
	k2 := k - k1
	mLower := p.lower == (p.trans == 'N')
	// The off-diagonal block of M = op(tri(A)), conjugated for 'C'.
	off := func(r0, c0 int) (blk []T, rs, cs int, cj bool) {
		if p.trans == 'N' {
			return a[r0*lda+c0:], lda, 1, false
		}
		return a[c0*lda+r0:], 1, lda, p.trans == 'C'
	}
	a22 := a[k1*lda+k1:]
	if p.left {
		b1, b2 := b, b[k1*ldb:]
		if mLower {
			trsmBlockedS(p, a, lda, k1, b1, ldb, k1, n)
			m21, rs, cs, cj := off(k1, 0)
			gemmUpdS(serial, k2, n, k1, m21, rs, cs, cj, b1, ldb, 1, false, b2, ldb)
			trsmBlockedS(p, a22, lda, k2, b2, ldb, k2, n)
			return
		}
		trsmBlockedS(p, a22, lda, k2, b2, ldb, k2, n)
		m12, rs, cs, cj := off(0, k1)
		gemmUpdS(serial, k1, n, k2, m12, rs, cs, cj, b2, ldb, 1, false, b1, ldb)
		trsmBlockedS(p, a, lda, k1, b1, ldb, k1, n)
		return
	}
	b1, b2 := b, b[k1:]
	if mLower {
		trsmBlockedS(p, a22, lda, k2, b2, ldb, m, k2)
		m21, rs, cs, cj := off(k1, 0)
		gemmUpdS(serial, m, k1, k2, b2, ldb, 1, false, m21, rs, cs, cj, b1, ldb)
		trsmBlockedS(p, a, lda, k1, b1, ldb, m, k1)
		return
	}
	trsmBlockedS(p, a, lda, k1, b1, ldb, m, k1)
	m12, rs, cs, cj := off(0, k1)
	gemmUpdS(serial, m, k2, k1, b1, ldb, 1, false, m12, rs, cs, cj, b2, ldb)
	trsmBlockedS(p, a22, lda, k2, b2, ldb, m, k2)
}

// getrfStepS factors a batch of f32 or c64 matrices in place in the output.
func getrfStepS[T single](par parallelFn, batch, m, n int) kernel.Step {
	k := min(m, n)
	return func(ins, outs [][]byte) error {
		a := byteview.As[T](outs[0])[:batch*m*n]
		copy(a, byteview.As[T](ins[0]))
		ipiv := kernel.Make[int32](batch * k)
		info := make([]int32, batch)
		forBatch(par, batch, m*n*k+1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				info[b] = int32(getrfRecS(par, m, n, a[b*m*n:(b+1)*m*n], n, ipiv[b*k:(b+1)*k]))
			}
		})
		putI32s(outs[1], ipiv)
		putI32s(outs[2], info)
		return nil
	}
}

// trsmRunS solves a batch of f32 or c64 triangular systems in place in the
// output.
func trsmRunS[T single](par parallelFn, p triParams, batch, k, m, n int) kernel.Step {
	return func(ins, outs [][]byte) error {
		a := byteview.As[T](ins[0])
		b := byteview.As[T](outs[0])[:batch*m*n]
		copy(b, byteview.As[T](ins[1]))
		forBatch(par, batch, k*m*n+1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				trsmParS(par, p, a[i*k*k:(i+1)*k*k], k, k, b[i*m*n:(i+1)*m*n], n, m, n)
			}
		})
		return nil
	}
}

// choleskyStepS is choleskyStep for f32 and c64, in place in the output.
func choleskyStepS[T single](par parallelFn, batch, n int, lower bool) kernel.Step {
	return func(ins, outs [][]byte) error {
		all := byteview.As[T](outs[0])[:batch*n*n]
		copy(all, byteview.As[T](ins[0]))
		forBatch(par, batch, n*n*n/3+1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				m := all[b*n*n : (b+1)*n*n]
				if !lower {
					// The upper triangle of A is the conjugate of a lower one.
					for i := 0; i < n; i++ {
						for j := 0; j < i; j++ {
							m[i*n+j] = conjS(m[j*n+i])
						}
					}
				}
				if potrfBlockedS(par, m, n, n) != 0 {
					nan := float32(math.NaN())
					f := asF32s(m)
					for i := range f {
						f[i] = nan
					}
					continue
				}
				var zero T
				for i := 0; i < n; i++ {
					for j := i + 1; j < n; j++ {
						if lower {
							m[i*n+j] = zero
						} else {
							m[i*n+j] = conjS(m[j*n+i])
							m[j*n+i] = zero
						}
					}
				}
			}
		})
		return nil
	}
}
