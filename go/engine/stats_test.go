package engine

import (
	"errors"
	"os"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/gojax/gojax/go/ir"
)

// delta is after - before for the counters a test looks at.
func delta(before, after Stats) Stats {
	return Stats{
		LiveBuffers:      after.LiveBuffers - before.LiveBuffers,
		BuffersCreated:   after.BuffersCreated - before.BuffersCreated,
		Compiles:         after.Compiles - before.Compiles,
		FailedCompiles:   after.FailedCompiles - before.FailedCompiles,
		CompileTime:      after.CompileTime - before.CompileTime,
		Executions:       after.Executions - before.Executions,
		FailedExecutions: after.FailedExecutions - before.FailedExecutions,
		ExecuteTime:      after.ExecuteTime - before.ExecuteTime,
	}
}

func TestStatsCountCompiles(t *testing.T) {
	c := newTestClient(t, 1)
	code, err := os.ReadFile(testenv.Data(t, "jax-export", "annotate_data_placement#0.bc"))
	require.NoError(t, err)

	before := ReadStats()
	_, err = Compile(c, []byte("garbage"), nil, compiler.Options{})
	require.Error(t, err)
	d := delta(before, ReadStats())
	require.Equal(t, int64(0), d.Compiles)
	require.Equal(t, int64(1), d.FailedCompiles)
	require.Zero(t, d.CompileTime, "failed compiles add no compile time")

	before = ReadStats()
	e, err := Compile(c, code, nil, compiler.Options{})
	require.NoError(t, err)
	d = delta(before, ReadStats())
	require.Equal(t, int64(1), d.Compiles)
	require.Equal(t, int64(0), d.FailedCompiles)
	require.Positive(t, d.CompileTime)

	before = ReadStats()
	_, err = Deserialize(c, e.Serialize(), nil, compiler.Options{})
	require.NoError(t, err)
	require.Equal(t, int64(1), delta(before, ReadStats()).Compiles, "deserializing recompiles")

	before = ReadStats()
	_, err = e.Load(c)
	require.NoError(t, err)
	require.Equal(t, int64(0), delta(before, ReadStats()).Compiles, "loading does not compile")
}

func TestStatsLiveBuffers(t *testing.T) {
	c := newTestClient(t, 1)
	mem := c.Devices()[0].DefaultMemory()
	one := []float32{1}
	p := unsafe.Pointer(&one[0])
	tests := []struct {
		name        string
		make        func() (*Buffer, error)
		wantCreated int64
	}{
		{"from host", func() (*Buffer, error) {
			b, _, err := BufferFromHost(mem, HostBuffer{Data: p, Elem: ir.F32, Dims: []int64{1}}, ImmutableOnlyDuringCall)
			return b, err
		}, 1},
		{"uninitialized", func() (*Buffer, error) { return NewUninitializedBuffer(mem, ir.F32, []int64{4}) }, 1},
		{"error buffer", func() (*Buffer, error) {
			return NewErrorBuffer(mem, ir.F32, false, []int64{2}, errors.New("upstream"))
		}, 1},
		{"token", func() (*Buffer, error) { return NewTokenBuffer(mem) }, 1},
		{"view", func() (*Buffer, error) { return NewViewBuffer(mem, ir.F32, []int64{1}, p, nil) }, 1},
		{"bad strides are not counted", func() (*Buffer, error) {
			b, _, err := BufferFromHost(mem, HostBuffer{Data: p, Elem: ir.F32, Dims: []int64{1}, ByteStrides: []int64{4, 4}}, ImmutableOnlyDuringCall)
			return b, err
		}, 1},
		{"nil view is not counted", func() (*Buffer, error) { return NewViewBuffer(mem, ir.F32, []int64{1}, nil, nil) }, 1},
		{"invalid type never creates one", func() (*Buffer, error) { return NewUninitializedBuffer(mem, ir.Invalid, []int64{1}) }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := ReadStats()
			b, err := tt.make()
			d := delta(before, ReadStats())
			require.Equal(t, tt.wantCreated, d.BuffersCreated)
			if err != nil {
				require.Equal(t, int64(0), d.LiveBuffers, "a buffer that was never handed out is not live")
				return
			}
			require.Equal(t, int64(1), d.LiveBuffers)
			b.Delete()
			b.Delete()
			require.Equal(t, int64(0), delta(before, ReadStats()).LiveBuffers)
		})
	}
}

func TestStatsLiveBuffersFollowReleaseNotDelete(t *testing.T) {
	c := newTestClient(t, 1)
	before := ReadStats()
	x := hostF32(t, c, 1, 2)
	require.NoError(t, x.IncExternalRef())
	x.Delete()
	require.Equal(t, int64(1), delta(before, ReadStats()).LiveBuffers, "an external reference keeps the memory")
	require.NoError(t, x.DecExternalRef())
	require.Equal(t, int64(0), delta(before, ReadStats()).LiveBuffers)
}

func TestStatsCountExecutions(t *testing.T) {
	c := newTestClient(t, 2)
	x := hostF32(t, c, 1, 2)
	defer x.Delete()
	tests := []struct {
		name       string
		prog       *fakeProg
		wantFailed int64
	}{
		{"success", &fakeProg{n: 2}, 0},
		{"kernel error", &fakeProg{n: 2, fail: errors.New("kernel exploded")}, 1},
		{"donated input", &fakeProg{n: 2, donor: true}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFakeExec(t, c, tt.prog)
			arg := hostF32(t, c, 1, 2)
			defer arg.Delete()
			before := ReadStats()
			outs, done, err := e.Execute([][]*Buffer{{arg}}, nil, ExecuteOptions{})
			require.NoError(t, err)
			require.Equal(t, int64(1), delta(before, ReadStats()).Executions, "counted when Execute returns")
			runErr := done[0].Wait()
			require.Equal(t, tt.wantFailed != 0, runErr != nil)
			d := delta(before, ReadStats())
			require.Equal(t, int64(1), d.Executions)
			require.Equal(t, tt.wantFailed, d.FailedExecutions)
			wantLive := int64(1) // the output
			if tt.prog.donor {
				wantLive = 0 // the output took over the donated input's memory
			}
			require.Equal(t, wantLive, d.LiveBuffers)
			outs[0][0].Delete()
		})
	}

	t.Run("rejected calls are not runs", func(t *testing.T) {
		e := newFakeExec(t, c, &fakeProg{n: 2})
		gone := hostF32(t, c, 1, 2)
		gone.Delete()
		before := ReadStats()
		_, _, err := e.Execute([][]*Buffer{{x, x}}, nil, ExecuteOptions{})
		require.Error(t, err)
		// Device 0's outputs exist before device 1's argument fails to hold.
		_, _, err = e.Execute([][]*Buffer{{x}, {gone}}, c.Devices(), ExecuteOptions{})
		require.ErrorContains(t, err, "deleted")
		d := delta(before, ReadStats())
		require.Equal(t, int64(0), d.Executions)
		require.Equal(t, int64(0), d.LiveBuffers, "outputs of a rejected call are dropped")
	})

	t.Run("execute time covers the run", func(t *testing.T) {
		p := &fakeProg{n: 2, gate: make(chan struct{})}
		e := newFakeExec(t, c, p)
		before := ReadStats()
		outs, done, err := e.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
		require.NoError(t, err)
		// The clock starts when the run takes its slot, on its own goroutine:
		// wait until it is inside Run, or a slow scheduler shortens the span.
		require.Eventually(t, func() bool { return p.runs.Load() == 1 }, 5*time.Second, time.Millisecond)
		time.Sleep(20 * time.Millisecond)
		close(p.gate)
		require.NoError(t, done[0].Wait())
		require.GreaterOrEqual(t, delta(before, ReadStats()).ExecuteTime, 20*time.Millisecond)
		outs[0][0].Delete()
	})
}

func TestStatsDonateWithDependencyAndCopies(t *testing.T) {
	c := newTestClient(t, 2)
	before := ReadStats()
	x := hostF32(t, c, 1, 2)
	nb, ready, err := x.DonateWithDependency()
	require.NoError(t, err)
	_, _, err = x.DonateWithDependency()
	require.Error(t, err)
	ready(nil)
	require.NoError(t, nb.ReadyEvent().Wait())
	require.Eventually(t, func() bool { return delta(before, ReadStats()).LiveBuffers == 1 }, 5*time.Second, time.Millisecond,
		"the donor's memory moved to the new buffer")
	cp, err := nb.CopyToMemory(c.Devices()[1].DefaultMemory())
	require.NoError(t, err)
	require.NoError(t, cp.ReadyEvent().Wait())
	require.Equal(t, int64(2), delta(before, ReadStats()).LiveBuffers)
	nb.Delete()
	_, err = nb.CopyToMemory(c.Devices()[1].DefaultMemory())
	require.Error(t, err)
	cp.Delete()
	require.Equal(t, int64(0), delta(before, ReadStats()).LiveBuffers)
}
