package linalg

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand"
	"sort"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// Property checks for the routines whose vectors are defined only up to
// sign/phase: A·V = V·diag(w), unitarity, reconstruction, and eigen/singular
// values against numpy.

const eigPyScript = `
import json, sys
import numpy as np
res = []
for c in json.load(sys.stdin):
    a = (np.array(c["re"]) + 1j * np.array(c["im"])).reshape(c["shape"])
    if c["kind"] == "eigh":
        w = np.linalg.eigvalsh(a, UPLO=c["uplo"])
        res.append({"re": w.tolist(), "im": [0.0] * len(w)})
    elif c["kind"] == "svd":
        s = np.linalg.svd(a, compute_uv=False)
        res.append({"re": s.tolist(), "im": [0.0] * len(s)})
    else:
        w = np.linalg.eigvals(a)
        res.append({"re": w.real.tolist(), "im": w.imag.tolist()})
json.dump(res, sys.stdout)
`

type eigCase struct {
	kind  string
	uplo  byte
	a     []complex128
	shape []int64
}

func pyValues(t *testing.T, cases []eigCase) [][]complex128 {
	var in []map[string]any
	for _, c := range cases {
		re, imv := make([]float64, len(c.a)), make([]float64, len(c.a))
		for i, x := range c.a {
			re[i], imv[i] = real(x), imag(x)
		}
		in = append(in, map[string]any{"kind": c.kind, "uplo": string(c.uplo), "re": re, "im": imv, "shape": c.shape})
	}
	var out []pyArr
	pyRef(t, eigPyScript, in, &out)
	res := make([][]complex128, len(out))
	for i := range out {
		res[i] = fromPy(out[i])
	}
	return res
}

// hermitianFromTriangle builds the full matrix LAPACK sees from one triangle.
func hermitianFromTriangle(a []complex128, n int, lower bool) []complex128 {
	h := make([]complex128, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			src := a[i*n+j]
			if (lower && j > i) || (!lower && j < i) {
				src = cmplx.Conj(a[j*n+i])
			}
			if i == j {
				src = complex(real(src), 0)
			}
			h[i*n+j] = src
		}
	}
	return h
}

func frob(a []complex128) float64 {
	s := 0.0
	for _, x := range a {
		s += real(x)*real(x) + imag(x)*imag(x)
	}
	return math.Sqrt(s)
}

func TestEighProperties(t *testing.T) {
	r := rand.New(rand.NewSource(31))
	const batch = 2
	type item struct {
		pr   int
		uplo byte
		n    int
		in   []complex128
	}
	// Inputs first, so that numpy's eigenvalues come from one call.
	var items []item
	var cases []eigCase
	for pi, pr := range lapackPrefixes {
		for _, uplo := range []byte{'L', 'U'} {
			for _, n := range []int{1, 4, 9} {
				in := decodeAs(encodeAs(randMat(r, batch*n*n, pr.cplx), pr.name), pr.name)
				if n == 9 {
					// A degenerate spectrum: eigenvalue 2 with multiplicity 3.
					for i := range in[:n*n] {
						in[i] = 0
					}
					for i := 0; i < n; i++ {
						d := float64(i)
						if i == 3 || i == 4 {
							d = 2
						}
						in[i*n+i] = complex(d, 0)
					}
				}
				items = append(items, item{pi, uplo, n, in})
				for b := 0; b < batch; b++ {
					h := hermitianFromTriangle(in[b*n*n:(b+1)*n*n], n, uplo == 'L')
					cases = append(cases, eigCase{kind: "eigh", uplo: uplo, a: h, shape: []int64{int64(n), int64(n)}})
				}
			}
		}
	}
	refs := pyValues(t, cases)
	for ii, it := range items {
		pr, uplo, n, in := lapackPrefixes[it.pr], it.uplo, it.n, it.in
		name := "syevd"
		if pr.cplx {
			name = "heevd"
		}
		t.Run(fmt.Sprintf("%s%s/%c/%d", pr.p, name, uplo, n), func(t *testing.T) {
			et := elemOf(pr.name)
			op := ccOp("lapack_"+pr.p+name+"_ffi", []*ir.TensorType{ir.Tensor(et, batch, int64(n), int64(n))},
				[]*ir.TensorType{ir.Tensor(et, batch, int64(n), int64(n)), ir.Tensor(realOf(et), batch, int64(n)), ir.Tensor(ir.S32, batch)},
				ir.Attrs{"mode": u8('V'), "uplo": u8(uplo)})
			outs := runOp(t, fakeCtx{2}, op, encodeAs(in, pr.name))
			v := decodeAs(outs[0], pr.name)
			w := decodeAs(outs[1], map[bool]string{true: "f32", false: "f64"}[et == ir.F32 || et == ir.C64])
			for b := 0; b < batch; b++ {
				require.Equal(t, int64(0), loadInt(ir.S32, outs[2], b))
				h := cases[ii*batch+b].a
				vb := v[b*n*n : (b+1)*n*n]
				wb := w[b*n : (b+1)*n]
				for i := 1; i < n; i++ {
					require.LessOrEqual(t, real(wb[i-1]), real(wb[i]), "ascending")
				}
				dw := make([]complex128, n*n)
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						dw[i*n+j] = vb[i*n+j] * wb[j]
					}
				}
				scale := max(frob(h), 1)
				require.Less(t, maxAbsDiff(matMul(h, n, n, vb, n), dw), pr.tol*10*scale)
				require.Less(t, maxAbsDiff(matMul(adjoint(vb, n, n), n, n, vb, n), eye(n)), pr.tol*10)
				requireClose(t, refs[ii*batch+b], wb, pr.tol*10, "eigenvalues")
			}
		})
	}
}

func TestGesddProperties(t *testing.T) {
	r := rand.New(rand.NewSource(32))
	// Inputs first, so that numpy's singular values come from one call.
	var inputs [][]complex128
	var cases []eigCase
	for _, pr := range lapackPrefixes {
		for range []byte{'A', 'S', 'N'} {
			for _, mn := range [][2]int{{4, 4}, {6, 3}, {3, 6}, {5, 5}} {
				m, n := mn[0], mn[1]
				a := decodeAs(encodeAs(randMat(r, m*n, pr.cplx), pr.name), pr.name)
				if m == 5 {
					// Rank 2: three zero singular values.
					x, y := randMat(r, m*2, pr.cplx), randMat(r, 2*n, pr.cplx)
					a = decodeAs(encodeAs(matMul(x, m, 2, y, n), pr.name), pr.name)
				}
				inputs = append(inputs, a)
				cases = append(cases, eigCase{kind: "svd", a: a, shape: []int64{int64(m), int64(n)}})
			}
		}
	}
	refs := pyValues(t, cases)
	idx := 0
	for _, pr := range lapackPrefixes {
		for _, mode := range []byte{'A', 'S', 'N'} {
			for _, mn := range [][2]int{{4, 4}, {6, 3}, {3, 6}, {5, 5}} {
				m, n := mn[0], mn[1]
				k := min(m, n)
				a, ref := inputs[idx], refs[idx]
				idx++
				// gesdd and gesvd share conventions; alternate between them.
				routine := []string{"gesdd", "gesvd"}[idx%2]
				t.Run(fmt.Sprintf("%s%s/%c/%dx%d", pr.p, routine, mode, m, n), func(t *testing.T) {
					et := elemOf(pr.name)
					uc, vr := m, n
					if mode == 'S' {
						uc, vr = k, k
					}
					op := ccOp("lapack_"+pr.p+routine+"_ffi", []*ir.TensorType{ir.Tensor(et, int64(m), int64(n))},
						[]*ir.TensorType{ir.Tensor(et, int64(m), int64(n)), ir.Tensor(realOf(et), int64(k)),
							ir.Tensor(et, int64(m), int64(uc)), ir.Tensor(et, int64(vr), int64(n)), ir.Tensor(ir.S32)},
						ir.Attrs{"mode": u8(mode)})
					outs := runOp(t, fakeCtx{2}, op, encodeAs(a, pr.name))
					require.Equal(t, int64(0), loadInt(ir.S32, outs[4], 0))
					s := decodeAs(outs[1], map[bool]string{true: "f32", false: "f64"}[et == ir.F32 || et == ir.C64])
					requireClose(t, ref, s, pr.tol*10, "singular values")
					if mode == 'N' {
						return
					}
					u := decodeAs(outs[2], pr.name)
					vt := decodeAs(outs[3], pr.name)
					require.Less(t, maxAbsDiff(matMul(adjoint(u, m, uc), uc, m, u, uc), eye(uc)), pr.tol*20)
					require.Less(t, maxAbsDiff(matMul(vt, vr, n, adjoint(vt, vr, n), vr), eye(vr)), pr.tol*20)
					// A = U[:, :k]·diag(s)·Vᴴ[:k, :].
					us := make([]complex128, m*k)
					for i := 0; i < m; i++ {
						for j := 0; j < k; j++ {
							us[i*k+j] = u[i*uc+j] * s[j]
						}
					}
					rec := matMul(us, m, k, vt[:k*n], n)
					require.Less(t, maxAbsDiff(rec, a), pr.tol*20*max(1, frob(a)))
				})
			}
		}
	}
}

func sortComplex(v []complex128) []complex128 {
	out := append([]complex128(nil), v...)
	sort.Slice(out, func(i, j int) bool {
		if math.Abs(real(out[i])-real(out[j])) > 1e-3*(1+math.Abs(real(out[i]))) {
			return real(out[i]) < real(out[j])
		}
		return imag(out[i]) < imag(out[j])
	})
	return out
}

func TestGeevGeesProperties(t *testing.T) {
	r := rand.New(rand.NewSource(33))
	var inputs [][]complex128
	var cases []eigCase
	for _, pr := range lapackPrefixes {
		for _, n := range []int{1, 4, 7} {
			a := decodeAs(encodeAs(randMat(r, n*n, pr.cplx), pr.name), pr.name)
			if n == 4 && !pr.cplx {
				// arange(16): what JAX's own test uses.
				for i := range a {
					a[i] = complex(float64(i), 0)
				}
			}
			inputs = append(inputs, a)
			cases = append(cases, eigCase{kind: "eig", a: a, shape: []int64{int64(n), int64(n)}})
		}
	}
	refs := pyValues(t, cases)
	idx := 0
	for _, pr := range lapackPrefixes {
		for _, n := range []int{1, 4, 7} {
			et := elemOf(pr.name)
			ct := complexOf(et)
			cname := map[ir.ElemType]string{ir.C64: "c64", ir.C128: "c128"}[ct]
			a, ref := inputs[idx], refs[idx]
			idx++
			t.Run(fmt.Sprintf("%sgeev/%d", pr.p, n), func(t *testing.T) {
				var outs []*ir.TensorType
				if pr.cplx {
					outs = []*ir.TensorType{ir.Tensor(et, int64(n)), ir.Tensor(ct, int64(n), int64(n)), ir.Tensor(ct, int64(n), int64(n)), ir.Tensor(ir.S32)}
				} else {
					outs = []*ir.TensorType{ir.Tensor(et, int64(n)), ir.Tensor(et, int64(n)), ir.Tensor(ct, int64(n), int64(n)), ir.Tensor(ct, int64(n), int64(n)), ir.Tensor(ir.S32)}
				}
				op := ccOp("lapack_"+pr.p+"geev_ffi", []*ir.TensorType{ir.Tensor(et, int64(n), int64(n))}, outs,
					ir.Attrs{"compute_left": u8('V'), "compute_right": u8('V')})
				res := runOp(t, fakeCtx{2}, op, encodeAs(a, pr.name))
				var w, vl, vr []complex128
				if pr.cplx {
					w, vl, vr = decodeAs(res[0], pr.name), decodeAs(res[1], pr.name), decodeAs(res[2], pr.name)
					require.Equal(t, int64(0), loadInt(ir.S32, res[3], 0))
				} else {
					wr, wi := decodeAs(res[0], pr.name), decodeAs(res[1], pr.name)
					for i := range wr {
						w = append(w, complex(real(wr[i]), real(wi[i])))
					}
					vl, vr = decodeAs(res[2], cname), decodeAs(res[3], cname)
					require.Equal(t, int64(0), loadInt(ir.S32, res[4], 0))
				}
				scale := max(1, frob(a))
				requireClose(t, sortComplex(ref), sortComplex(w), pr.tol*100, "eigenvalues")
				for j := 0; j < n; j++ {
					vj, uj := make([]complex128, n), make([]complex128, n)
					for i := 0; i < n; i++ {
						vj[i], uj[i] = vr[i*n+j], vl[i*n+j]
					}
					require.InDelta(t, 1, nrm2(n, vj, 1), pr.tol*10)
					av := matMul(a, n, n, vj, 1)
					for i := range av {
						av[i] -= w[j] * vj[i]
					}
					require.Less(t, frob(av), pr.tol*100*scale, "right residual %d", j)
					ua := matMul(adjoint(uj, n, 1), 1, n, a, n)
					for i := range ua {
						ua[i] -= w[j] * cmplx.Conj(uj[i])
					}
					require.Less(t, frob(ua), pr.tol*100*scale, "left residual %d", j)
				}
			})
			t.Run(fmt.Sprintf("%sgees/%d", pr.p, n), func(t *testing.T) {
				mat := ir.Tensor(et, int64(n), int64(n))
				var outs []*ir.TensorType
				if pr.cplx {
					outs = []*ir.TensorType{mat, mat, ir.Tensor(et, int64(n)), ir.Tensor(ir.S32), ir.Tensor(ir.S32)}
				} else {
					outs = []*ir.TensorType{mat, mat, ir.Tensor(et, int64(n)), ir.Tensor(et, int64(n)), ir.Tensor(ir.S32), ir.Tensor(ir.S32)}
				}
				op := ccOp("lapack_"+pr.p+"gees_ffi", []*ir.TensorType{mat}, outs, ir.Attrs{"mode": u8('V'), "sort": u8('N')})
				res := runOp(t, fakeCtx{2}, op, encodeAs(a, pr.name))
				tm, zm := decodeAs(res[0], pr.name), decodeAs(res[1], pr.name)
				require.Equal(t, int64(0), loadInt(ir.S32, res[len(res)-1], 0))
				require.Less(t, maxAbsDiff(matMul(adjoint(zm, n, n), n, n, zm, n), eye(n)), pr.tol*20)
				rec := matMul(matMul(zm, n, n, tm, n), n, n, adjoint(zm, n, n), n)
				require.Less(t, maxAbsDiff(rec, a), pr.tol*50*max(1, frob(a)))
				// Upper (quasi-)triangular: nothing below the first subdiagonal,
				// and for complex nothing below the diagonal.
				for i := 0; i < n; i++ {
					for j := 0; j < i; j++ {
						if pr.cplx || j < i-1 {
							require.Zero(t, tm[i*n+j], "T[%d][%d]", i, j)
						}
					}
				}
				var w []complex128
				if pr.cplx {
					w = decodeAs(res[2], pr.name)
				} else {
					wr, wi := decodeAs(res[2], pr.name), decodeAs(res[3], pr.name)
					for i := range wr {
						w = append(w, complex(real(wr[i]), real(wi[i])))
					}
				}
				requireClose(t, sortComplex(ref), sortComplex(w), pr.tol*100, "eigenvalues")
			})
		}
	}
}
