package engine

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// The package's tests exercise the asynchronous machinery (events, holds,
// donation waits), so they run with asynchronous dispatch; the tests below
// switch to calling-thread mode, the library's default.
func TestMain(m *testing.M) {
	asyncDispatch.Store(true)
	os.Exit(m.Run())
}

func withCallerDispatch(t *testing.T) {
	asyncDispatch.Store(false)
	t.Cleanup(func() { asyncDispatch.Store(true) })
}

func TestCallerDispatchRunsBigProgramsInsideExecute(t *testing.T) {
	withCallerDispatch(t)
	c := newTestClient(t, 1)
	p := &fakeProg{n: 3} // no plan statistics: never inline by policy
	e := newFakeExec(t, c, p)
	require.False(t, e.inline)
	x := hostF32(t, c, 1, 2, 3)
	outs, done, err := e.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	require.True(t, done[0].IsReady(), "ran on the calling thread")
	require.True(t, outs[0][0].ReadyEvent().IsReady())
	require.Equal(t, []float32{2, 3, 4}, readF32(t, outs[0][0]))
	require.False(t, x.IsDeleted())
}

func TestCallerDispatchDonates(t *testing.T) {
	withCallerDispatch(t)
	c := newTestClient(t, 1)
	p := &fakeProg{n: 3, donor: true}
	e := newFakeExec(t, c, p)
	x := hostF32(t, c, 1, 2, 3)
	outs, done, err := e.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	require.True(t, done[0].IsReady(), "a donating call runs on the calling thread too")
	require.True(t, x.IsDeleted(), "donated")
	require.Equal(t, []bool{true}, p.donated())
	require.Equal(t, []float32{2, 3, 4}, readF32(t, outs[0][0]))
}

func TestCallerDispatchRunFailureIsReported(t *testing.T) {
	withCallerDispatch(t)
	c := newTestClient(t, 1)
	e := newFakeExec(t, c, &fakeProg{n: 3, fail: os.ErrInvalid})
	x := hostF32(t, c, 1, 2, 3)
	outs, done, err := e.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.NoError(t, err, "run errors travel in the event, as asynchronous ones do")
	require.ErrorIs(t, done[0].Wait(), os.ErrInvalid)
	require.Error(t, outs[0][0].ReadyEvent().Wait())
}

func TestCallerDispatchWaitsForNothing(t *testing.T) {
	withCallerDispatch(t)
	c := newTestClient(t, 1)
	slow := &fakeProg{n: 3, gate: make(chan struct{})}
	asyncDispatch.Store(true)
	first := newFakeExec(t, c, slow)
	x := hostF32(t, c, 1, 2, 3)
	mid, _, err := first.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	asyncDispatch.Store(false)
	// Its input is still being computed: the call goes asynchronous rather
	// than block the caller on it.
	second := newFakeExec(t, c, &fakeProg{n: 3})
	outs, done, err := second.Execute([][]*Buffer{{mid[0][0]}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	require.False(t, done[0].IsReady())
	close(slow.gate)
	require.NoError(t, done[0].Wait())
	require.Equal(t, []float32{3, 4, 5}, readF32(t, outs[0][0]))
}

func TestCallerDispatchKeepsDevicesParallel(t *testing.T) {
	withCallerDispatch(t)
	c := newTestClient(t, 2)
	p := &fakeProg{n: 1, gate: make(chan struct{})}
	e, err := NewExecutable(c, p, []byte("code"), nil)
	require.NoError(t, err)
	devs := c.Devices()
	x := hostF32(t, c, 1)
	y, err := x.CopyToMemory(devs[1].DefaultMemory())
	require.NoError(t, err)
	require.NoError(t, y.ReadyEvent().Wait())
	args := [][]*Buffer{{x}, {y}}
	_, done, err := e.Execute(args, devs, ExecuteOptions{})
	require.NoError(t, err, "two devices: returns without running (the runs wait on the gate)")
	close(p.gate)
	for _, d := range done {
		require.NoError(t, d.Wait())
	}
}
