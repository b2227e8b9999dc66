package compiler

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/internal/cancel"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// countTo is main(n) = the number of iterations of `for i < n { i++ }`.
func countTo(t *testing.T) *Executable {
	mb := newMod()
	mb.fn("main", "public", []ir.Type{i32t()}, []ir.Type{i32t()}, func(b *blkB, a []*ir.Value) []*ir.Value {
		r := b.while([]*ir.Value{b.i32c(0)},
			func(rb *blkB, c []*ir.Value) *ir.Value { return rb.lt(c[0], a[0]) },
			func(rb *blkB, c []*ir.Value) []*ir.Value { return []*ir.Value{rb.add(c[0], rb.i32c(1))} })
		return []*ir.Value{r[0]}
	})
	return compile(t, mb.m)
}

func TestRunCancelStopsLoop(t *testing.T) {
	e := countTo(t)
	errStop := errors.New("stop")
	tok := cancel.New(false)
	done := make(chan error, 1)
	go func() {
		// 2^31-1 iterations: far longer than the test waits.
		res, err := e.RunCancel([][]byte{i32s(math.MaxInt32)}, nil, tok)
		if res != nil {
			for _, o := range res.Outputs {
				devmem.Free(o)
			}
		}
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	require.True(t, tok.Cancel(errStop))
	require.False(t, tok.Cancel(errors.New("second")), "the first error stays")
	select {
	case err := <-done:
		require.ErrorIs(t, err, errStop)
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled loop did not stop")
	}
	// The frame goes back to the pool without its token: the next run,
	// with a fresh token or none, completes.
	res, err := e.RunCancel([][]byte{i32s(1000)}, nil, cancel.New(false))
	require.NoError(t, err)
	require.Equal(t, []int32{1000}, toI32(res.Outputs[0]))
	devmem.Free(res.Outputs[0])
	require.Equal(t, []int32{7}, toI32(run(t, e, i32s(7))[0]))
}

func TestRunCancelledBeforeStart(t *testing.T) {
	e := countTo(t)
	tok := cancel.New(false)
	errStop := errors.New("stop")
	tok.Cancel(errStop)
	_, err := e.RunCancel([][]byte{i32s(3)}, nil, tok)
	require.ErrorIs(t, err, errStop)
}

// A token that polls checks Python's interrupt flag, which a Go test binary
// (no interpreter) never has: the run completes.
func TestPollingTokenWithoutPython(t *testing.T) {
	e := countTo(t)
	tok := cancel.New(true)
	tok.Begin()
	defer tok.End()
	start := time.Now()
	n := int32(1000)
	for time.Since(start) < 3*cancel.PollInterval {
		res, err := e.RunCancel([][]byte{i32s(n)}, nil, tok)
		require.NoError(t, err)
		require.Equal(t, []int32{n}, toI32(res.Outputs[0]))
		devmem.Free(res.Outputs[0])
	}
}
