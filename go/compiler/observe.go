package compiler

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gojax/gojax/go/ir"
)

// StepObserver watches kernel steps while installed with AddObserver: the
// profiler records timings, the NaN checker inspects outputs. Steps inside
// kernel regions (reduce bodies, sort comparators: run per element) are not
// observed; steps of while/case bodies are.
type StepObserver interface {
	// Step is called after each step with its inputs and outputs (valid only
	// during the call; an input may share memory with an output, so it may
	// hold the output now). before is what BeforeStep returned, for
	// observers that are also BeforeStepObservers. A non-nil error fails the
	// execution.
	Step(s *StepInfo, run uint64, start time.Time, dur time.Duration, ins, outs [][]byte, before bool) error
}

// BeforeStepObserver is a StepObserver that also looks at a step's inputs
// before it runs (the planner may let a step overwrite an input in place).
type BeforeStepObserver interface {
	StepObserver
	BeforeStep(s *StepInfo, ins [][]byte) bool
}

// RunObserver is a StepObserver that is also told of each top-level
// execution once it ends: program is the executable's Name, run the number
// its steps were reported with.
type RunObserver interface {
	StepObserver
	Run(program string, run uint64, start time.Time, dur time.Duration)
}

// StepInfo describes a step; it is computed once per step.
type StepInfo struct {
	Op *ir.Op
	// Name is the op name, or for a fusion "fusion(op1,op2,…)" with the
	// fused ops in program order.
	Name string
	// Where is the op's source location as JAX recorded it.
	Where string
	// Outs are the result types.
	Outs []ir.Type
}

// observers is the installed set, replaced whole on change (copy on write).
var (
	observersMu sync.Mutex
	observers   atomic.Pointer[[]StepObserver]
)

// AddObserver installs o for every execution of every executable. With none
// installed a step pays one atomic load.
func AddObserver(o StepObserver) {
	observersMu.Lock()
	defer observersMu.Unlock()
	var next []StepObserver
	if cur := observers.Load(); cur != nil {
		next = append(next, *cur...)
	}
	next = append(next, o)
	observers.Store(&next)
}

// RemoveObserver uninstalls o (a no-op when it is not installed).
func RemoveObserver(o StepObserver) {
	observersMu.Lock()
	defer observersMu.Unlock()
	cur := observers.Load()
	if cur == nil {
		return
	}
	var next []StepObserver
	for _, x := range *cur {
		if x != o {
			next = append(next, x)
		}
	}
	if len(next) == 0 {
		observers.Store(nil)
		return
	}
	observers.Store(&next)
}

// runIDs numbers top-level executions, so observers can tell concurrent runs apart.
var runIDs atomic.Uint64

// reportRun tells the RunObservers among obs (the set installed when the
// run began) that a run ended.
func reportRun(obs []StepObserver, program string, run uint64, start time.Time) {
	dur := time.Since(start)
	for _, o := range obs {
		if r, ok := o.(RunObserver); ok {
			r.Run(program, run, start, dur)
		}
	}
}

type stepInfoOnce struct {
	once sync.Once
	info StepInfo
}

func (s *stepInfoOnce) get(op *ir.Op) *StepInfo {
	s.once.Do(func() {
		s.info = StepInfo{Op: op, Name: op.Name, Where: op.Loc.String()}
		if op.Name == fusionOp && len(op.Regions) == 1 {
			var names []string
			op.Regions[0].Walk(func(o *ir.Op) bool {
				if o.Name != "stablehlo.return" {
					names = append(names, strings.TrimPrefix(o.Name, "stablehlo."))
				}
				return true
			})
			s.info.Name = "fusion(" + strings.Join(names, ",") + ")"
		}
		for _, r := range op.Results {
			s.info.Outs = append(s.info.Outs, r.Type)
		}
	})
	return &s.info
}

// runObserved runs the step and reports it to each observer.
func (k *kernelInstr) runObserved(obs []StepObserver, f *frame, ins, outs [][]byte) error {
	info := k.info.get(k.op)
	var before [8]bool // per observer; more observers than this get false
	for i, o := range obs {
		if b, ok := o.(BeforeStepObserver); ok && i < len(before) {
			before[i] = b.BeforeStep(info, ins)
		}
	}
	start := time.Now()
	if err := callStep(k.stepOf(f), ins, outs); err != nil {
		return opError(k.op, err)
	}
	dur := time.Since(start)
	for i, o := range obs {
		if err := o.Step(info, f.run, start, dur, ins, outs, i < len(before) && before[i]); err != nil {
			return err
		}
	}
	return nil
}
