package conformance

import (
	"fmt"
	"math"
	"math/cmplx"
	"sort"
)

// Property checks for the jax-export vectors whose outputs are defined only
// up to sign, phase or order (index.json jax_check.how describes each; they
// mirror tests/export_back_compat_test.py). Matrices are complex128 whatever
// the dtype.

type propertyCheck func(ins, got, want []*Array, rtol, atol float64) error

var propertyChecks = map[string]propertyCheck{
	"cpu_eig_lapack_geev":            checkEig,
	"cpu_eigh_lapack_syev":           checkEigh,
	"cpu_lu_lapack_getrf":            checkLU,
	"cpu_schur_lapack_gees":          checkSchur,
	"cpu_svd_lapack_gesdd":           checkSVD,
	"cpu_triangular_solve_blas_trsm": checkTriangularSolve,
	"stablehlo_dynamic_top_k":        checkTopK,
	"stablehlo_dynamic_approx_top_k": checkTopK,
}

// mat is a dense row-major complex matrix.
type mat struct {
	r, c int
	d    []complex128
}

func newMat(r, c int) *mat { return &mat{r: r, c: c, d: make([]complex128, r*c)} }

func (m *mat) at(i, j int) complex128     { return m.d[i*m.c+j] }
func (m *mat) set(i, j int, v complex128) { m.d[i*m.c+j] = v }

// matrices splits an array of shape [..., r, c] into its batch of matrices.
func matrices(a *Array) ([]*mat, error) {
	s := a.Type.Shape
	if len(s) < 2 {
		return nil, fmt.Errorf("expected a matrix, got %s", a.Type)
	}
	r, c := int(s[len(s)-2]), int(s[len(s)-1])
	v := values(a)
	var out []*mat
	for off := 0; off+r*c <= len(v) && r*c > 0; off += r * c {
		out = append(out, &mat{r: r, c: c, d: v[off : off+r*c]})
	}
	return out, nil
}

func mul(a, b *mat) *mat {
	out := newMat(a.r, b.c)
	for i := 0; i < a.r; i++ {
		for k := 0; k < a.c; k++ {
			x := a.at(i, k)
			for j := 0; j < b.c; j++ {
				out.d[i*out.c+j] += x * b.at(k, j)
			}
		}
	}
	return out
}

func adjoint(a *mat) *mat {
	out := newMat(a.c, a.r)
	for i := 0; i < a.r; i++ {
		for j := 0; j < a.c; j++ {
			out.set(j, i, cmplx.Conj(a.at(i, j)))
		}
	}
	return out
}

func sub(a, b *mat) *mat {
	out := newMat(a.r, a.c)
	for i := range a.d {
		out.d[i] = a.d[i] - b.d[i]
	}
	return out
}

func eye(n int) *mat {
	m := newMat(n, n)
	for i := 0; i < n; i++ {
		m.set(i, i, 1)
	}
	return m
}

// frob is the Frobenius norm.
func frob(a *mat) float64 {
	s := 0.0
	for _, x := range a.d {
		s += real(x)*real(x) + imag(x)*imag(x)
	}
	return math.Sqrt(s)
}

// arange builds the n x n matrix 0, 1, 2, ... the export tests use as operand.
func arange(n int) *mat {
	m := newMat(n, n)
	for i := range m.d {
		m.d[i] = complex(float64(i), 0)
	}
	return m
}

func closeMats(what string, got, want *mat, rtol, atol float64) error {
	return closeValues(what, []int64{int64(got.r), int64(got.c)}, got.d, want.d, rtol, atol)
}

// checkEig: eigenvalues match as a set; eigenvectors satisfy
// ||A v - w v|| / ((n+1) eps) < 100 (right) and ||v^H A - w v^H|| likewise
// (left), with A = arange(16).reshape(4, 4).
func checkEig(_, got, want []*Array, rtol, atol float64) error {
	if len(got) != 3 {
		return fmt.Errorf("eig: expected 3 outputs, got %s", describeShapes(got))
	}
	w, wantW := values(got[0]), values(want[0])
	if err := sameSet("eigenvalues", w, wantW, rtol, atol); err != nil {
		return err
	}
	n := len(w)
	a := arange(n)
	e := eps(got[0].Type.Elem)
	for k, side := range []string{"left", "right"} {
		vs, err := matrices(got[1+k])
		if err != nil {
			return err
		}
		v := vs[0]
		for j := 0; j < n; j++ {
			res := 0.0
			for i := 0; i < n; i++ {
				var s complex128
				if side == "right" { // (A v)_i - w v_i
					for l := 0; l < n; l++ {
						s += a.at(i, l) * v.at(l, j)
					}
					s -= w[j] * v.at(i, j)
				} else { // (v^H A)_i - w conj(v_i)
					for l := 0; l < n; l++ {
						s += cmplx.Conj(v.at(l, j)) * a.at(l, i)
					}
					s -= w[j] * cmplx.Conj(v.at(i, j))
				}
				res += real(s)*real(s) + imag(s)*imag(s)
			}
			if r := math.Sqrt(res) / (float64(n+1) * e); r >= 100 {
				return fmt.Errorf("eig: %s eigenvector %d residual %.3g (in (n+1) eps units) >= 100", side, j, r)
			}
		}
	}
	return nil
}

// sameSet matches each expected value to a distinct close actual value.
func sameSet(what string, got, want []complex128, rtol, atol float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d values, expected %d", what, len(got), len(want))
	}
	used := make([]bool, len(got))
	for _, w := range want {
		best, bestD := -1, math.Inf(1)
		for i, g := range got {
			if !used[i] && cmplx.Abs(g-w) < bestD {
				best, bestD = i, cmplx.Abs(g-w)
			}
		}
		if best < 0 || bestD > atol+rtol*cmplx.Abs(w) {
			return fmt.Errorf("%s: expected value %v has no match in %v (rtol %g, atol %g)", what, w, got, rtol, atol)
		}
		used[best] = true
	}
	return nil
}

// checkEigh: V unitary (||I - V^H V|| <= rtol), A V = V diag(w) within rtol ||A||
// for A = (M + M^H)/2, M = arange(n*n); w allclose to the expected values.
func checkEigh(_, got, want []*Array, rtol, atol float64) error {
	if len(got) != 2 {
		return fmt.Errorf("eigh: expected 2 outputs, got %s", describeShapes(got))
	}
	vs, err := matrices(got[0])
	if err != nil {
		return err
	}
	v := vs[0]
	n := v.r
	if err := allClose("eigenvalues", got[1], want[1], rtol, atol); err != nil {
		return err
	}
	w := values(got[1])
	m := arange(n)
	a := newMat(n, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a.set(i, j, (m.at(i, j)+cmplx.Conj(m.at(j, i)))/2)
		}
	}
	if d := frob(sub(eye(n), mul(adjoint(v), v))); d > rtol {
		return fmt.Errorf("eigh: ||I - V^H V|| = %.3g > rtol %g", d, rtol)
	}
	vw := newMat(n, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			vw.set(i, j, v.at(i, j)*w[j])
		}
	}
	if d := frob(sub(mul(a, v), vw)); d > rtol*frob(a) {
		return fmt.Errorf("eigh: ||A V - V diag(w)|| = %.3g > rtol ||A|| = %.3g", d, rtol*frob(a))
	}
	return nil
}

// checkLU: rows of A = arange(n*n) swapped by the pivots equal L U.
func checkLU(_, got, _ []*Array, rtol, atol float64) error {
	if len(got) < 2 {
		return fmt.Errorf("lu: expected packed LU and pivots, got %s", describeShapes(got))
	}
	lus, err := matrices(got[0])
	if err != nil {
		return err
	}
	lu := lus[0]
	n := lu.r
	piv := values(got[1])
	l, u := newMat(n, n), newMat(n, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			switch {
			case i > j:
				l.set(i, j, lu.at(i, j))
			case i == j:
				l.set(i, j, 1)
				u.set(i, j, lu.at(i, j))
			default:
				u.set(i, j, lu.at(i, j))
			}
		}
	}
	a := arange(n)
	for i := 0; i < n && i < len(piv); i++ {
		p := int(real(piv[i]))
		if p < 0 || p >= n {
			return fmt.Errorf("lu: pivot %d = %d out of range", i, p)
		}
		for j := 0; j < n; j++ {
			x, y := a.at(i, j), a.at(p, j)
			a.set(i, j, y)
			a.set(p, j, x)
		}
	}
	return closeMats("lu: P A vs L U", mul(l, u), a, rtol, atol)
}

// checkSchur: S T S^H equals the input.
func checkSchur(ins, got, _ []*Array, rtol, atol float64) error {
	if len(got) != 2 || len(ins) != 1 {
		return fmt.Errorf("schur: expected 1 input and 2 outputs, got %s -> %s", describeShapes(ins), describeShapes(got))
	}
	ts, err := matrices(got[0])
	if err != nil {
		return err
	}
	ss, err := matrices(got[1])
	if err != nil {
		return err
	}
	as, err := matrices(ins[0])
	if err != nil {
		return err
	}
	return closeMats("schur: S T S^H vs A", mul(mul(ss[0], ts[0]), adjoint(ss[0])), as[0], rtol, atol)
}

// checkSVD: relative reconstruction error of A below 160 eps; U and V^H
// unitary within 80 eps.
func checkSVD(ins, got, _ []*Array, _, _ float64) error {
	if len(got) != 3 || len(ins) != 1 {
		return fmt.Errorf("svd: expected 1 input and 3 outputs, got %s -> %s", describeShapes(ins), describeShapes(got))
	}
	as, err := matrices(ins[0])
	if err != nil {
		return err
	}
	us, err := matrices(got[0])
	if err != nil {
		return err
	}
	vhs, err := matrices(got[2])
	if err != nil {
		return err
	}
	s := values(got[1])
	e := eps(ins[0].Type.Elem)
	for b := range as {
		a, u, vh := as[b], us[b], vhs[b]
		k := u.c
		us := newMat(u.r, k)
		for i := 0; i < u.r; i++ {
			for j := 0; j < k; j++ {
				us.set(i, j, u.at(i, j)*s[b*k+j])
			}
		}
		if rel := frob(sub(mul(us, vh), a)) / frob(a); rel >= 160*e {
			return fmt.Errorf("svd: batch %d relative reconstruction error %.3g >= 160 eps (%.3g)", b, rel, 160*e)
		}
		if d := frob(sub(eye(u.c), mul(adjoint(u), u))); d >= 80*e {
			return fmt.Errorf("svd: batch %d U not unitary: ||I - U^H U|| = %.3g >= 80 eps", b, d)
		}
		if d := frob(sub(eye(vh.r), mul(vh, adjoint(vh)))); d >= 80*e {
			return fmt.Errorf("svd: batch %d V not unitary: ||I - V^H V|| = %.3g >= 80 eps", b, d)
		}
	}
	return nil
}

// checkTriangularSolve: in0 @ out0 equals in1.
func checkTriangularSolve(ins, got, _ []*Array, rtol, atol float64) error {
	if len(ins) != 2 || len(got) != 1 {
		return fmt.Errorf("trsm: expected 2 inputs and 1 output, got %s -> %s", describeShapes(ins), describeShapes(got))
	}
	as, err := matrices(ins[0])
	if err != nil {
		return err
	}
	bs, err := matrices(ins[1])
	if err != nil {
		return err
	}
	xs, err := matrices(got[0])
	if err != nil {
		return err
	}
	return closeMats("trsm: A X vs B", mul(as[0], xs[0]), bs[0], rtol, atol)
}

// checkTopK: values equal the input gathered at the returned indices (per
// row), and the sorted values are close to the sorted expected ones.
func checkTopK(ins, got, want []*Array, rtol, atol float64) error {
	if len(ins) != 1 || len(got) != 2 {
		return fmt.Errorf("top_k: expected 1 input and 2 outputs, got %s -> %s", describeShapes(ins), describeShapes(got))
	}
	in, vals, idx := values(ins[0]), values(got[0]), values(got[1])
	inShape, outShape := ins[0].Type.Shape, got[0].Type.Shape
	rowIn, rowOut := int(inShape[len(inShape)-1]), int(outShape[len(outShape)-1])
	if rowIn == 0 || rowOut == 0 {
		return nil
	}
	for i := range vals {
		row := i / rowOut
		k := int(real(idx[i]))
		if k < 0 || k >= rowIn {
			return fmt.Errorf("top_k: index %d at %s out of range", k, index(outShape, i))
		}
		if in[row*rowIn+k] != vals[i] {
			return fmt.Errorf("top_k: value at %s is %v but input[%d] is %v", index(outShape, i), vals[i], k, in[row*rowIn+k])
		}
	}
	wantVals := values(want[0])
	for r := 0; r < len(vals)/rowOut; r++ {
		g := sortedReal(vals[r*rowOut : (r+1)*rowOut])
		w := sortedReal(wantVals[r*rowOut : (r+1)*rowOut])
		if err := closeValues(fmt.Sprintf("top_k row %d (sorted)", r), []int64{int64(rowOut)}, g, w, rtol, atol); err != nil {
			return err
		}
	}
	return nil
}

func sortedReal(xs []complex128) []complex128 {
	out := append([]complex128(nil), xs...)
	sort.Slice(out, func(i, j int) bool { return real(out[i]) < real(out[j]) })
	return out
}
