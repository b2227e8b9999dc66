package linalg

import (
	"math"
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

func elemOf(name string) ir.ElemType {
	t, _ := ir.ParseElemType(map[string]string{"f32": "f32", "f64": "f64", "c64": "complex<f32>", "c128": "complex<f64>"}[name])
	return t
}

func TestCholeskyHandChecked(t *testing.T) {
	a := []float64{4, 2, 2, 3}
	for _, lower := range []bool{true, false} {
		op := mkOp("stablehlo.cholesky", []*ir.TensorType{ir.Tensor(ir.F64, 2, 2)}, []*ir.TensorType{ir.Tensor(ir.F64, 2, 2)},
			ir.Attrs{"lower": ir.BoolAttr{Value: lower}})
		got := bytesF64(runOp(t, fakeCtx{1}, op, f64Bytes(a))[0])
		want := []float64{2, 0, 1, math.Sqrt2}
		if !lower {
			want = []float64{2, 1, 0, math.Sqrt2}
		}
		require.InDeltaSlice(t, want, got, 1e-15)
	}
	// Not positive definite: NaN.
	op := mkOp("stablehlo.cholesky", []*ir.TensorType{ir.Tensor(ir.F64, 2, 2)}, []*ir.TensorType{ir.Tensor(ir.F64, 2, 2)},
		ir.Attrs{"lower": ir.BoolAttr{Value: true}})
	got := bytesF64(runOp(t, fakeCtx{1}, op, f64Bytes([]float64{1, 2, 2, 1}))[0])
	for _, v := range got {
		require.True(t, math.IsNaN(v))
	}
}

func TestCholeskyRandom(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	const batch, n = 3, 7
	for _, tt := range testTypes {
		for _, lower := range []bool{true, false} {
			t.Run(tt.name, func(t *testing.T) {
				var in []complex128
				var mats [][]complex128
				for b := 0; b < batch; b++ {
					a := randHPD(r, n, tt.cplx)
					mats = append(mats, a)
					// Garbage in the triangle that must not be read.
					g := append([]complex128(nil), a...)
					for i := 0; i < n; i++ {
						for j := 0; j < n; j++ {
							if (lower && j > i) || (!lower && j < i) {
								g[i*n+j] = 1e6
							}
						}
					}
					in = append(in, g...)
				}
				et := elemOf(tt.name)
				op := mkOp("stablehlo.cholesky", []*ir.TensorType{ir.Tensor(et, batch, n, n)}, []*ir.TensorType{ir.Tensor(et, batch, n, n)},
					ir.Attrs{"lower": ir.BoolAttr{Value: lower}})
				out := decodeAs(runOp(t, fakeCtx{2}, op, encodeAs(in, tt.name))[0], tt.name)
				for b := 0; b < batch; b++ {
					f := out[b*n*n : (b+1)*n*n]
					for i := 0; i < n; i++ {
						require.Greater(t, real(f[i*n+i]), 0.0)
						require.Zero(t, imag(f[i*n+i]))
						for j := 0; j < n; j++ {
							if (lower && j > i) || (!lower && j < i) {
								require.Zero(t, f[i*n+j])
							}
						}
					}
					var rec []complex128
					if lower {
						rec = matMul(f, n, n, adjoint(f, n, n), n)
					} else {
						rec = matMul(adjoint(f, n, n), n, n, f, n)
					}
					require.Less(t, maxAbsDiff(rec, mats[b]), tt.tol*float64(n)*10, "batch %d", b)
				}
			})
		}
	}
}

func triOp(et ir.ElemType, at, bt *ir.TensorType, left, lower, unit bool, trans string) *ir.Op {
	return mkOp("stablehlo.triangular_solve", []*ir.TensorType{at, bt}, []*ir.TensorType{bt}, ir.Attrs{
		"left_side": ir.BoolAttr{Value: left}, "lower": ir.BoolAttr{Value: lower},
		"unit_diagonal": ir.BoolAttr{Value: unit}, "transpose_a": ir.EnumAttr{Kind: "transpose", Value: trans},
	})
}

func TestTriangularSolveInterpreterCases(t *testing.T) {
	a := []float32{2, 0, 0, 0, 4, 0, 0, 0, 5}
	for _, left := range []bool{true, false} {
		for _, lower := range []bool{true, false} {
			for _, unit := range []bool{false, true} {
				bt := ir.Tensor(ir.F32, 3, 1)
				if !left {
					bt = ir.Tensor(ir.F32, 1, 3)
				}
				op := triOp(ir.F32, ir.Tensor(ir.F32, 3, 3), bt, left, lower, unit, "NO_TRANSPOSE")
				got := bytesF32(runOp(t, fakeCtx{1}, op, f32Bytes(a), f32Bytes([]float32{7, 8, 9}))[0])
				want := []float32{3.5, 2, 1.8}
				if unit {
					want = []float32{7, 8, 9}
				}
				require.InDeltaSlice(t, want, got, 1e-6)
			}
		}
	}
}

func TestTriangularSolveRandom(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	const batch, k, other = 2, 5, 3
	for _, tt := range testTypes {
		for _, left := range []bool{true, false} {
			for _, lower := range []bool{true, false} {
				for _, unit := range []bool{false, true} {
					for _, trans := range []string{"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"} {
						et := elemOf(tt.name)
						m, n := k, other
						if !left {
							m, n = other, k
						}
						a := randMat(r, batch*k*k, tt.cplx)
						// Well-conditioned diagonal.
						for b := 0; b < batch; b++ {
							for i := 0; i < k; i++ {
								a[b*k*k+i*k+i] += 4
							}
						}
						bm := randMat(r, batch*m*n, tt.cplx)
						op := triOp(et, ir.Tensor(et, batch, k, k), ir.Tensor(et, batch, int64(m), int64(n)), left, lower, unit, trans)
						x := decodeAs(runOp(t, fakeCtx{2}, op, encodeAs(a, tt.name), encodeAs(bm, tt.name))[0], tt.name)
						for b := 0; b < batch; b++ {
							// Effective op(tri(A)) built independently.
							tri := make([]complex128, k*k)
							for i := 0; i < k; i++ {
								for j := 0; j < k; j++ {
									v := a[b*k*k+i*k+j]
									if (lower && j > i) || (!lower && j < i) {
										v = 0
									}
									if i == j && unit {
										v = 1
									}
									tri[i*k+j] = v
								}
							}
							switch trans {
							case "TRANSPOSE":
								tri = transpose(tri, k, k)
							case "ADJOINT":
								tri = adjoint(tri, k, k)
							}
							xb := x[b*m*n : (b+1)*m*n]
							var prod []complex128
							if left {
								prod = matMul(tri, k, k, xb, n)
							} else {
								prod = matMul(xb, m, k, tri, k)
							}
							require.Less(t, maxAbsDiff(prod, bm[b*m*n:(b+1)*m*n]), tt.tol*100,
								"%s left=%v lower=%v unit=%v %s", tt.name, left, lower, unit, trans)
						}
					}
				}
			}
		}
	}
}
