//go:build !linux

package workers

import (
	"sync"
	"sync/atomic"
)

// sleeper parks idle workers on a channel (park_linux.go uses a futex).
type sleeper struct {
	waiting atomic.Int32
	tokens  chan struct{}
	once    sync.Once
}

func (s *sleeper) ch() chan struct{} {
	s.once.Do(func() { s.tokens = make(chan struct{}, maxWake) })
	return s.tokens
}

// sleep blocks until a wake-up token arrives, or returns at once when
// ready already holds.
func (s *sleeper) sleep(ready func() bool) {
	s.waiting.Add(1)
	defer s.waiting.Add(-1)
	if ready() {
		return
	}
	<-s.ch()
}

// wake sends up to n tokens to sleeping workers.
func (s *sleeper) wake(n int) {
	for range min(int(s.waiting.Load()), n) {
		select {
		case s.ch() <- struct{}{}:
		default:
		}
	}
}

// asleep is how many workers sleep (or are about to).
func (s *sleeper) asleep() int { return int(s.waiting.Load()) }
