package profile

import (
	"fmt"
	"sort"
	"time"

	"github.com/gojax/gojax/go/xplane"
)

// PlaneName names gojax's plane in an XSpace. Trace viewers convert planes
// named "/host:CPU" (the framework's own threads) and device planes, whose
// names start "/device:GPU:", "/device:TPU:" or, for other devices,
// "/device:CUSTOM:"; gojax's executions show as a device of that last kind.
const PlaneName = "/device:CUSTOM:gojax"

// Stat names on gojax's events.
const (
	StatProgram = "program" // the executable's name, e.g. "jit_f"
	StatRun     = "run"     // execution number, shared by a run and its steps
	StatSource  = "source"  // the op's source location as JAX recorded it
)

// XSpace returns the recording as a serialized tensorflow.profiler.XSpace
// holding one plane: one event per execution (named after its program) with
// its steps (named after their ops) nested inside, on as many lines as runs
// overlapped.
func (p *Profiler) XSpace() []byte {
	events, _ := p.Events()
	runs := p.Executions()

	type span struct {
		program    string
		start, end time.Duration
		lane       int
	}
	spans := map[uint64]*span{}
	grow := func(run uint64, start, dur time.Duration) *span {
		s := spans[run]
		if s == nil {
			s = &span{start: start, end: start + dur}
			spans[run] = s
		}
		s.start, s.end = min(s.start, start), max(s.end, start+dur)
		return s
	}
	for _, r := range runs {
		grow(r.Run, r.Start, r.Dur).program = r.Program
	}
	for _, e := range events {
		grow(e.Run, e.Start, e.Dur)
	}
	// Runs that overlap in time go to different lines (XLine events may
	// nest but not overlap); a line is reused once its last run ended.
	order := make([]uint64, 0, len(spans))
	for id := range spans {
		order = append(order, id)
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := spans[order[i]], spans[order[j]]
		if a.start != b.start {
			return a.start < b.start
		}
		return order[i] < order[j]
	})
	var laneEnds []time.Duration
	for _, id := range order {
		s := spans[id]
		s.lane = -1
		for l, end := range laneEnds {
			if end <= s.start {
				s.lane = l
				break
			}
		}
		if s.lane < 0 {
			s.lane = len(laneEnds)
			laneEnds = append(laneEnds, 0)
		}
		laneEnds[s.lane] = s.end
	}

	plane := &xplane.Plane{Name: PlaneName}
	program, run, source := plane.StatMetadata(StatProgram), plane.StatMetadata(StatRun), plane.StatMetadata(StatSource)
	t0 := p.t0.UnixNano()
	for l := range laneEnds {
		name := "gojax executions"
		if l > 0 {
			name = fmt.Sprintf("gojax executions #%d", l+1)
		}
		plane.Lines = append(plane.Lines, &xplane.Line{ID: int64(l + 1), Name: name, TimestampNS: t0})
	}
	add := func(lane int, md int64, start, dur time.Duration, stats ...xplane.Stat) {
		line := plane.Lines[lane]
		line.Events = append(line.Events, xplane.Event{MetadataID: md, OffsetPS: start.Nanoseconds() * 1000, DurationPS: dur.Nanoseconds() * 1000, Stats: stats})
		line.DurationPS = max(line.DurationPS, (start+dur).Nanoseconds()*1000)
	}
	for _, r := range runs {
		add(spans[r.Run].lane, plane.EventMetadata(r.Program), r.Start, r.Dur,
			xplane.StrStat(program, r.Program), xplane.UintStat(run, r.Run))
	}
	for _, e := range events {
		s := spans[e.Run]
		stats := []xplane.Stat{xplane.UintStat(run, e.Run), xplane.StrStat(source, e.Where)}
		if s.program != "" {
			stats = append(stats, xplane.StrStat(program, s.program))
		}
		add(s.lane, plane.EventMetadata(e.Name), e.Start, e.Dur, stats...)
	}
	// Within a line, an enclosing event comes before the ones it holds.
	for _, line := range plane.Lines {
		sort.SliceStable(line.Events, func(i, j int) bool {
			a, b := line.Events[i], line.Events[j]
			if a.OffsetPS != b.OffsetPS {
				return a.OffsetPS < b.OffsetPS
			}
			return a.DurationPS > b.DurationPS
		})
	}
	return (&xplane.Space{Planes: []*xplane.Plane{plane}}).Marshal()
}
