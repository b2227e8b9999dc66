package linalg

import (
	"encoding/binary"
	"math"
	"math/rand"
	"sync"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/stretchr/testify/require"
)

// fakeCtx stands in for the compiler: Parallel really runs chunks on
// goroutines so that races and order dependence show up.
type fakeCtx struct{ workers int }

func (fakeCtx) CompileRegion(*ir.Region) (kernel.Callable, error) { return nil, nil }

func (c fakeCtx) Parallel(n, grain int, fn func(lo, hi int)) {
	w := max(c.workers, 1)
	chunk := max(grain, (n+w-1)/w, 1)
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// mkOp builds a free-standing op with fresh operand values.
func mkOp(name string, operands []*ir.TensorType, results []*ir.TensorType, attrs ir.Attrs) *ir.Op {
	vals := make([]*ir.Value, len(operands))
	for i, t := range operands {
		vals[i] = &ir.Value{Type: t, Index: i}
	}
	rts := make([]ir.Type, len(results))
	for i, t := range results {
		rts[i] = t
	}
	return ir.NewOp(name, vals, rts, attrs)
}

// lowerOp finds and lowers an op (or custom call) through the registry.
func lowerOp(t *testing.T, ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	t.Helper()
	var l kernel.Lower
	var ok bool
	if op.Name == "stablehlo.custom_call" {
		target, _ := op.Attrs.Str("call_target_name")
		l, ok = kernel.LookupCustomCall(target)
	} else {
		l, ok = kernel.Lookup(op.Name)
	}
	require.True(t, ok, "no kernel for %s", op.Name)
	return l(ctx, op)
}

// runOp lowers and runs an op; outputs start as garbage to catch kernels that
// rely on zeroed memory.
func runOp(t *testing.T, ctx kernel.Context, op *ir.Op, ins ...[]byte) [][]byte {
	t.Helper()
	step, err := lowerOp(t, ctx, op)
	require.NoError(t, err)
	outs := make([][]byte, len(op.Results))
	for i, r := range op.Results {
		outs[i] = make([]byte, r.Tensor().ByteSize())
		for j := range outs[i] {
			outs[i][j] = 0xA5
		}
	}
	require.NoError(t, step(ins, outs))
	return outs
}

func f32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func f64Bytes(v []float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

func bytesF32(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func bytesF64(b []byte) []float64 {
	out := make([]float64, len(b)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

func c64Bytes(v []complex64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[8*i:], math.Float32bits(real(x)))
		binary.LittleEndian.PutUint32(b[8*i+4:], math.Float32bits(imag(x)))
	}
	return b
}

func c128Bytes(v []complex128) []byte {
	b := make([]byte, 16*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[16*i:], math.Float64bits(real(x)))
		binary.LittleEndian.PutUint64(b[16*i+8:], math.Float64bits(imag(x)))
	}
	return b
}

func bytesC64(b []byte) []complex64 {
	out := make([]complex64, len(b)/8)
	for i := range out {
		out[i] = complex(math.Float32frombits(binary.LittleEndian.Uint32(b[8*i:])), math.Float32frombits(binary.LittleEndian.Uint32(b[8*i+4:])))
	}
	return out
}

func bytesC128(b []byte) []complex128 {
	out := make([]complex128, len(b)/16)
	for i := range out {
		out[i] = complex(math.Float64frombits(binary.LittleEndian.Uint64(b[16*i:])), math.Float64frombits(binary.LittleEndian.Uint64(b[16*i+8:])))
	}
	return out
}

func randF32(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func randF64(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return v
}

// unravel turns a linear row-major index into a multi-index.
func unravel(i int, shape []int64) []int64 {
	idx := make([]int64, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			idx[d] = int64(i) % shape[d]
			i /= int(shape[d])
		}
	}
	return idx
}

// ravel turns a multi-index into a linear row-major index.
func ravel(idx, shape []int64) int {
	off := 0
	for d := range shape {
		off = off*int(shape[d]) + int(idx[d])
	}
	return off
}
