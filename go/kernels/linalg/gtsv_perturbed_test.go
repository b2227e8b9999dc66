package linalg

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/ir"
)

const perturbedPyScript = `
import json, sys
import numpy as np
import jax
jax.config.update("jax_enable_x64", True)
from jax import lax
res = []
dt = {"f32": np.float32, "f64": np.float64, "c64": np.complex64, "c128": np.complex128}
for c in json.load(sys.stdin):
    t = dt[c["type"]]
    def arr(d, shape):
        a = np.array(d["re"])
        if d["im"] is not None:
            a = a + 1j * np.array(d["im"])
        return a.reshape(shape).astype(t)
    n, k = c["n"], c["k"]
    dl, d, du = arr(c["dl"], [n]), arr(c["d"], [n]), arr(c["du"], [n])
    b = arr(c["b"], [n, k])
    x = np.asarray(lax.linalg.tridiagonal_solve(dl, d, du, b, perturb_singular=True)).astype(np.complex128).reshape(-1)
    res.append({"re": x.real.tolist(), "im": x.imag.tolist()})
json.dump(res, sys.stdout)
`

// TestTridiagonalSolvePerturbed compares with jaxlib's kernel through JAX on
// CPU, singular systems included.
func TestTridiagonalSolvePerturbed(t *testing.T) {
	r := rand.New(rand.NewSource(61))
	type tcase struct {
		pr          int
		n, k        int
		dl, d, du   []complex128
		b           []complex128
		description string
	}
	var cases []tcase
	var py []map[string]any
	for pi, pr := range lapackPrefixes {
		for _, kind := range []string{"random", "singular", "zero-diag", "n1-zero"} {
			n, k := 6, 2
			if kind == "n1-zero" {
				n = 1
			}
			q := func(v []complex128) []complex128 { return decodeAs(encodeAs(v, pr.name), pr.name) }
			dl, d, du := q(randMat(r, n, pr.cplx)), q(randMat(r, n, pr.cplx)), q(randMat(r, n, pr.cplx))
			b := q(randMat(r, n*k, pr.cplx))
			switch kind {
			case "singular":
				// A zero row makes the matrix singular.
				dl[3], d[3], du[3] = 0, 0, 0
			case "zero-diag":
				for i := range d {
					d[i] = 0
				}
			case "n1-zero":
				d[0] = 0
			}
			cases = append(cases, tcase{pi, n, k, dl, d, du, b, kind})
			py = append(py, map[string]any{"type": pr.name, "n": n, "k": k,
				"dl": toPy(dl, pr.cplx, int64(n)), "d": toPy(d, pr.cplx, int64(n)), "du": toPy(du, pr.cplx, int64(n)), "b": toPy(b, pr.cplx, int64(n), int64(k))})
		}
	}
	var want []pyArr
	pyRef(t, perturbedPyScript, py, &want)
	for ci, c := range cases {
		pr := lapackPrefixes[c.pr]
		t.Run(fmt.Sprintf("%s/%s", pr.name, c.description), func(t *testing.T) {
			et := elemOf(pr.name)
			v, mat := ir.Tensor(et, int64(c.n)), ir.Tensor(et, int64(c.n), int64(c.k))
			op := ccOp("tridiagonal_solve_perturbed_ffi", []*ir.TensorType{v, v, v, mat}, []*ir.TensorType{mat}, nil)
			got := decodeAs(runOp(t, fakeCtx{1}, op, encodeAs(c.dl, pr.name), encodeAs(c.d, pr.name), encodeAs(c.du, pr.name), encodeAs(c.b, pr.name))[0], pr.name)
			tol := 1e-12
			if pr.name == "f32" || pr.name == "c64" {
				tol = 1e-4
			}
			requireClose(t, fromPy(want[ci]), got, tol, c.description)
		})
	}
}
