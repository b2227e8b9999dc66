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
		p.started <- struct{}{}
		for seen := cancel.Epoch(); ; {
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

func TestCancelRun(t *testing.T) {
	for _, mode := range []string{"async", "caller"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "caller" {
				withCallerDispatch(t)
			}
			c := newTestClient(t, 1)
			p := &spinProg{fakeProg: &fakeProg{n: 3}, started: make(chan struct{}, 1)}
			p.spin.Store(true)
			e := newFakeExec(t, c, p.fakeProg)
			e.prog = p
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
			select {
			case <-done[0].Done():
			case <-time.After(30 * time.Second):
				t.Fatal("the cancelled run did not stop")
			}
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
