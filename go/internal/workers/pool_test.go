package workers

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// forEachSpin runs f with polling on (the default) and off (every idle
// worker and waiting caller parks at once), the two ways chunks meet.
func forEachSpin(t *testing.T, f func(t *testing.T)) {
	for _, d := range []time.Duration{Spin(), 0} {
		t.Run(d.String(), func(t *testing.T) {
			old := Spin()
			SetSpin(d)
			t.Cleanup(func() { SetSpin(old) })
			f(t)
		})
	}
}

func TestPoolCoversRangeOnce(t *testing.T) {
	forEachSpin(t, func(t *testing.T) {
		p := NewPool()
		for _, tc := range []struct{ n, grain int }{{0, 1}, {1, 1}, {7, 1}, {100, 8}, {1000, 1}, {1001, 1000}, {5, 0}} {
			hits := make([]int32, tc.n)
			p.Parallel(tc.n, tc.grain, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					atomic.AddInt32(&hits[i], 1)
				}
			})
			for i, h := range hits {
				require.Equal(t, int32(1), h, "n=%d grain=%d index %d", tc.n, tc.grain, i)
			}
		}
	})
}

func TestPoolNestedAndConcurrent(t *testing.T) {
	forEachSpin(t, func(t *testing.T) {
		setWorkers(t, 4)
		p := NewPool()
		var total atomic.Int64
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 20 {
					p.Parallel(16, 1, func(lo, hi int) {
						for range hi - lo {
							p.Parallel(64, 1, func(lo, hi int) { total.Add(int64(hi - lo)) })
						}
					})
				}
			}()
		}
		wg.Wait()
		require.Equal(t, int64(8*20*16*64), total.Load())
		require.Equal(t, 3, p.Started(), "workers besides the caller")
	})
}

func TestPoolPanicReachesCaller(t *testing.T) {
	forEachSpin(t, func(t *testing.T) {
		setWorkers(t, 2)
		p := NewPool()
		require.PanicsWithValue(t, "parallel kernel chunk panicked: bad chunk", func() {
			p.Parallel(1000, 1, func(lo, hi int) {
				if lo > 0 {
					panic("bad chunk")
				}
			})
		})
		// The pool still works afterwards.
		var n atomic.Int32
		p.Parallel(10, 1, func(lo, hi int) { n.Add(int32(hi - lo)) })
		require.Equal(t, int32(10), n.Load())
	})
}

func TestPoolWorkersParkWhenIdle(t *testing.T) {
	setWorkers(t, 2)
	oldSpin := Spin()
	SetSpin(time.Millisecond)
	t.Cleanup(func() { SetSpin(oldSpin) })
	p := NewPool()
	p.Parallel(2, 1, func(lo, hi int) {})
	require.Eventually(t, func() bool { return p.workersAsleep() == 1 }, 5*time.Second, time.Millisecond,
		"an idle worker stops polling after the spin time")
	var n atomic.Int32
	p.Parallel(2, 1, func(lo, hi int) { n.Add(1) })
	require.Equal(t, int32(2), n.Load(), "a parked worker is woken (or the caller runs its chunk)")
}

// setWorkers sets the worker count for one test and restores the count
// (set or unset) and GOMAXPROCS afterwards.
func setWorkers(t testing.TB, k int) {
	prevN, prevProcs := n.Load(), runtime.GOMAXPROCS(0)
	Set(k)
	t.Cleanup(func() { n.Store(prevN); runtime.GOMAXPROCS(prevProcs) })
}
