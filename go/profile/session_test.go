package profile

import (
	"testing"
	"time"

	"github.com/gojax/gojax/go/xplane"
	"github.com/stretchr/testify/require"
)

func TestSessionLifeCycle(t *testing.T) {
	var s Session
	_, err := s.Collect()
	require.ErrorIs(t, err, ErrState, "collect without start")
	require.ErrorIs(t, s.Stop(), ErrState, "stop without start")

	require.NoError(t, s.Start())
	require.ErrorIs(t, s.Start(), ErrState, "double start")
	_, err = s.Collect()
	require.ErrorIs(t, err, ErrState, "collect while recording")

	require.NoError(t, s.Stop())
	require.ErrorIs(t, s.Stop(), ErrState, "double stop")
	require.ErrorIs(t, s.Start(), ErrState, "a session records once")
	a, err := s.Collect()
	require.NoError(t, err)
	b, err := s.Collect()
	require.NoError(t, err)
	require.Equal(t, a, b)
	sp, err := xplane.Parse(a)
	require.NoError(t, err)
	require.Len(t, sp.Planes, 1)
	require.Equal(t, PlaneName, sp.Planes[0].Name)
	s.Close()
}

func TestCloseStopsRecording(t *testing.T) {
	var s Session
	require.NoError(t, s.Start())
	s.Close()
	_, err := s.Collect()
	require.NoError(t, err, "a closed session holds what it recorded")
}

// stat returns the string or number of the stat named name on e.
func stat(p *xplane.Plane, e xplane.Event, name string) any {
	for _, s := range e.Stats {
		if p.StatName(s.MetadataID) == name {
			if s.IsStr {
				return s.Str
			}
			return s.Uint
		}
	}
	return nil
}

func TestXSpaceNestsStepsInRunsAndSplitsOverlaps(t *testing.T) {
	p := New()
	t0 := p.t0
	ms := time.Millisecond
	dot, add := info("stablehlo.dot_general", "m.py:3:1"), info("fusion(multiply,add)", "m.py:4:1")
	// Runs 1 and 2 overlap; run 3 starts after run 1 ended.
	require.NoError(t, p.Step(dot, 1, t0.Add(1*ms), 2*ms, nil, nil, false))
	require.NoError(t, p.Step(add, 1, t0.Add(3*ms), 1*ms, nil, nil, false))
	p.Run("jit_f", 1, t0.Add(1*ms), 4*ms)
	require.NoError(t, p.Step(dot, 2, t0.Add(2*ms), 2*ms, nil, nil, false))
	p.Run("jit_g", 2, t0.Add(2*ms), 5*ms)
	require.NoError(t, p.Step(add, 3, t0.Add(6*ms), 1*ms, nil, nil, false))
	p.Run("jit_f", 3, t0.Add(6*ms), 1*ms)

	sp, err := xplane.Parse(p.XSpace())
	require.NoError(t, err)
	require.Len(t, sp.Planes, 1)
	pl := sp.Planes[0]
	require.Len(t, pl.Lines, 2, "two runs overlapped")
	type ev struct {
		name     string
		run      uint64
		off, dur time.Duration
	}
	lines := map[int64][]ev{}
	for _, l := range pl.Lines {
		require.Equal(t, t0.UnixNano(), l.TimestampNS)
		for _, e := range l.Events {
			r, _ := stat(pl, e, StatRun).(uint64)
			lines[l.ID] = append(lines[l.ID], ev{pl.EventName(e.MetadataID), r, time.Duration(e.OffsetPS / 1000), time.Duration(e.DurationPS / 1000)})
			if n := pl.EventName(e.MetadataID); n != "jit_f" && n != "jit_g" {
				require.Contains(t, stat(pl, e, StatSource), "m.py:")
			}
		}
	}
	require.Equal(t, []ev{
		{"jit_f", 1, 1 * ms, 4 * ms},
		{"stablehlo.dot_general", 1, 1 * ms, 2 * ms},
		{"fusion(multiply,add)", 1, 3 * ms, 1 * ms},
		{"jit_f", 3, 6 * ms, 1 * ms},
		{"fusion(multiply,add)", 3, 6 * ms, 1 * ms},
	}, lines[1], "a run comes before the steps it holds; run 3 reuses the free line")
	require.Equal(t, []ev{
		{"jit_g", 2, 2 * ms, 5 * ms},
		{"stablehlo.dot_general", 2, 2 * ms, 2 * ms},
	}, lines[2])
}
