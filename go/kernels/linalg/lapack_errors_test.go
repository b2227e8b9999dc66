package linalg

import (
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// A call that does not fit its target compiles and fails when it runs, with
// the op named, as XLA's FFI binding checks calls (JAX's ffi tests compile
// such calls only to read the compiled text).
func TestLapackCustomCallErrors(t *testing.T) {
	m44 := ir.Tensor(ir.F64, 4, 4)
	good := func() *ir.Op {
		return ccOp("lapack_dpotrf_ffi", []*ir.TensorType{m44}, []*ir.TensorType{m44, ir.Tensor(ir.S32)}, ir.Attrs{"uplo": u8('L')})
	}
	tests := []struct {
		name   string
		mutate func(op *ir.Op) *ir.Op
		msg    string
	}{
		{"row-major-layout", func(op *ir.Op) *ir.Op {
			op.Attrs["operand_layouts"] = ir.ArrayAttr{Elems: []ir.Attr{ir.DenseI64Attr{Values: []int64{1, 0}}}}
			return op
		}, "only the layouts JAX emits"},
		{"no-layouts", func(op *ir.Op) *ir.Op {
			delete(op.Attrs, "operand_layouts")
			return op
		}, "default row-major layout"},
		{"bad-uplo", func(op *ir.Op) *ir.Op {
			op.Attrs["backend_config"] = ir.DictAttr{Entries: ir.Attrs{"uplo": u8('X')}}
			return op
		}, "attribute uplo"},
		{"opaque-backend-config", func(op *ir.Op) *ir.Op {
			op.Attrs["backend_config"] = ir.StringAttr{Value: "\x01\x02"}
			return op
		}, "opaque string"},
		{"wrong-elem", func(op *ir.Op) *ir.Op {
			m := ir.Tensor(ir.F32, 4, 4)
			return ccOp("lapack_dpotrf_ffi", []*ir.TensorType{m}, []*ir.TensorType{m, ir.Tensor(ir.S32)}, ir.Attrs{"uplo": u8('L')})
		}, "element type f64"},
		{"missing-info", func(op *ir.Op) *ir.Op {
			return ccOp("lapack_dpotrf_ffi", []*ir.TensorType{m44}, []*ir.TensorType{m44}, ir.Attrs{"uplo": u8('L')})
		}, "want 1 operands and 2 results"},
		{"batch-mismatch", func(op *ir.Op) *ir.Op {
			return ccOp("lapack_dpotrf_ffi", []*ir.TensorType{ir.Tensor(ir.F64, 2, 4, 4)}, []*ir.TensorType{ir.Tensor(ir.F64, 2, 4, 4), ir.Tensor(ir.S32, 3)}, ir.Attrs{"uplo": u8('L')})
		}, "batch dims differ"},
		{"gesdd-mode-O", func(op *ir.Op) *ir.Op {
			return ccOp("lapack_dgesdd_ffi", []*ir.TensorType{m44}, []*ir.TensorType{m44, ir.Tensor(ir.F64, 4), m44, m44, ir.Tensor(ir.S32)}, ir.Attrs{"mode": u8('O')})
		}, "mode 'O'"},
		{"gees-sort", func(op *ir.Op) *ir.Op {
			return ccOp("lapack_dgees_ffi", []*ir.TensorType{m44}, []*ir.TensorType{m44, m44, ir.Tensor(ir.F64, 4), ir.Tensor(ir.F64, 4), ir.Tensor(ir.S32), ir.Tensor(ir.S32)},
				ir.Attrs{"mode": u8('V'), "sort": u8('S')})
		}, "sorting"},
		{"gehrd-range", func(op *ir.Op) *ir.Op {
			return ccOp("lapack_dgehrd_ffi", []*ir.TensorType{m44}, []*ir.TensorType{m44, ir.Tensor(ir.F64, 3), ir.Tensor(ir.S32)},
				ir.Attrs{"low": ir.IntAttr{Value: 0, Type: ir.S32}, "high": ir.IntAttr{Value: 4, Type: ir.S32}})
		}, "out of range"},
	}
	_, err := lowerOp(t, fakeCtx{1}, good())
	require.NoError(t, err)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			step, err := lowerOp(t, fakeCtx{1}, tc.mutate(good()))
			require.NoError(t, err)
			err = step(nil, nil)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.msg)
			require.Contains(t, err.Error(), "stablehlo.custom_call")
		})
	}
}

// TestMhloBackendConfig accepts the dictionary under mhlo.backend_config, as
// older serializations (and the jax-export vectors) carry it.
func TestMhloBackendConfig(t *testing.T) {
	m := ir.Tensor(ir.F64, 2, 2)
	op := ccOp("lapack_dpotrf_ffi", []*ir.TensorType{m}, []*ir.TensorType{m, ir.Tensor(ir.S32)}, nil)
	delete(op.Attrs, "backend_config")
	op.Attrs["mhlo.backend_config"] = ir.DictAttr{Entries: ir.Attrs{"uplo": u8('U')}}
	out := runOp(t, fakeCtx{1}, op, f64Bytes([]float64{4, 2, -7, 3}))
	// Upper: U = [[2, 1], [., sqrt 2]], the strict lower triangle untouched.
	got := bytesF64(out[0])
	require.InDelta(t, 2, got[0], 1e-15)
	require.InDelta(t, 1, got[1], 1e-15)
	require.Equal(t, -7.0, got[2])
	require.InDelta(t, 1.4142135623730951, got[3], 1e-15)
}

// TestGeqp3FixedColumns: columns flagged in jpvt go first; A·P = Q·R holds.
func TestGeqp3FixedColumns(t *testing.T) {
	r := rand.New(rand.NewSource(41))
	const m, n = 6, 5
	for _, cplx := range []bool{false, true} {
		et, name := ir.F64, "f64"
		if cplx {
			et, name = ir.C128, "c128"
		}
		a := randMat(r, m*n, cplx)
		jp := make([]byte, 4*n)
		putI32(jp[4*3:], 1) // column 3 fixed
		putI32(jp[4*1:], 1) // column 1 fixed
		prefix := map[bool]string{false: "d", true: "z"}[cplx]
		op := ccOp("lapack_"+prefix+"geqp3_ffi", []*ir.TensorType{ir.Tensor(et, m, n), ir.Tensor(ir.S32, n)},
			[]*ir.TensorType{ir.Tensor(et, m, n), ir.Tensor(ir.S32, n), ir.Tensor(et, n)}, ir.Attrs{})
		outs := runOp(t, fakeCtx{1}, op, encodeAs(a, name), jp)
		qr, tau := decodeAs(outs[0], name), decodeAs(outs[2], name)
		var perm []int
		for j := 0; j < n; j++ {
			perm = append(perm, int(loadInt(ir.S32, outs[1], j))-1)
		}
		require.Equal(t, []int{1, 3}, perm[:2], "fixed columns first, in order")
		// R from the upper triangle, Q from the reflectors.
		rm := make([]complex128, m*n)
		for i := 0; i < m; i++ {
			for j := i; j < n; j++ {
				rm[i*n+j] = qr[i*n+j]
			}
		}
		q := append([]complex128(nil), qr...)
		org2r(m, n, n, q, n, tau, make([]complex128, n))
		ap := make([]complex128, m*n)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				ap[i*n+j] = a[i*n+perm[j]]
			}
		}
		require.Less(t, maxAbsDiff(matMul(q, m, n, rm[:n*n], n), ap), 1e-12)
	}
}
