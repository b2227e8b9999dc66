package linalg

import (
	"math"
	"unsafe"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// syevd/heevd: eigenvalues (ascending) and eigenvectors (columns of the
// first result) of a symmetric/Hermitian matrix, reading the uplo triangle.
// Real matrices are reduced to tridiagonal form by the blocked sytrdFull
// (sytrd.go), complex ones with hetd2; the real tridiagonal is solved by
// implicit QL (tridiag.go), its rotations applied to the rows of Qᵀ, which
// become the eigenvectors. Eigenvectors are unique only up to
// sign/phase (and within degenerate eigenspaces), as with LAPACK.

func init() {
	registerLapack("sd", "syevd", lowerEigh)
	registerLapack("cz", "heevd", lowerEigh)
}

func lowerEigh(ctx kernel.Context, cc *customCall) (kernel.Step, error) {
	mode, err := cc.char("mode", 'V', "NV")
	if err != nil {
		return nil, err
	}
	uplo, err := cc.char("uplo", 'L', "LU")
	if err != nil {
		return nil, err
	}
	if len(cc.ins) != 1 || cc.ins[0].Rank() < 2 {
		return nil, cc.errorf("want one matrix operand")
	}
	n := int(cc.ins[0].Shape[cc.ins[0].Rank()-1])
	batch, err := cc.expect([]spec{{cc.elem, []int{n, n}}}, []spec{{cc.elem, []int{n, n}}, {realOf(cc.elem), []int{n}}, {ir.S32, nil}})
	if err != nil {
		return nil, err
	}
	nb := numel(batch)
	lower := uplo == 'L'
	name := cc.target
	if cc.elem.IsComplex() {
		return heevStep(ctx.Parallel, name, cc.elem, nb, n, lower), nil
	}
	_ = mode // vectors are always computed; with mode N LAPACK leaves the first result unspecified
	return syevStep(ctx.Parallel, name, cc.elem, nb, n, lower), nil
}

func syevStep(par parallelFn, name string, et ir.ElemType, batch, n int, lower bool) kernel.Step {
	return func(ins, outs [][]byte) error {
		a := f64scratch(batch * n * n)
		w := f64scratch(batch * n)
		defer a.release()
		defer w.release()
		toF64(a.s, ins[0], et)
		info := make([]int32, batch)
		var fe firstErr
		forBatch(par, batch, 9*n*n*n+1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				fe.catch(name, func() {
					if !syevQL(par, lower, n, a.s[b*n*n:(b+1)*n*n], w.s[b*n:(b+1)*n], et == ir.F32) {
						info[b] = 1
					}
				})
			}
		})
		if fe.err != nil {
			return fe.err
		}
		fromF64(outs[0], a.s, et)
		fromF64(outs[1], w.s, realOf(et))
		putI32s(outs[2], info)
		return nil
	}
}

// syevQL overwrites a (row-major, the lower or upper triangle read) with
// the eigenvectors of the symmetric matrix and w with its eigenvalues,
// ascending: A = Q·T·Qᵀ by the blocked sytrdFull, Qᵀ formed explicitly,
// then QL iteration on T rotates the rows of Qᵀ into the eigenvectors.
// With single, the rows are rotated in float32 (ssteqr's precision, at
// twice the vector width).
func syevQL(par parallelFn, lower bool, n int, a, w []float64, single bool) bool {
	if n == 0 {
		return true
	}
	buf := f64scratch(2*n + n*n)
	defer buf.release()
	ee, tau, zt := buf.s[:n], buf.s[n:2*n], buf.s[2*n:]
	symmetrize(a, n, lower)
	sytrdFull(par, n, a, w, ee, tau)
	formQT(par, n, a, tau, zt)
	if !tqlRotIn(par, n, w, ee, zt, single) {
		return false
	}
	perm := ascending(w)
	copy(ee, w)
	for j, p := range perm {
		w[j] = ee[p]
		row := zt[p*n : (p+1)*n]
		for i, v := range row {
			a[i*n+j] = v
		}
	}
	return true
}

// tqlRotIn is tqlRot on the n×n zt, in float32 copies of its rows when
// single.
func tqlRotIn(par parallelFn, n int, d, e, zt []float64, single bool) bool {
	if !single {
		return tqlRot(par, n, d, e, zt, n, n)
	}
	z := f32scratch(n * n)
	defer z.release()
	for i, v := range zt[:n*n] {
		z.s[i] = float32(v)
	}
	ok := tqlRot(par, n, d, e, z.s, n, n)
	for i, v := range z.s {
		zt[i] = float64(v)
	}
	return ok
}

// heevStep: complex Hermitian eigendecomposition via tridiagonalization.
func heevStep(par parallelFn, name string, et ir.ElemType, batch, n int, lower bool) kernel.Step {
	return func(ins, outs [][]byte) error {
		a := c128scratch(batch * n * n)
		w := f64scratch(batch * n)
		defer a.release()
		defer w.release()
		toC128(a.s, ins[0], et)
		info := make([]int32, batch)
		var fe firstErr
		forBatch(par, batch, 30*n*n*n+1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				fe.catch(name, func() {
					info[b] = int32(heev(par, n, a.s[b*n*n:(b+1)*n*n], w.s[b*n:(b+1)*n], lower, et == ir.C64))
				})
			}
		})
		if fe.err != nil {
			return fe.err
		}
		fromC128(outs[0], a.s, et)
		fromF64(outs[1], w.s, realOf(et))
		putI32s(outs[2], info)
		return nil
	}
}

// heev overwrites a with the eigenvectors of the Hermitian matrix held in
// its lower (or upper) triangle and w with the ascending eigenvalues;
// returns a LAPACK-style info (>0: QL iteration failed). With single, the
// QL rotations act on float32 copies of the vectors (cheevd's precision).
func heev(par parallelFn, n int, a []complex128, w []float64, lower, single bool) int {
	if n == 0 {
		return 0
	}
	if !lower {
		// The same Hermitian matrix, described by its lower triangle.
		for i := 0; i < n; i++ {
			for j := 0; j < i; j++ {
				a[i*n+j] = complex(real(a[j*n+i]), -imag(a[j*n+i]))
			}
		}
	}
	d := w
	e := kernel.Make[float64](max(n-1, 0))
	tau := kernel.Make[complex128](max(n-1, 0))
	work := kernel.Make[complex128](n)
	hetd2(true, n, a, n, d, e, tau, work)
	// Q = H(0)·…·H(n-2): the reflectors sit one row below the diagonal,
	// so Q = diag(1, Q') with Q' from org2r on the shifted block.
	q := kernel.Make[complex128](n * n)
	q[0] = 1
	if n > 1 {
		m := n - 1
		sub := kernel.Make[complex128](m * m)
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				sub[i*m+j] = a[(i+1)*n+j]
			}
		}
		org2r(m, m, m, sub, m, tau, work)
		for i := 0; i < m; i++ {
			copy(q[(i+1)*n+1:(i+2)*n], sub[i*m:(i+1)*m])
		}
	}
	// Eigenvectors: QL rotations of the rows of Qᵀ (real rotations act on
	// real and imaginary parts alike, so the rows are rotated as float64
	// pairs).
	zt := kernel.Make[complex128](n * n)
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			zt[k*n+i] = q[i*n+k]
		}
	}
	ee := append(e, 0)
	ztf := unsafe.Slice((*float64)(unsafe.Pointer(&zt[0])), 2*n*n)
	ok := false
	if single {
		z := f32scratch(2 * n * n)
		for i, v := range ztf {
			z.s[i] = float32(v)
		}
		ok = tqlRot(par, n, d, ee, z.s, 2*n, 2*n)
		for i, v := range z.s {
			ztf[i] = float64(v)
		}
		z.release()
	} else {
		ok = tqlRot(par, n, d, ee, ztf, 2*n, 2*n)
	}
	if !ok {
		nan := complex(math.NaN(), math.NaN())
		for i := range a {
			a[i] = nan
		}
		return 1
	}
	perm := ascending(d)
	dd := append([]float64(nil), d...)
	for j, p := range perm {
		d[j] = dd[p]
		for i := 0; i < n; i++ {
			a[i*n+j] = zt[p*n+i]
		}
	}
	return 0
}
