package linalg

import (
	"fmt"
	"sync"

	"github.com/gojax/gojax/go/kernels/kernel"
)

// firstErr collects the first error of parallel batch items; gonum panics
// on argument errors, and a panic must not escape a Step, so batch bodies
// that call into gonum run under catch.
type firstErr struct {
	mu  sync.Mutex
	err error
}

func (f *firstErr) set(err error) {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
}

// catch runs fn, turning a panic into an error recorded in f.
func (f *firstErr) catch(what string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			if oom, ok := kernel.Recovered(r); ok {
				f.set(fmt.Errorf("%s: %w", what, oom)) // stays RESOURCE_EXHAUSTED
				return
			}
			f.set(fmt.Errorf("%s: %v", what, r))
		}
	}()
	fn()
}
