package compiler

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// reuseModule computes (x+x)*x over n floats: a scratch intermediate and an
// output both large enough for devmem's cached size classes.
func reuseModule(n int64) *ir.Module {
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(n)}, []ir.Type{f32t(n)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{b.mul(b.add(a[0], a[0]), a[0])}
	})
	return mb.m
}

// TestRunsReuseFreedOutputs: an output the caller freed serves the next
// run's output (devmem cache), while outputs the caller still holds are
// never handed out again.
func TestRunsReuseFreedOutputs(t *testing.T) {
	const n = 1 << 16 // 256 KiB
	e := compile(t, reuseModule(n))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i%7) - 3
	}
	in := f32s(x...)
	check := func(out []byte) {
		got := toF32(out)
		for i, v := range x {
			if got[i] != (v+v)*v {
				t.Fatalf("element %d: got %v want %v", i, got[i], (v+v)*v)
			}
		}
	}
	res, err := e.Run([][]byte{in}, nil)
	require.NoError(t, err)
	check(res.Outputs[0])
	first := devmem.Pointer(res.Outputs[0])
	devmem.Free(res.Outputs[0])

	hits := devmem.ReadStats().CacheHits
	held := map[uintptr]bool{}
	var keep [][]byte
	for range 4 {
		res, err := e.Run([][]byte{in}, nil)
		require.NoError(t, err)
		check(res.Outputs[0])
		p := uintptr(devmem.Pointer(res.Outputs[0]))
		require.False(t, held[p], "a held output's memory was handed out again")
		held[p] = true
		keep = append(keep, res.Outputs[0])
	}
	if devmem.CacheBudget() >= n*4 {
		require.True(t, held[uintptr(first)], "the freed output was reused")
		require.Greater(t, devmem.ReadStats().CacheHits, hits)
	}
	for _, o := range keep {
		devmem.Free(o)
	}
}

// TestConcurrentRunsWithReuse runs one executable from several goroutines
// (run with -race): every run has its own scratch frame and output, results
// are exact, and no two live outputs share memory.
func TestConcurrentRunsWithReuse(t *testing.T) {
	const n = 1 << 15
	e := compile(t, reuseModule(n))
	var live sync.Map
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := make([]float32, n)
			for it := range 30 {
				v := float32(g*100 + it)
				for i := range x {
					x[i] = v + float32(i%3)
				}
				res, err := e.Run([][]byte{f32s(x...)}, nil)
				if err != nil {
					errs <- err
					return
				}
				o := res.Outputs[0]
				p := uintptr(devmem.Pointer(o))
				if _, dup := live.LoadOrStore(p, g); dup {
					errs <- fmt.Errorf("output memory %#x is live twice", p)
					return
				}
				got := toF32(o)
				for i, xi := range x {
					if got[i] != (xi+xi)*xi {
						errs <- fmt.Errorf("goroutine %d run %d element %d: got %v want %v", g, it, i, got[i], (xi+xi)*xi)
						return
					}
				}
				live.Delete(p)
				devmem.Free(o)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}
