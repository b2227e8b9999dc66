//go:build !linux

package workers

// sleeper is empty here: idle workers park on the pool's wake channel like
// callers (park_linux.go sleeps them in a futex instead).
type sleeper struct{}

func (sleeper) wake(int) {}

// parkWorker blocks until push hands out a wake-up token.
func (p *Pool) parkWorker() { p.park(nil) }

// workersAsleep is how many goroutines are parked (workers and callers).
func (p *Pool) workersAsleep() int { return int(p.sleepers.Load()) }
