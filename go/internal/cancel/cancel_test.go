package cancel

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCancelKeepsTheFirstError(t *testing.T) {
	var none *Token
	require.NoError(t, none.Err())
	require.NoError(t, none.Check())
	tok := New(false)
	require.NoError(t, tok.Check())
	e0 := Epoch()
	first := errors.New("first")
	require.True(t, tok.Cancel(first))
	require.NotEqual(t, e0, Epoch(), "a cancel moves the epoch, so running plans look")
	require.False(t, tok.Cancel(errors.New("second")))
	require.ErrorIs(t, tok.Check(), first)
}

// Without an interpreter in the process (a Go test binary) a polling token
// never reports an interrupt.
func TestPollingWithoutPython(t *testing.T) {
	tok := New(true)
	tok.Begin()
	defer tok.End()
	for range 5 {
		require.NoError(t, tok.Check())
	}
}

// The epoch ticks while a polling run is active, and stops ticking some time
// after the last one ends (an idle process is not woken every interval).
func TestEpochTicksOnlyWhilePolling(t *testing.T) {
	waitChange := func() bool {
		e := Epoch()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
			time.Sleep(PollInterval)
			if Epoch() != e {
				return true
			}
		}
		return false
	}
	tok := New(true)
	tok.Begin()
	require.True(t, waitChange(), "no tick while a polling run is active")
	tok.End()
	stable := false
	for deadline := time.Now().Add(20 * time.Second); !stable && time.Now().Before(deadline); {
		e := Epoch()
		time.Sleep(5 * PollInterval)
		stable = Epoch() == e
	}
	require.True(t, stable, "the epoch still ticks with no polling run")
	// A later run wakes the ticker again.
	tok = New(true)
	tok.Begin()
	defer tok.End()
	require.True(t, waitChange(), "no tick after the ticker slept")
}
