package profile

import (
	"errors"
	"sync"

	"github.com/gojax/gojax/go/compiler"
)

// ErrState is returned for a Session call out of order (start twice,
// collect before stop, ...).
var ErrState = errors.New("profiler session")

type sessionState int

const (
	created sessionState = iota
	started
	stopped
)

// Session is one trace of the framework's profiler (jax.profiler): created,
// started, stopped, then collected as an XSpace. Steps are observed only
// between Start and Stop, so no trace costs nothing.
type Session struct {
	mu    sync.Mutex
	state sessionState
	prof  *Profiler
	data  []byte // the XSpace, built at the first Collect
}

// Start begins recording every gojax execution.
func (s *Session) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != created {
		return stateErr("Start", "the session was already started")
	}
	s.prof = New()
	compiler.AddObserver(s.prof)
	s.state = started
	return nil
}

// Stop ends the recording.
func (s *Session) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != started {
		return stateErr("Stop", "the session is not recording")
	}
	compiler.RemoveObserver(s.prof)
	s.state = stopped
	return nil
}

// Collect returns the recording as a serialized XSpace; the same bytes on
// every call.
func (s *Session) Collect() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case created:
		return nil, stateErr("CollectData", "the session was never started")
	case started:
		return nil, stateErr("CollectData", "the session is still recording; stop it first")
	}
	if s.data == nil {
		s.data = s.prof.XSpace()
	}
	return s.data, nil
}

// Close stops a recording still running.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == started {
		compiler.RemoveObserver(s.prof)
		s.state = stopped
	}
}

func stateErr(call, why string) error {
	return &stateError{call + ": " + why}
}

type stateError struct{ msg string }

func (e *stateError) Error() string        { return e.msg }
func (e *stateError) Is(target error) bool { return target == ErrState }
