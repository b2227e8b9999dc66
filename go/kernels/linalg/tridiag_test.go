package linalg

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// syevd/heevd through the custom call at orders around the block and
// chunk sizes, with residuals scaled by n·eps·‖A‖: ‖A·V − V·Λ‖, ‖VᴴV − I‖,
// ascending eigenvalues; special spectra (zero, identity, repeated and
// clustered eigenvalues, a graded diagonal) included.
func TestEighResidualSizes(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	kinds := []string{"random", "zero", "identity", "repeated", "clustered", "graded"}
	for _, pr := range lapackPrefixes {
		for _, n := range blockedSizes {
			for _, kind := range kinds {
				if n > 65 && kind != "random" && kind != "clustered" {
					continue
				}
				const batch = 2
				in := make([]complex128, batch*n*n)
				for b := 0; b < batch; b++ {
					m := in[b*n*n : (b+1)*n*n]
					switch kind {
					case "random":
						copy(m, randMat(r, n*n, pr.cplx))
					case "identity":
						for i := 0; i < n; i++ {
							m[i*n+i] = 1
						}
					case "repeated":
						for i := 0; i < n; i++ {
							m[i*n+i] = complex(float64(i%3), 0)
						}
					case "clustered":
						// 1-2-1 tridiagonal plus a tiny random part.
						g := randMat(r, n*n, pr.cplx)
						for i := 0; i < n; i++ {
							m[i*n+i] = 2
							if i > 0 {
								m[i*n+i-1], m[(i-1)*n+i] = -1, -1
							}
							for j := 0; j < n; j++ {
								m[i*n+j] += 1e-9 * g[i*n+j]
							}
						}
					case "graded":
						for i := 0; i < n; i++ {
							m[i*n+i] = complex(math.Pow(10, float64(i%20-10)), 0)
						}
					}
				}
				in = decodeAs(encodeAs(in, pr.name), pr.name)
				name := "syevd"
				if pr.cplx {
					name = "heevd"
				}
				for _, uplo := range []byte{'L', 'U'} {
					t.Run(fmt.Sprintf("%s%s/%c/%d/%s", pr.p, name, uplo, n, kind), func(t *testing.T) {
						et := elemOf(pr.name)
						op := ccOp("lapack_"+pr.p+name+"_ffi", []*ir.TensorType{ir.Tensor(et, batch, int64(n), int64(n))},
							[]*ir.TensorType{ir.Tensor(et, batch, int64(n), int64(n)), ir.Tensor(realOf(et), batch, int64(n)), ir.Tensor(ir.S32, batch)},
							ir.Attrs{"mode": u8('V'), "uplo": u8(uplo)})
						outs := runOp(t, fakeCtx{2}, op, encodeAs(in, pr.name))
						v := decodeAs(outs[0], pr.name)
						w := decodeAs(outs[1], map[bool]string{true: "f32", false: "f64"}[et == ir.F32 || et == ir.C64])
						eps := eps64
						if et == ir.F32 || et == ir.C64 {
							eps = 0x1p-23
						}
						for b := 0; b < batch; b++ {
							require.Equal(t, int64(0), loadInt(ir.S32, outs[2], b))
							h := hermitianFromTriangle(in[b*n*n:(b+1)*n*n], n, uplo == 'L')
							vb, wb := v[b*n*n:(b+1)*n*n], w[b*n:(b+1)*n]
							for i := 1; i < n; i++ {
								require.LessOrEqual(t, real(wb[i-1]), real(wb[i]), "ascending")
							}
							dw := make([]complex128, n*n)
							for i := 0; i < n; i++ {
								for j := 0; j < n; j++ {
									dw[i*n+j] = vb[i*n+j] * wb[j]
								}
							}
							an := max(normF(h), 1e-300)
							res := normF(sub(matMul(h, n, n, vb, n), dw)) / (float64(n) * eps * an)
							orth := normF(sub(matMul(adjoint(vb, n, n), n, n, vb, n), eye(n))) / (float64(n) * eps)
							if kind == "zero" {
								res = normF(dw)
							}
							require.Less(t, res, 10.0, "‖AV−VΛ‖/(n·eps·‖A‖)")
							require.Less(t, orth, 10.0, "‖VᴴV−I‖/(n·eps)")
						}
					})
				}
			}
		}
	}
}

// A NaN input reports a failure in info, as LAPACK's syevd does.
func TestEighNaN(t *testing.T) {
	for _, pr := range lapackPrefixes {
		n := 40
		in := randMat(rand.New(rand.NewSource(1)), n*n, pr.cplx)
		in[3*n+1] = complex(math.NaN(), 0)
		in[1*n+3] = complex(math.NaN(), 0)
		name := "syevd"
		if pr.cplx {
			name = "heevd"
		}
		et := elemOf(pr.name)
		op := ccOp("lapack_"+pr.p+name+"_ffi", []*ir.TensorType{ir.Tensor(et, int64(n), int64(n))},
			[]*ir.TensorType{ir.Tensor(et, int64(n), int64(n)), ir.Tensor(realOf(et), int64(n)), ir.Tensor(ir.S32)},
			ir.Attrs{"mode": u8('V'), "uplo": u8('L')})
		outs := runOp(t, fakeCtx{2}, op, encodeAs(in, pr.name))
		require.NotEqual(t, int64(0), loadInt(ir.S32, outs[2], 0), pr.p)
	}
}
