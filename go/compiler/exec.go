package compiler

import (
	"fmt"
	"runtime/debug"
	"slices"
	"time"

	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/internal/cancel"
	"github.com/gojax/gojax/go/internal/fpmode"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// planDonation decides, per output, which argument's buffer it may reuse
// when the caller donates that argument. tf.aliasing_output names the
// output; jax.buffer_donor lets gojax pick an output of the same type. A
// pairing is kept only when writing the output into the argument's memory
// cannot clobber a value still to be read.
func planDonation(entry *ir.Func, p *plan) ([]int, error) {
	nOut := len(entry.Type.Results)
	alias := make([]int, nOut)
	for k := range alias {
		alias[k] = -1
	}
	usable := func(i, k int) bool {
		if p.outCopyParam[k] == i {
			return true // the output is the argument itself: nothing to write
		}
		for k2, src := range p.outCopyParam {
			if src == i && k2 != k {
				return false // the argument is copied into another output at the end
			}
		}
		if p.outDefPos[k] >= 0 {
			d, u := p.outDefPos[k], p.paramLastUse[i]
			return d > u || (d == u && (p.outInPlace[k] || slices.Contains(p.outOverwrites[k], i)))
		}
		return true
	}
	for i, attrs := range entry.ArgAttrs {
		if i >= len(entry.Type.Inputs) {
			break
		}
		in := entry.Type.Inputs[i]
		if k64, ok := attrs.Int("tf.aliasing_output"); ok {
			k := int(k64)
			if k < 0 || k >= nOut {
				return nil, fmt.Errorf("compiler: argument %d: tf.aliasing_output %d is out of range (%d results)", i, k, nOut)
			}
			if !ir.TypesEqual(in, entry.Type.Results[k]) {
				return nil, fmt.Errorf("compiler: argument %d of type %s aliases result %d of type %s", i, in, k, entry.Type.Results[k])
			}
			if alias[k] >= 0 {
				return nil, fmt.Errorf("compiler: result %d is aliased by arguments %d and %d", k, alias[k], i)
			}
			if usable(i, k) {
				alias[k] = i
			}
			continue
		}
		if !isDonor(attrs) {
			continue
		}
		for k := range nOut {
			if alias[k] < 0 && ir.TypesEqual(in, entry.Type.Results[k]) && usable(i, k) {
				alias[k] = i
				break
			}
		}
	}
	return alias, nil
}

func isDonor(a ir.Attrs) bool {
	switch v := a["jax.buffer_donor"].(type) {
	case ir.BoolAttr:
		return v.Value
	case ir.UnitAttr:
		return true
	case ir.IntAttr:
		return v.Value != 0
	}
	return false
}

// Run executes the plan. args are device buffers matching InputTypes;
// donatable[i] says argument i may be reused for an output (nil: none).
// Arguments are only read, except a donated one that an output reuses.
func (e *Executable) Run(args [][]byte, donatable []bool) (*RunResult, error) {
	res := newRunResult(len(e.outBytes))
	if err := e.RunInto(args, donatable, res); err != nil {
		return nil, err
	}
	return res, nil
}

// resultBox holds a RunResult and the backing arrays of its slices, so Run
// makes one allocation for programs with few outputs.
type resultBox struct {
	res   RunResult
	outs  [3][]byte
	alias [3]int
}

func newRunResult(n int) *RunResult {
	if n <= len(resultBox{}.outs) {
		b := &resultBox{}
		b.res.Outputs, b.res.AliasOf = b.outs[:n:n], b.alias[:n:n]
		return &b.res
	}
	return &RunResult{Outputs: make([][]byte, n), AliasOf: make([]int, n)}
}

// RunInto is Run writing into a caller-owned result, whose slices are reused
// when large enough: with a reused res, a run of a program without parallel
// kernels makes no Go allocation (outputs still come from devmem). On error
// the outputs allocated by this run are freed and res holds none.
func (e *Executable) RunInto(args [][]byte, donatable []bool, res *RunResult) error {
	return e.runInto(args, donatable, res, nil, nil)
}

// RunCancel is Run stopped by tok (see go/internal/cancel) at the step
// boundary after it is cancelled, returning the token's error.
func (e *Executable) RunCancel(args [][]byte, donatable []bool, tok *cancel.Token) (*RunResult, error) {
	return e.RunContext(args, donatable, tok, nil)
}

// RunContext is RunCancel whose steps that ask for their run's context
// (kernel.RunContextLowering) get rc; nil gives them none.
func (e *Executable) RunContext(args [][]byte, donatable []bool, tok *cancel.Token, rc *kernel.RunContext) (*RunResult, error) {
	res := newRunResult(len(e.outBytes))
	if err := e.runInto(args, donatable, res, tok, rc); err != nil {
		return nil, err
	}
	return res, nil
}

func (e *Executable) runInto(args [][]byte, donatable []bool, res *RunResult, tok *cancel.Token, rc *kernel.RunContext) (err error) {
	if len(args) != len(e.inBytes) {
		return fmt.Errorf("compiler: %s takes %d arguments, got %d", e.name, len(e.inBytes), len(args))
	}
	if donatable != nil && len(donatable) != len(e.inBytes) {
		return fmt.Errorf("compiler: %d donatable flags for %d arguments", len(donatable), len(e.inBytes))
	}
	for i, n := range e.inBytes {
		if len(args[i]) != n {
			return fmt.Errorf("compiler: argument %d has %d bytes, %s needs %d", i, len(args[i]), e.entry.Type.Inputs[i], n)
		}
	}
	nOut := len(e.outBytes)
	if cap(res.Outputs) < nOut {
		res.Outputs = make([][]byte, nOut)
	}
	if cap(res.AliasOf) < nOut {
		res.AliasOf = make([]int, nOut)
	}
	res.Outputs, res.AliasOf = res.Outputs[:nOut], res.AliasOf[:nOut]
	// Kernels run in XLA:CPU's floating-point mode (subnormals flushed, see
	// go/internal/fpmode); the caller's thread gets its own mode back.
	csr := fpmode.Enter()
	defer fpmode.Exit(csr)
	clear(res.Outputs)
	for k := range res.AliasOf {
		res.AliasOf[k] = -1
	}
	defer func() {
		if r := recover(); r != nil {
			if oom, ok := kernel.Recovered(r); ok {
				// Scratch of a region or helper outside a named step.
				err = fmt.Errorf("compiler: %s: %w", e.name, oom)
			} else {
				err = fmt.Errorf("compiler: %s: internal error: %v\n%s", e.name, r, debug.Stack())
			}
		}
		if err != nil {
			for k, o := range res.Outputs {
				if res.AliasOf[k] < 0 && o != nil {
					devmem.Free(o)
				}
			}
			res.Outputs, res.AliasOf = res.Outputs[:0], res.AliasOf[:0]
		}
	}()
	for k, n := range e.outBytes {
		if i := e.aliasArg[k]; i >= 0 && donatable != nil && donatable[i] {
			res.Outputs[k], res.AliasOf[k] = args[i], i
			continue
		}
		if res.Outputs[k], err = devmem.Alloc(n); err != nil {
			return err
		}
	}
	run := runIDs.Add(1)
	obs := observers.Load()
	if obs == nil {
		return e.plan.exec(args, res.Outputs, tok, run, rc)
	}
	start := time.Now()
	if err = e.plan.exec(args, res.Outputs, tok, run, rc); err != nil {
		return err
	}
	reportRun(*obs, e.name, run, start)
	return nil
}
