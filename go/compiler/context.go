package compiler

import (
	"fmt"
	"github.com/gojax/gojax/go/internal/fpmode"
	"github.com/gojax/gojax/go/internal/workers"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// compileCtx is the kernel.Context handed to Lower functions. Kernels keep it
// and call Parallel at run time, so it must stay valid after compilation.
type compileCtx struct {
	pool *workerPool
	// callbacks is shared by every plan of one executable, nested ones too.
	callbacks *kernel.HostCallbacks
	// part is set while compiling the body of a manual computation for one
	// SPMD partition (kernel.PartitionContext).
	part *kernel.Partition
}

func newCompileCtx() *compileCtx {
	return &compileCtx{pool: sharedPool(), callbacks: &kernel.HostCallbacks{}}
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
	c.pool.parallel(n, grain, fn)
}

// workerPool is a set of goroutines shared by every executable. The caller
// of parallel runs chunks too and, while waiting, drains the queue, so
// nested Parallel calls from inside a chunk cannot deadlock. Work is split
// for the current GOMAXPROCS (gojax.set_worker_threads changes it); workers
// are started as it grows.
type workerPool struct {
	mu      sync.Mutex
	started atomic.Int32 // worker goroutines running
	tasks   chan task
}

type task struct {
	fn     func(lo, hi int)
	lo, hi int
	job    *job
	csr    uint32 // the floating-point mode of the run the chunk belongs to
}

// job tracks the chunks of one parallel call. Jobs are pooled (a parallel
// kernel step then makes no allocation): the last chunk to finish signals
// done, and nothing touches the job after that signal.
type job struct {
	mu      sync.Mutex
	pending int
	done    chan struct{} // buffered: the last finisher never blocks
	panicV  any
}

var jobs = sync.Pool{New: func() any { return &job{done: make(chan struct{}, 1)} }}

func (j *job) finish(p any) {
	j.mu.Lock()
	if p != nil && j.panicV == nil {
		j.panicV = p
	}
	j.pending--
	last := j.pending == 0
	j.mu.Unlock()
	if last {
		j.done <- struct{}{}
	}
}

var (
	poolOnce sync.Once
	pool     *workerPool
)

func sharedPool() *workerPool {
	poolOnce.Do(func() { pool = &workerPool{tasks: make(chan task, 1024)} })
	return pool
}

// workers returns how many goroutines may run chunks now (the caller
// included), starting more if GOMAXPROCS grew.
func (p *workerPool) workers() int {
	n := workers.Count()
	if int(p.started.Load()) >= n-1 {
		return n
	}
	p.mu.Lock()
	for int(p.started.Load()) < n-1 {
		p.started.Add(1)
		go p.loop()
	}
	p.mu.Unlock()
	return n
}

func (p *workerPool) loop() {
	// A worker owns its thread, so it can keep the floating-point mode of
	// the last chunk it ran and change it only when a chunk differs.
	runtime.LockOSThread()
	cur := fpmode.Current()
	for t := range p.tasks {
		if t.csr != cur {
			fpmode.Adopt(t.csr)
			cur = t.csr
		}
		t.run()
	}
}

// runForeign runs a chunk of another parallel call on the calling
// goroutine in that chunk's floating-point mode.
func (t task) runForeign(mine uint32) {
	if t.csr == mine {
		t.run()
		return
	}
	prev := fpmode.EnterAs(t.csr)
	defer fpmode.Exit(prev)
	t.run()
}

func (t task) run() {
	defer func() { t.job.finish(recover()) }()
	t.fn(t.lo, t.hi)
}

func (p *workerPool) parallel(n, grain int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if grain < 1 {
		grain = 1
	}
	chunks := (n + grain - 1) / grain
	if chunks <= 1 {
		fn(0, n)
		return
	}
	chunks = min(chunks, p.workers())
	if chunks <= 1 {
		fn(0, n)
		return
	}
	size := (n + chunks - 1) / chunks
	chunks = (n + size - 1) / size
	j := jobs.Get().(*job)
	j.pending, j.panicV = chunks, nil
	csr := fpmode.Current()
	for lo := size; lo < n; lo += size {
		t := task{fn: fn, lo: lo, hi: min(lo+size, n), job: j, csr: csr}
		select {
		case p.tasks <- t:
		default:
			t.run() // queue full: do it here rather than block
		}
	}
	task{fn: fn, lo: 0, hi: min(size, n), job: j, csr: csr}.run()
	for {
		select {
		case <-j.done:
			pv := j.panicV
			j.panicV = nil
			jobs.Put(j)
			if pv != nil {
				panic(fmt.Sprintf("parallel kernel chunk panicked: %v", pv))
			}
			return
		case t := <-p.tasks:
			t.runForeign(csr)
		}
	}
}
