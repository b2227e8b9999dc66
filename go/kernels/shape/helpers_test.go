package shape

import (
	"encoding/binary"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// fakeCtx runs Parallel in chunks of a fixed size on goroutines, so tests see
// several splits; CompileRegion hands out a registered callable.
type fakeCtx struct {
	chunk   int
	regions map[*ir.Region]kernel.Callable
}

func (c *fakeCtx) CompileRegion(r *ir.Region) (kernel.Callable, error) {
	if cl, ok := c.regions[r]; ok {
		return cl, nil
	}
	return nil, errNoRegion
}

type regionErr struct{}

func (regionErr) Error() string { return "fake context: region not registered" }

var errNoRegion = regionErr{}

func (c *fakeCtx) Parallel(n, grain int, fn func(lo, hi int)) {
	chunk := c.chunk
	if chunk <= 0 {
		chunk = max(1, grain)
	}
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

// contexts used by every test: serial (nil-like huge chunk) and fine-grained.
var testCtxs = []*fakeCtx{{chunk: 1 << 30}, {chunk: 1}, {chunk: 7}}

func val(t ir.Type) *ir.Value { return &ir.Value{Type: t} }

func mkOp(name string, operands []ir.Type, results []ir.Type, attrs ir.Attrs) *ir.Op {
	ops := make([]*ir.Value, len(operands))
	for i, t := range operands {
		ops[i] = val(t)
	}
	return ir.NewOp(name, ops, results, attrs)
}

func i64a(v ...int64) ir.DenseI64Attr { return ir.DenseI64Attr{Values: v} }

// lower looks the op up in the registry and lowers it.
func lower(t *testing.T, ctx kernel.Context, op *ir.Op) kernel.Step {
	t.Helper()
	l, ok := kernel.Lookup(op.Name)
	require.True(t, ok, "%s not registered", op.Name)
	st, err := l(ctx, op)
	require.NoError(t, err)
	return st
}

// runOp lowers and runs an op, returning the results (filled with 0xAB
// first, so unwritten bytes show up).
func runOp(t *testing.T, ctx kernel.Context, op *ir.Op, ins ...[]byte) [][]byte {
	t.Helper()
	st := lower(t, ctx, op)
	outs := make([][]byte, len(op.Results))
	for i, r := range op.Results {
		outs[i] = make([]byte, r.Tensor().ByteSize())
		for j := range outs[i] {
			outs[i][j] = 0xAB
		}
	}
	require.NoError(t, st(ins, outs))
	return outs
}

func f32s(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func toF32(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func i32s(v ...int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

func toI32(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func i64s_(v ...int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

// seq returns n f32 values 0,1,2,… as bytes.
func seqF32(n int) []byte {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	return f32s(v...)
}

// seqBytes returns n elements of es bytes each, element i holding distinct bytes.
func seqBytes(n, es int) []byte {
	b := make([]byte, n*es)
	for i := range n {
		for j := range es {
			b[i*es+j] = byte(i*7 + j*31 + i>>8)
		}
	}
	return b
}

// unravel returns the multi-index of linear index i in shape.
func unravel(i int64, shape []int64) []int64 {
	idx := make([]int64, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			idx[d] = i % shape[d]
			i /= shape[d]
		}
	}
	return idx
}

func ravel(idx, shape []int64) int64 {
	r := int64(0)
	for d := range shape {
		r = r*shape[d] + idx[d]
	}
	return r
}

func lookup(name string) (kernel.Lower, bool) { return kernel.Lookup(name) }
