// Package cancel stops a program run at its next step boundary: when its
// token is cancelled, or, for a run on Python's main thread, when Ctrl-C
// arrives while it runs.
//
// The plan interpreter checks between steps, and once per while-loop
// iteration, whether Epoch changed since it last looked: one atomic load of
// a global that changes rarely, so the check costs nothing measurable even
// in loops of scalar steps. Epoch changes when any token is cancelled and,
// while a run that polls for interrupts is active, every PollInterval; only
// then does a run look at its own token (Check).
package cancel

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// ErrInterrupted is the error of a run stopped by Ctrl-C.
var ErrInterrupted = errors.New("interrupted by Ctrl-C (SIGINT): the run was cancelled at a step boundary")

// PollInterval is how often a run on Python's main thread looks at Python's
// interrupt flag.
const PollInterval = 10 * time.Millisecond

// lingerTicks: the ticker goes on this many intervals after the last polling
// run ends, so a loop of calls does not wake it once per call.
const lingerTicks = 10

var epoch atomic.Uint32

// Epoch changes whenever a token may have something to report.
func Epoch() uint32 { return epoch.Load() }

// Token is the cancellation state of one run. The zero value is a token
// that does not poll; a nil *Token is never cancelled.
type Token struct {
	err atomic.Pointer[error]
	// polls: the run is on the thread that called Execute, which may be
	// Python's main thread, the only one Python reports Ctrl-C to.
	polls bool
	// skip and backoff space out polls while the GIL is busy, and muted
	// ends them (only the run's own goroutine polls, so these need no
	// synchronization).
	skip, backoff int
	muted         bool
}

// gilBusy: a poll that waited this long for the GIL makes the next ones
// rarer (up to every maxBackoff+1 intervals): while another Python thread
// computes, each take of the GIL may wait for its switch interval (5 ms by
// default), during which this run's steps stand still.
const (
	gilBusy    = time.Millisecond
	maxBackoff = 7
)

// New returns a token; polls asks the run to look for Ctrl-C (only runs on
// the calling thread should: Check polls on the thread it runs on).
func New(polls bool) *Token { return &Token{polls: polls} }

// Cancel makes the run stop with err at its next step boundary. It reports
// false when the token was already cancelled (the first error stays).
func (t *Token) Cancel(err error) bool {
	if !t.err.CompareAndSwap(nil, &err) {
		return false
	}
	epoch.Add(1)
	return true
}

// Err is the error the token was cancelled with, nil if none.
func (t *Token) Err() error {
	if t == nil {
		return nil
	}
	if p := t.err.Load(); p != nil {
		return *p
	}
	return nil
}

// Check is the step-boundary check, called when Epoch changed: the token's
// error, or ErrInterrupted when the token polls and Python has a pending
// Ctrl-C for this thread whose handler is Python's default one (it raises
// KeyboardInterrupt). Python's flag is set again, so the interpreter still
// runs the handler once the call returns.
func (t *Token) Check() error {
	if t == nil {
		return nil
	}
	if err := t.Err(); err != nil {
		return err
	}
	if !t.polls || t.muted {
		return nil
	}
	if t.skip > 0 {
		t.skip--
		return nil
	}
	kind, waited := pythonInterrupted()
	switch kind {
	case keyboardInt:
		t.Cancel(ErrInterrupted)
		return t.Err()
	case handledByOwner:
		// A handler of the program's own (a graceful stop that lets the
		// current step finish, say) runs once the call returns; the run
		// goes on, and stops polling, as the flag stays set until then.
		t.muted = true
		return nil
	}
	if waited >= gilBusy {
		t.backoff = min(max(1, 2*t.backoff), maxBackoff)
	} else {
		t.backoff = 0
	}
	t.skip = t.backoff
	return nil
}

// Begin and End bracket a run with t: while some polling run is between
// them, Epoch changes every PollInterval so that it looks at Python's flag.
func (t *Token) Begin() {
	if t == nil || !t.polls {
		return
	}
	startTicker.Do(func() { go tick() })
	if polling.Add(1) == 1 && idle.Load() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
}

func (t *Token) End() {
	if t != nil && t.polls {
		polling.Add(-1)
	}
}

var (
	startTicker sync.Once
	polling     atomic.Int32 // runs between Begin and End that poll
	idle        atomic.Bool  // the ticker waits for wake
	wake        = make(chan struct{}, 1)
)

// tick changes the epoch every PollInterval while polling runs exist (and a
// little longer), and sleeps otherwise.
func tick() {
	t := time.NewTicker(PollInterval)
	t.Stop()
	for {
		// Begin raises polling and then reads idle; this sets idle and then
		// reads polling: one of the two sees the other, so no run is missed.
		idle.Store(true)
		if polling.Load() == 0 {
			<-wake
		}
		idle.Store(false)
		t.Reset(PollInterval)
		for quiet := 0; quiet < lingerTicks; {
			<-t.C
			epoch.Add(1)
			if polling.Load() == 0 {
				quiet++
			} else {
				quiet = 0
			}
		}
		t.Stop()
	}
}
