package linalg

import (
	"math/rand"
	"sync"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// TestStepsConcurrent runs compiled steps from several goroutines at once
// (an executable may run concurrently) and checks every run matches a
// sequential one: pooled scratch and cached FFT plans must not be shared
// between runs.
func TestStepsConcurrent(t *testing.T) {
	r := rand.New(rand.NewSource(51))
	c := convCases[1]
	type job struct {
		op  *ir.Op
		ins [][]byte
	}
	jobs := []job{
		{mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ir.F32, 70, 90), ir.Tensor(ir.F32, 90, 40)},
			[]*ir.TensorType{ir.Tensor(ir.F32, 70, 40)}, dotAttrs(nil, nil, []int64{1}, []int64{0})),
			[][]byte{f32Bytes(randF32(r, 70*90)), f32Bytes(randF32(r, 90*40))}},
		{mkOp("stablehlo.convolution", []*ir.TensorType{ir.Tensor(ir.F64, c.lhsShape...), ir.Tensor(ir.F64, c.rhsShape...)},
			[]*ir.TensorType{ir.Tensor(ir.F64, c.outShape()...)}, c.attrs()),
			[][]byte{f64Bytes(randF64(r, 2*7*6*3)), f64Bytes(randF64(r, 3*3*3*5))}},
		{fftOp("FFT", ir.Tensor(ir.C128, 3, 97), ir.Tensor(ir.C128, 3, 97), 97),
			[][]byte{c128Bytes(randMat(r, 3*97, true))}},
		{ccOp("lapack_zheevd_ffi", []*ir.TensorType{ir.Tensor(ir.C128, 2, 5, 5)},
			[]*ir.TensorType{ir.Tensor(ir.C128, 2, 5, 5), ir.Tensor(ir.F64, 2, 5), ir.Tensor(ir.S32, 2)},
			ir.Attrs{"mode": u8('V'), "uplo": u8('L')}),
			[][]byte{c128Bytes(randMat(r, 50, true))}},
	}
	for _, j := range jobs {
		want := runOp(t, fakeCtx{2}, j.op, j.ins...)
		step, err := lowerOp(t, fakeCtx{2}, j.op)
		require.NoError(t, err)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		results := make([][][]byte, 8)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for rep := 0; rep < 3; rep++ {
					outs := make([][]byte, len(want))
					for i := range outs {
						outs[i] = make([]byte, len(want[i]))
					}
					if err := step(j.ins, outs); err != nil {
						errs <- err
						return
					}
					results[g] = outs
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		for g := range results {
			require.Equal(t, want, results[g], "%s goroutine %d", j.op.Name, g)
		}
	}
}

func TestZeroSizedOperands(t *testing.T) {
	op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ir.F32, 0, 3), ir.Tensor(ir.F32, 3, 4)},
		[]*ir.TensorType{ir.Tensor(ir.F32, 0, 4)}, dotAttrs(nil, nil, []int64{1}, []int64{0}))
	require.Empty(t, runOp(t, fakeCtx{1}, op, nil, make([]byte, 48))[0])
	op = mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ir.F32, 0, 2, 3), ir.Tensor(ir.F32, 0, 3, 4)},
		[]*ir.TensorType{ir.Tensor(ir.F32, 0, 2, 4)}, dotAttrs([]int64{0}, []int64{0}, []int64{2}, []int64{1}))
	require.Empty(t, runOp(t, fakeCtx{1}, op, nil, nil)[0])
	op = fftOp("RFFT", ir.Tensor(ir.F32, 0, 8), ir.Tensor(ir.C64, 0, 5), 8)
	require.Empty(t, runOp(t, fakeCtx{1}, op, nil)[0])
	op = fftOp("FFT", ir.Tensor(ir.C64, 2, 0), ir.Tensor(ir.C64, 2, 0), 0)
	require.Empty(t, runOp(t, fakeCtx{1}, op, nil)[0])
	op = mkOp("stablehlo.cholesky", []*ir.TensorType{ir.Tensor(ir.F32, 3, 0, 0)}, []*ir.TensorType{ir.Tensor(ir.F32, 3, 0, 0)}, nil)
	require.Empty(t, runOp(t, fakeCtx{1}, op, nil)[0])
	m := ir.Tensor(ir.F64, 0, 0)
	op = ccOp("lapack_dgeev_ffi", []*ir.TensorType{m}, []*ir.TensorType{ir.Tensor(ir.F64, 0), ir.Tensor(ir.F64, 0),
		ir.Tensor(ir.C128, 0, 0), ir.Tensor(ir.C128, 0, 0), ir.Tensor(ir.S32)}, ir.Attrs{"compute_left": u8('V'), "compute_right": u8('V')})
	outs := runOp(t, fakeCtx{1}, op, nil)
	require.Equal(t, int64(0), loadInt(ir.S32, outs[4], 0))
}
