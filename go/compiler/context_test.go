package compiler

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// The pool itself (chunking, nesting, panics, parking) is tested in
// go/internal/workers; here only that compiled kernels reach it.

func TestCompileRegionCallable(t *testing.T) {
	ctx := newCompileCtx()
	b := &blkB{file: "region.py"} // regions below are standalone
	// Multi-op region with an inner constant: (x + y) * 3.
	r := b.region([]ir.Type{f32t(2), f32t(2)}, func(rb *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{rb.mul(rb.add(a[0], a[1]), rb.f32c([]int64{2}, 3, 3)), a[0]}
	})
	c, err := ctx.CompileRegion(r)
	require.NoError(t, err)
	out := [][]byte{make([]byte, 8), make([]byte, 8)}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := [][]byte{make([]byte, 8), make([]byte, 8)}
			for range 100 {
				if err := c.Call([][]byte{f32s(float32(g), 1), f32s(1, 1)}, o); err != nil {
					t.Error(err)
					return
				}
				if got := toF32(o[0]); got[0] != float32(3*(g+1)) || got[1] != 6 {
					t.Errorf("got %v", got)
					return
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, c.Call([][]byte{f32s(1, 2), f32s(3, 4)}, out))
	require.Equal(t, []float32{12, 18}, toF32(out[0]))
	require.Equal(t, []float32{1, 2}, toF32(out[1]), "a block argument returned as is is copied")
	require.Error(t, c.Call([][]byte{f32s(1, 2)}, out), "wrong arity")

	// Single-op region: the step itself.
	r1 := b.region([]ir.Type{f32t(), f32t()}, func(rb *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{rb.add(a[0], a[1])}
	})
	c1, err := ctx.CompileRegion(r1)
	require.NoError(t, err)
	require.IsType(t, &stepCallable{}, c1)
	o := [][]byte{make([]byte, 4)}
	require.NoError(t, c1.Call([][]byte{f32s(2), f32s(5)}, o))
	require.Equal(t, []float32{7}, toF32(o[0]))
}

func TestParallelFollowsGOMAXPROCS(t *testing.T) {
	prev := runtime.GOMAXPROCS(6)
	defer runtime.GOMAXPROCS(prev)
	ctx := newCompileCtx()
	var chunks atomic.Int32
	ctx.Parallel(600, 1, func(lo, hi int) { chunks.Add(1) })
	require.Equal(t, int32(6), chunks.Load())
	require.GreaterOrEqual(t, ctx.pool.Started(), 5)
}
