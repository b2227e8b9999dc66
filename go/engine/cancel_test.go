package engine

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/internal/cancel"
	"github.com/stretchr/testify/require"
)

// spinProg is fakeProg behind the plan interpreter's cancellation protocol:
// while spin is set, a run loops (its "steps") until its token stops it.
type spinProg struct {
	*fakeProg
	spin    atomic.Bool
	started chan struct{}
}

func (p *spinProg) RunCancel(args [][]byte, donatable []bool, tok *cancel.Token) (*compiler.RunResult, error) {
	if p.spin.Load() {
		// The epoch is read before the test hears that the run started, so
		// a cancel right after that moves it past seen.
		seen := cancel.Epoch()
		p.started <- struct{}{}
		// Until cancelled, or until the test clears spin.
		for p.spin.Load() {
			if e := cancel.Epoch(); e != seen {
				seen = e
				if err := tok.Check(); err != nil {
					return nil, err
				}
			}
		}
	}
	return p.fakeProg.Run(args, donatable)
}

func newSpinExec(t *testing.T, c *Client) (*Executable, *spinProg) {
	p := &spinProg{fakeProg: &fakeProg{n: 3}, started: make(chan struct{}, 1)}
	p.spin.Store(true)
	e := newFakeExec(t, c, p.fakeProg)
	e.prog = p
	return e, p
}

func waitEvent(t *testing.T, ev *Event) error {
	t.Helper()
	select {
	case <-ev.Done():
		return ev.Err()
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not stop")
		return nil
	}
}

func TestRunStopsWhenItsOutputsAreDeleted(t *testing.T) {
	c := newTestClient(t, 1)
	e, p := newSpinExec(t, c)
	x := hostF32(t, c, 1, 2, 3)
	outs, done, err := e.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	<-p.started
	outs[0][0].Destroy()
	err = waitEvent(t, done[0])
	require.ErrorIs(t, err, errAbandoned)
	require.Equal(t, CodeCancelled, CodeOf(err))
}

func TestRunGoesOnWhileItsDeletedOutputHasAReader(t *testing.T) {
	c := newTestClient(t, 1)
	e, p := newSpinExec(t, c)
	next := newFakeExec(t, c, &fakeProg{n: 3})
	x := hostF32(t, c, 1, 2, 3)
	outs, done, err := e.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	<-p.started
	// The next call reads the pending output (and waits for it): deleting
	// the caller's handle leaves a reader, so nothing is abandoned.
	outs2, done2, err := next.Execute([][]*Buffer{{outs[0][0]}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	outs[0][0].Destroy()
	time.Sleep(20 * time.Millisecond)
	require.False(t, done[0].IsReady())
	p.spin.Store(false)
	require.NoError(t, waitEvent(t, done[0]))
	require.NoError(t, waitEvent(t, done2[0]))
	require.Equal(t, []float32{3, 4, 5}, readF32(t, outs2[0][0]))
}

func TestCancelRun(t *testing.T) {
	for _, mode := range []string{"async", "caller"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "caller" {
				withCallerDispatch(t)
			}
			c := newTestClient(t, 1)
			e, p := newSpinExec(t, c)
			x := hostF32(t, c, 1, 2, 3)
			tok := cancel.New(false)
			errStop := errors.New("stopped by the test")
			go func() {
				<-p.started
				time.Sleep(10 * time.Millisecond)
				tok.Cancel(errStop)
			}()
			outs, done, err := e.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{Cancel: tok})
			require.NoError(t, err, "a cancelled run reports through its outputs and event")
			waitEvent(t, done[0])
			for _, ev := range []*Event{done[0], outs[0][0].ReadyEvent()} {
				require.ErrorIs(t, ev.Err(), errStop)
				require.Equal(t, CodeCancelled, CodeOf(ev.Err()))
			}
			require.False(t, x.IsDeleted())
			// The next run of the same executable works.
			p.spin.Store(false)
			outs, done, err = e.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
			require.NoError(t, err)
			require.NoError(t, done[0].Wait())
			require.Equal(t, []float32{2, 3, 4}, readF32(t, outs[0][0]))
		})
	}
}
