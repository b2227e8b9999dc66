package engine

import (
	"sync"
	"sync/atomic"
)

// runSlots bounds how many executions run at once. Taking a free slot is one
// compare-and-swap (every dispatch of a small program takes one on the
// caller's thread); only a caller that finds every slot taken locks and
// waits.
type runSlots struct {
	used    atomic.Int64
	limit   int64
	waiters atomic.Int64
	mu      sync.Mutex
	cond    sync.Cond // on mu
}

func newRunSlots(limit int) *runSlots {
	s := &runSlots{limit: int64(max(limit, 1))}
	s.cond.L = &s.mu
	return s
}

func (s *runSlots) tryAcquire() bool {
	for {
		v := s.used.Load()
		if v >= s.limit {
			return false
		}
		if s.used.CompareAndSwap(v, v+1) {
			return true
		}
	}
}

// acquire takes a slot, waiting for one if needed.
func (s *runSlots) acquire() {
	if s.tryAcquire() {
		return
	}
	s.mu.Lock()
	s.waiters.Add(1) // before the check below, so that release sees it
	for !s.tryAcquire() {
		s.cond.Wait()
	}
	s.waiters.Add(-1)
	s.mu.Unlock()
}

// release gives a slot back.
func (s *runSlots) release() {
	s.used.Add(-1)
	if s.waiters.Load() > 0 {
		s.mu.Lock() // a waiter holds mu from its failed check until it waits
		s.cond.Signal()
		s.mu.Unlock()
	}
}
