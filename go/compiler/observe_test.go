package compiler

import (
	"sync"
	"testing"
	"time"

	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/internal/racedetect"
	"github.com/stretchr/testify/require"
)

type recorder struct {
	mu    sync.Mutex
	names []string
	where []string
	runs  map[uint64]bool
	fail  error
}

func (r *recorder) Step(s *StepInfo, run uint64, _ time.Time, dur time.Duration, ins, outs [][]byte, _ bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names = append(r.names, s.Name)
	r.where = append(r.where, s.Where)
	if r.runs == nil {
		r.runs = map[uint64]bool{}
	}
	r.runs[run] = true
	return r.fail
}

func TestObserverSeesWhileBodySteps(t *testing.T) {
	e := compile(t, whileModule(false))
	rec := &recorder{}
	AddObserver(rec)
	defer RemoveObserver(rec)
	run(t, e, i32s(3), f32s(1, 2, 3))
	// cond (lt) runs 4 times, the body's add, mul, add 3 times each.
	require.Len(t, rec.names, 4+3*3)
	require.Contains(t, rec.where[0], "main.py:")
	run(t, e, i32s(0), f32s(1, 2, 3))
	require.Len(t, rec.runs, 2, "each execution has its own number")

	RemoveObserver(rec)
	n := len(rec.names)
	run(t, e, i32s(3), f32s(1, 2, 3))
	require.Len(t, rec.names, n, "removed observers see nothing")
}

func TestObserverErrorFailsTheRun(t *testing.T) {
	e := compile(t, whileModule(false))
	rec := &recorder{fail: errTest}
	AddObserver(rec)
	defer RemoveObserver(rec)
	_, err := e.Run([][]byte{i32s(2), f32s(1, 2, 3)}, nil)
	require.ErrorIs(t, err, errTest)
}

type testErr struct{}

func (testErr) Error() string { return "observer says no" }

var errTest = testErr{}

func TestNoObserverNoAllocation(t *testing.T) {
	e := compile(t, whileModule(false))
	args := [][]byte{i32s(3), f32s(1, 2, 3)}
	res := &RunResult{}
	require.NoError(t, e.RunInto(args, nil, res))
	if racedetect.Enabled { // run frames come from a sync.Pool
		return
	}
	allocs := testing.AllocsPerRun(20, func() {
		if err := e.RunInto(args, nil, res); err != nil {
			t.Fatal(err)
		}
		for _, o := range res.Outputs {
			devmem.Free(o)
		}
	})
	require.Zero(t, allocs)
}

type runRecorder struct {
	recorder
	programs []string
	runIDs   []uint64
	durs     []time.Duration
}

func (r *runRecorder) Run(program string, run uint64, _ time.Time, dur time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.programs = append(r.programs, program)
	r.runIDs = append(r.runIDs, run)
	r.durs = append(r.durs, dur)
}

func TestRunObserverSeesEachExecution(t *testing.T) {
	e := compile(t, whileModule(false))
	rec := &runRecorder{}
	AddObserver(rec)
	defer RemoveObserver(rec)
	run(t, e, i32s(3), f32s(1, 2, 3))
	run(t, e, i32s(1), f32s(1, 2, 3))
	require.Equal(t, []string{e.Name(), e.Name()}, rec.programs)
	require.NotEqual(t, rec.runIDs[0], rec.runIDs[1])
	for _, id := range rec.runIDs {
		require.True(t, rec.runs[id], "the run number is the one its steps carried")
	}
	require.Positive(t, rec.durs[0])
}
