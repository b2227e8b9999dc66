package engine

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunSlotsBoundConcurrency(t *testing.T) {
	s := newRunSlots(2)
	var in, most atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				s.acquire()
				n := in.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				in.Add(-1)
				s.release()
			}
		}()
	}
	wg.Wait()
	require.LessOrEqual(t, most.Load(), int64(2))
	require.Equal(t, int64(0), s.used.Load())
	require.Equal(t, int64(0), s.waiters.Load())
}
