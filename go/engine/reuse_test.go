package engine

import (
	"fmt"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/internal/byteview"
)

// addOneProg is fakeProg without its recording (safe for concurrent runs).
type addOneProg struct{ fakeProg }

func (p *addOneProg) Run(args [][]byte, _ []bool) (*compiler.RunResult, error) {
	out, err := devmem.Alloc(len(args[0]))
	if err != nil {
		return nil, err
	}
	in, o := f32s(args[0]), byteview.As[float32](out)
	for i, v := range in {
		o[i] = v + 1
	}
	return &compiler.RunResult{Outputs: [][]byte{out}, AliasOf: []int{-1}}, nil
}

func newAddOneExec(t *testing.T, c *Client, n int64) *Executable {
	t.Helper()
	e, err := NewExecutable(c, &addOneProg{fakeProg{n: n}}, []byte("code"), nil)
	require.NoError(t, err)
	return e
}

// bigHostF32 is a device buffer of n floats, all v.
func bigHostF32(t testing.TB, c *Client, n int, v float32) *Buffer {
	vs := make([]float32, n)
	for i := range vs {
		vs[i] = v
	}
	return hostF32(t, c, vs...)
}

// TestExecuteReusesReleasedOutputsOnly: an output whose buffer is destroyed
// serves the next run (devmem cache, counted in CachedBytes and not
// BytesInUse meanwhile), but one an external reference (DLPack, NumPy)
// still pins keeps its memory and contents until the reference is dropped.
func TestExecuteReusesReleasedOutputsOnly(t *testing.T) {
	const n = 1 << 16 // 256 KiB outputs: a cached size class
	// GOJAX_BUFFER_CACHE_BYTES may have turned the cache off or shrunk it.
	if old := devmem.CacheBudget(); old < 4*n {
		devmem.SetCacheBudget(4 * n)
		t.Cleanup(func() { devmem.SetCacheBudget(old) })
	}
	c := newTestClient(t, 1)
	e := newAddOneExec(t, c, n)
	x := bigHostF32(t, c, n, 1)
	exec := func() (*Buffer, unsafe.Pointer) {
		outs, done, err := e.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
		require.NoError(t, err)
		require.NoError(t, done[0].Wait())
		p, err := outs[0][0].Pointer()
		require.NoError(t, err)
		return outs[0][0], p
	}

	y, py := exec()
	inUse := devmem.ReadStats().BytesInUse
	y.Destroy()
	s := devmem.ReadStats()
	require.Equal(t, inUse-4*n, s.BytesInUse, "a released output is not in use")
	require.GreaterOrEqual(t, s.CachedBytes, int64(4*n))
	z, pz := exec()
	require.Equal(t, py, pz, "the released output's memory serves the next run")
	require.Equal(t, float32(2), readF32(t, z)[n-1])

	// An external reference pins z's memory past Destroy.
	require.NoError(t, z.IncExternalRef())
	view := (*[4 * n]byte)(pz)
	z.Destroy()
	var others []*Buffer
	for range 3 {
		w, pw := exec()
		require.NotEqual(t, pz, pw, "pinned memory was handed to a new output")
		others = append(others, w)
	}
	require.Equal(t, f32Bytes(2, 2), view[4*n-8:], "pinned contents are untouched")
	require.NoError(t, z.DecExternalRef())
	w, pw := exec()
	require.Equal(t, pz, pw, "once unpinned, the memory is reused")
	w.Destroy()
	for _, o := range others {
		o.Destroy()
	}
}

// TestConcurrentExecuteWithReuse runs one executable from several goroutines
// while outputs are destroyed and reused (run with -race).
func TestConcurrentExecuteWithReuse(t *testing.T) {
	const n = 1 << 15
	c := newTestClient(t, 1)
	e := newAddOneExec(t, c, n)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := bigHostF32(t, c, n, float32(g))
			defer x.Destroy()
			for range 20 {
				outs, done, err := e.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
				if err == nil {
					err = done[0].Wait()
				}
				if err != nil {
					errs <- err
					return
				}
				data, err := outs[0][0].bytes()
				if err != nil {
					errs <- err
					return
				}
				got := f32s(data)
				if got[0] != float32(g+1) || got[n-1] != float32(g+1) {
					errs <- fmt.Errorf("goroutine %d: got %v..%v want %v", g, got[0], got[n-1], g+1)
					return
				}
				outs[0][0].Destroy()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}
