package engine

import (
	"sync"
	"sync/atomic"
)

// Event is a one-shot completion signal carrying an error (nil on success).
// Callbacks never run under the event's lock, so a callback may drop the last
// reference to whatever owns the event.
type Event struct {
	mu    sync.Mutex
	done  bool
	fired atomic.Bool // done, readable without the lock; err is set before
	err   error
	cbs   []func(error)
	// ch is made by the first Wait or Done before the event fires (most
	// events, e.g. those of programs run inline, fire before anyone waits,
	// and never need one) and closed when it fires.
	ch chan struct{}
}

// closedChan is what Done returns for a fired event.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// NewEvent returns an event that has not fired yet.
func NewEvent() *Event { return &Event{} }

// DoneEvent returns an event that has already fired with err.
func DoneEvent(err error) *Event {
	e := NewEvent()
	e.Set(err)
	return e
}

// Set fires the event. It reports false (and changes nothing) when the event
// had already fired.
func (e *Event) Set(err error) bool {
	e.mu.Lock()
	if e.done {
		e.mu.Unlock()
		return false
	}
	e.done, e.err = true, err
	e.fired.Store(true)
	cbs := e.cbs
	e.cbs = nil
	if e.ch != nil {
		close(e.ch)
	}
	e.mu.Unlock()
	for _, cb := range cbs {
		cb(err)
	}
	return true
}

// FiredOK reports whether the event has fired without error.
func (e *Event) FiredOK() bool { return e.fired.Load() && e.err == nil }

// IsReady reports whether the event has fired (successfully or not).
func (e *Event) IsReady() bool { return e.fired.Load() }

// Err returns the event's error; it blocks until the event has fired.
func (e *Event) Err() error { return e.Wait() }

// Wait blocks until the event fires and returns its error.
func (e *Event) Wait() error {
	if e.fired.Load() {
		return e.err
	}
	<-e.Done()
	return e.err // written before the channel closed
}

// Done is closed when the event fires.
func (e *Event) Done() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return closedChan
	}
	if e.ch == nil {
		e.ch = make(chan struct{})
	}
	return e.ch
}

// OnReady calls f with the event's error once it fires; immediately (on the
// caller's goroutine) when it already has.
func (e *Event) OnReady(f func(error)) {
	e.mu.Lock()
	if e.done {
		err := e.err
		e.mu.Unlock()
		f(err)
		return
	}
	e.cbs = append(e.cbs, f)
	e.mu.Unlock()
}
