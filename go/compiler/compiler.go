// Package compiler turns a StableHLO portable artifact into an executable plan.
//
// Pipeline: vhlo.Read → verify.Module → clone → the passes, in the order of
// the table in passes.go, which says on each entry what that pass rewrites
// (the table is the list; this comment does not repeat it), with structural
// invariants checked after every pass → the builder (build.go, one file per
// stage) lowers the entry function into a plan. Two passes fuse: row fusion (pass_rowfuse.go) groups row
// reductions with their elementwise neighbours into gojax.rowfusion ops,
// and elementwise fusion (pass_fuse.go) turns trees of elementwise ops, with
// the reshapes between them and the broadcasts feeding them, into
// gojax.fusion ops; the fused kernel family (go/kernels/fused) runs each as
// one blocked loop with intermediates in per-worker scratch, bit-identical
// to the unfused plan (Options.NoFuse). Which ops may fuse or run in place
// is read from their registered traits (kernel.Traits), never from lists
// here.
//
// A plan (plan.go) is a flat list of instructions over numbered buffer
// slots whose sizes are fixed at compile time. Kernel ops become kernel
// steps (kernel.Lookup / kernel.LookupCustomCall); while, case and if become
// nested instruction lists sharing the enclosing slots; regions of kernel ops
// (reduce bodies, comparators) become callable sub-plans via
// kernel.Context.CompileRegion. Slots are shared by values whose live ranges
// do not overlap; an op whose traits say InPlace (elementwise ops, fusions,
// dynamic_update_slice) may write its result over a same-sized operand that
// dies there and that its Overwrites accepts (so those kernels must tolerate
// outs[0] aliasing such an input); loop-carried values stay in fixed
// slots and each iteration's new values are swapped in without copying.
// Scratch frames are pooled per executable; outputs are allocated with
// go/devmem, or reuse a donated argument (exec.go).
package compiler

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gojax/gojax/go/ir"
	_ "github.com/gojax/gojax/go/kernels/all" // production binaries get every kernel family
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/gojax/gojax/go/verify"
	"github.com/gojax/gojax/go/vhlo"
)

// Options tune a compile.
type Options struct {
	// DumpDir, when set, receives the module text and plan of the compile
	// (the plugin passes GOJAX_DUMP_DIR / gojax.config.dump_dir).
	DumpDir string
	// OnDumpError receives a failure to write to DumpDir; the compile goes
	// on either way, since a dump is a debugging aid. Nil drops the error.
	OnDumpError func(error)
	// NoFold disables constant folding (tests compare folded and unfolded runs).
	NoFold bool
	// NoFuse disables elementwise fusion (tests and benchmarks compare fused
	// and unfused runs; NaN detection compiles unfused so each op is
	// checked on its own).
	NoFuse bool
	// Partition, when set, compiles the whole program as one process of a
	// multi-process run (the conformance runner's interpreter.run_parallel):
	// its collectives meet their peers through Partition.Meet, as the body
	// of a manual computation does. Nil: a single process.
	Partition *kernel.Partition
	// Serial runs each kernel on the goroutine that runs the program,
	// without splitting it over the worker pool: for programs that run
	// side by side with as many others as there are workers (the per-device
	// programs of an SPMD run), which already keep every worker busy.
	Serial bool
}

// Executable is a compiled program; safe to Run from several goroutines at once.
type Executable struct {
	module      *ir.Module // as given (not mutated)
	entry       *ir.Func   // entry function of module
	name        string
	fingerprint string
	replicas    int
	partitions  int
	plan        *plan
	// optimized is the module after the passes, which the plan's steps
	// point into; OptimizedStableHLO prints it.
	optimized *ir.Module
	inBytes   []int // argument sizes
	outBytes  []int // output sizes
	// aliasArg[k] is the argument whose buffer output k may reuse when that
	// argument is donated, or -1.
	aliasArg []int
	// callbacks are the host callables the plan's callback kernels call.
	callbacks *kernel.HostCallbacks
}

// RunResult holds the outputs of one execution.
type RunResult struct {
	// Outputs are device buffers (devmem) in result order; the caller owns them.
	Outputs [][]byte
	// AliasOf[i] is the argument index whose memory Outputs[i] reuses (a donated
	// input), or -1 when the output has memory of its own.
	AliasOf []int
}

// Compile reads, verifies and compiles a portable artifact.
func Compile(code []byte, opts Options) (*Executable, error) {
	m, err := vhlo.Read(code)
	if err != nil {
		return nil, err
	}
	return CompileModule(m, opts)
}

// CompileModule verifies and compiles IR that is already in memory (hand-built
// in tests, or read by vhlo). m is not modified.
func CompileModule(m *ir.Module, opts Options) (*Executable, error) {
	if m == nil {
		return nil, fmt.Errorf("compiler: nil module")
	}
	if err := verify.Module(m); err != nil {
		return nil, err
	}
	entry := m.Main()
	if entry == nil {
		return nil, fmt.Errorf("compiler: module has no entry function (no @main and not exactly one public function)")
	}
	e := &Executable{
		module:      m,
		entry:       entry,
		name:        moduleName(m, entry),
		fingerprint: fingerprint(m),
		replicas:    intAttr(m.Attrs, "mhlo.num_replicas", 1),
		partitions:  intAttr(m.Attrs, "mhlo.num_partitions", 1),
	}
	dumpDir := opts.DumpDir
	dumpFailed := func(err error) {
		if opts.OnDumpError != nil {
			opts.OnDumpError(err)
		}
		dumpDir = "" // one report per compile
	}
	if dumpDir != "" {
		if err := dumpModule(dumpDir, e.name, e.fingerprint, "input", m); err != nil {
			dumpFailed(err)
		}
	}

	passesOn := func(checkEach bool) (*passState, error) {
		work := cloneModule(m)
		ctx := newCompileCtx()
		ctx.part = opts.Partition
		ctx.serial = opts.Serial
		st := &passState{module: work, entry: work.Main(), opts: opts, ctx: ctx}
		return st, runPasses(st, checkEach)
	}
	st, err := passesOn(checkEachPass)
	if err != nil && !checkEachPass {
		// Failures are rare: run again checking after every pass, so that
		// an error caused by a pass that broke the IR names that pass.
		st, err = passesOn(true)
	}
	if err != nil {
		return nil, err
	}
	work := st.module
	if dumpDir != "" {
		if err := dumpModule(dumpDir, e.name, e.fingerprint, "optimized", work); err != nil {
			dumpFailed(err)
		}
	}
	p, err := buildFuncPlan(st.ctx, st.entry)
	if err != nil {
		return nil, err
	}
	e.plan = p
	e.optimized = work
	e.callbacks = st.ctx.callbacks
	for _, t := range entry.Type.Inputs {
		n, err := byteSize(t)
		if err != nil {
			return nil, fmt.Errorf("compiler: argument: %w", err)
		}
		e.inBytes = append(e.inBytes, n)
	}
	for _, t := range entry.Type.Results {
		n, err := byteSize(t)
		if err != nil {
			return nil, fmt.Errorf("compiler: result: %w", err)
		}
		e.outBytes = append(e.outBytes, n)
	}
	if e.aliasArg, err = planDonation(entry, p); err != nil {
		return nil, err
	}
	if dumpDir != "" {
		path := filepath.Join(dumpDir, dumpFileName(e.name+"."+e.fingerprint[:12]+".plan.txt"))
		if err := os.WriteFile(path, []byte(e.PlanText()), 0o644); err != nil {
			dumpFailed(fmt.Errorf("compiler: dump: %w", err))
		}
	}
	return e, nil
}

// Name is the module's name (sym_name, e.g. "jit_f") when it has one, else the
// entry function's name.
func (e *Executable) Name() string { return e.name }

// Module returns the IR the executable was compiled from.
func (e *Executable) Module() *ir.Module { return e.module }

// InputTypes are the entry function's parameter types.
func (e *Executable) InputTypes() []ir.Type { return e.entry.Type.Inputs }

// OutputTypes are the entry function's result types.
func (e *Executable) OutputTypes() []ir.Type { return e.entry.Type.Results }

// Fingerprint identifies the program (its content without source locations).
func (e *Executable) Fingerprint() string { return e.fingerprint }

// NumReplicas and NumPartitions come from the module attributes (1 by default).
func (e *Executable) NumReplicas() int   { return e.replicas }
func (e *Executable) NumPartitions() int { return e.partitions }

// OutputAliases reports, per output, the argument whose buffer the output
// reuses when that argument is donated (-1: none).
func (e *Executable) OutputAliases() []int { return append([]int(nil), e.aliasArg...) }

// PlanStats describes the compiled plan (for tests and diagnostics).
type PlanStats struct {
	Values        int   // SSA values that need storage (internal, before slot sharing)
	Slots         int   // internal buffer slots after liveness-based sharing
	ScratchBytes  int64 // bytes of internal buffers per concurrent run
	Steps         int   // top-level instructions
	KernelSteps   int   // kernel instructions, nested plans included
	ConstantBytes int64
}

// HostCallbacks is the table the runtime fills with JAX's host callables
// before a run; Used reports whether the program calls any.
func (e *Executable) HostCallbacks() *kernel.HostCallbacks { return e.callbacks }

// Stats returns the plan statistics.
func (e *Executable) Stats() PlanStats { return e.plan.stats }

func moduleName(m *ir.Module, entry *ir.Func) string {
	if s, ok := m.Attrs.Str("sym_name"); ok && s != "" {
		return s
	}
	return entry.Name
}

func intAttr(a ir.Attrs, name string, def int) int {
	if v, ok := a.Int(name); ok && v > 0 {
		return int(v)
	}
	return def
}
