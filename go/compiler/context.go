package compiler

import (
	"sync"

	"github.com/gojax/gojax/go/internal/workers"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// compileCtx is the kernel.Context handed to Lower functions. Kernels keep it
// and call Parallel at run time, so it must stay valid after compilation.
type compileCtx struct {
	pool *workers.Pool
	// callbacks is shared by every plan of one executable, nested ones too.
	callbacks *kernel.HostCallbacks
	// part is set while compiling the body of a manual computation for one
	// SPMD partition (kernel.PartitionContext).
	part *kernel.Partition
	// serial runs Parallel's work on the calling goroutine (Options.Serial).
	serial bool
	// ctxSteps are the ops whose steps take the run's context
	// (kernel.RunContextLowering); shared by nested contexts.
	ctxSteps *contextSteps
}

type contextSteps struct {
	mu sync.Mutex
	m  map[*ir.Op]kernel.ContextStep
}

func newCompileCtx() *compileCtx {
	return &compileCtx{pool: workers.Shared(), callbacks: &kernel.HostCallbacks{}, ctxSteps: &contextSteps{}}
}

// WithRunContext records cs as op's context step (kernel.RunContextLowering).
func (c *compileCtx) WithRunContext(op *ir.Op, cs kernel.ContextStep) kernel.Step {
	c.ctxSteps.mu.Lock()
	if c.ctxSteps.m == nil {
		c.ctxSteps.m = map[*ir.Op]kernel.ContextStep{}
	}
	c.ctxSteps.m[op] = cs
	c.ctxSteps.mu.Unlock()
	return func(ins, outs [][]byte) error { return cs(nil, ins, outs) }
}

// contextStep is op's context step, nil when its step takes no context.
func (c *compileCtx) contextStep(op *ir.Op) kernel.ContextStep {
	if c.ctxSteps == nil {
		return nil
	}
	c.ctxSteps.mu.Lock()
	defer c.ctxSteps.mu.Unlock()
	return c.ctxSteps.m[op]
}

// HostCallbacks is the executable's table of host callables
// (kernel.HostCallbackContext).
func (c *compileCtx) HostCallbacks() *kernel.HostCallbacks { return c.callbacks }

// CompileRegion compiles a kernel op's region (a reduce body, a comparator)
// into a callable plan whose arguments are the block arguments and whose
// results are the terminator's operands.
func (c *compileCtx) CompileRegion(r *ir.Region) (kernel.Callable, error) {
	return buildRegionCallable(c, r)
}

// Partition is the SPMD partition being compiled for, nil outside a manual
// computation.
func (c *compileCtx) Partition() *kernel.Partition { return c.part }

// CompileRegionAs compiles a region for one partition of a manual
// computation; regions nested in it inherit the partition.
func (c *compileCtx) CompileRegionAs(r *ir.Region, p *kernel.Partition) (kernel.Callable, error) {
	child := *c
	child.part = p
	return buildRegionCallable(&child, r)
}

// Parallel runs fn over [0,n) in chunks on the shared worker pool.
func (c *compileCtx) Parallel(n, grain int, fn func(lo, hi int)) {
	if c.serial {
		fn(0, n)
		return
	}
	c.pool.Parallel(n, grain, fn)
}
