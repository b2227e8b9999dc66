// Package profile records per-step timings of gojax executions (a
// compiler.StepObserver) and writes them as a summary table or as Chrome
// trace-event JSON, which chrome://tracing and Perfetto load.
package profile

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gojax/gojax/go/compiler"
)

// MaxEvents bounds the trace a profiler keeps; later steps are still
// counted in the per-op totals.
const MaxEvents = 1 << 20

// Event is one step execution.
type Event struct {
	Name, Where string
	Run         uint64        // execution number: concurrent runs differ
	Start, Dur  time.Duration // Start is relative to the profiler's start
}

// OpStats aggregates the steps of one op (same name and location).
type OpStats struct {
	Name  string        `json:"name"`
	Where string        `json:"where"`
	Calls int64         `json:"calls"`
	Total time.Duration `json:"total_ns"`
}

// Mean is the average time per call.
func (s OpStats) Mean() time.Duration {
	if s.Calls == 0 {
		return 0
	}
	return s.Total / time.Duration(s.Calls)
}

// Execution is one top-level run of a program.
type Execution struct {
	Program    string
	Run        uint64
	Start, Dur time.Duration // Start is relative to the profiler's start
}

type key struct{ name, where string }

// Profiler collects steps between Start and Stop.
type Profiler struct {
	mu      sync.Mutex
	t0      time.Time
	events  []Event
	runs    []Execution
	dropped int64
	ops     map[key]*OpStats
}

// New returns an empty profiler whose clock starts now.
func New() *Profiler { return &Profiler{t0: time.Now(), ops: map[key]*OpStats{}} }

// Step implements compiler.StepObserver.
func (p *Profiler) Step(s *compiler.StepInfo, run uint64, start time.Time, dur time.Duration, _, _ [][]byte, _ bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := key{s.Name, s.Where}
	st := p.ops[k]
	if st == nil {
		st = &OpStats{Name: s.Name, Where: s.Where}
		p.ops[k] = st
	}
	st.Calls++
	st.Total += dur
	if len(p.events) < MaxEvents {
		p.events = append(p.events, Event{Name: s.Name, Where: s.Where, Run: run, Start: start.Sub(p.t0), Dur: dur})
	} else {
		p.dropped++
	}
	return nil
}

// Run implements compiler.RunObserver.
func (p *Profiler) Run(program string, run uint64, start time.Time, dur time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.runs) < MaxEvents {
		p.runs = append(p.runs, Execution{Program: program, Run: run, Start: start.Sub(p.t0), Dur: dur})
	} else {
		p.dropped++
	}
}

// Executions returns the recorded runs.
func (p *Profiler) Executions() []Execution {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Execution(nil), p.runs...)
}

// Ops returns the per-op totals, most expensive first.
func (p *Profiler) Ops() []OpStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]OpStats, 0, len(p.ops))
	for _, s := range p.ops {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Total != out[j].Total {
			return out[i].Total > out[j].Total
		}
		return out[i].Name+out[i].Where < out[j].Name+out[j].Where
	})
	return out
}

// Events returns the recorded steps and how many were dropped past MaxEvents.
func (p *Profiler) Events() ([]Event, int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Event(nil), p.events...), p.dropped
}

// Summary formats Ops as a text table.
func (p *Profiler) Summary() string {
	ops := p.Ops()
	var total time.Duration
	for _, s := range ops {
		total += s.Total
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-40s %8s %12s %12s %6s  %s\n", "op", "calls", "total", "mean", "share", "where")
	for _, s := range ops {
		share := 0.0
		if total > 0 {
			share = 100 * float64(s.Total) / float64(total)
		}
		fmt.Fprintf(&b, "%-40s %8d %12s %12s %5.1f%%  %s\n", s.Name, s.Calls, s.Total, s.Mean(), share, s.Where)
	}
	return b.String()
}

// traceEvent is one Chrome trace "complete" event (times in microseconds).
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur"`
	Pid  int            `json:"pid"`
	Tid  uint64         `json:"tid"`
	Args map[string]any `json:"args"`
}

// ChromeTrace returns the trace-event JSON: one complete event per step, one
// thread row per execution.
func (p *Profiler) ChromeTrace() ([]byte, error) {
	events, dropped := p.Events()
	out := struct {
		TraceEvents     []traceEvent   `json:"traceEvents"`
		DisplayTimeUnit string         `json:"displayTimeUnit"`
		OtherData       map[string]any `json:"otherData"`
	}{
		TraceEvents:     make([]traceEvent, 0, len(events)),
		DisplayTimeUnit: "ns",
		OtherData:       map[string]any{"producer": "gojax", "dropped_events": dropped},
	}
	for _, e := range events {
		out.TraceEvents = append(out.TraceEvents, traceEvent{
			Name: e.Name, Cat: "gojax", Ph: "X",
			Ts:  float64(e.Start.Nanoseconds()) / 1e3,
			Dur: float64(e.Dur.Nanoseconds()) / 1e3,
			Pid: 1, Tid: e.Run,
			Args: map[string]any{"op": e.Name, "where": e.Where, "execution": e.Run},
		})
	}
	return json.Marshal(out)
}
