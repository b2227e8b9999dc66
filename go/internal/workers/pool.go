package workers

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gojax/gojax/go/internal/fpmode"
)

// Pool runs the chunks of parallel kernel steps on worker goroutines shared
// by every executable. The caller of Parallel runs a chunk itself and, while
// it waits, runs queued chunks of any call, so nested Parallel calls from
// inside a chunk cannot deadlock.
//
// Workers are locked to their threads (they carry the floating-point mode of
// the run, see fpmode). Waking a locked goroutine parked on a channel takes
// two or three thread hand-offs through Go's scheduler, so on Linux an idle
// worker sleeps in a futex on its own thread instead (park_linux.go), which
// one wake-up reaches. Consecutive kernel steps of a run follow each other
// within microseconds, so a worker that ran out of chunks, and a caller
// waiting for the last chunk, poll for a while (Spin, see spin.go for what
// it measured) before they park.
type Pool struct {
	mu    sync.Mutex
	queue []task
	head  int

	queued   atomic.Int32 // len(queue) - head, readable without mu
	sleepers atomic.Int32 // callers (and, off Linux, workers) parked or about to park on wake
	wsleep   sleeper      // idle workers where they sleep apart (park_linux.go)
	started  atomic.Int32 // worker goroutines running
	wake     chan struct{}
	startMu  sync.Mutex
}

type task struct {
	fn     func(lo, hi int)
	lo, hi int
	job    *job
	csr    uint32 // the floating-point mode of the run the chunk belongs to
}

// job tracks the chunks of one Parallel call. Jobs are pooled (a parallel
// kernel step then makes no allocation): the last chunk to finish signals
// done, and nothing touches the job after that signal.
type job struct {
	pending atomic.Int32
	mu      sync.Mutex
	panicV  any
	done    chan struct{} // buffered: the last finisher never blocks
}

var jobs = sync.Pool{New: func() any { return &job{done: make(chan struct{}, 1)} }}

func (j *job) finish(p any) {
	if p != nil {
		j.mu.Lock()
		if j.panicV == nil {
			j.panicV = p
		}
		j.mu.Unlock()
	}
	if j.pending.Add(-1) == 0 {
		j.done <- struct{}{}
	}
}

// maxWake bounds the wake-up tokens in flight; a token nobody needed only
// costs one extra spin of the worker that takes it.
const maxWake = 1024

var (
	sharedOnce sync.Once
	shared     *Pool
)

// Shared is the process-wide pool.
func Shared() *Pool {
	sharedOnce.Do(func() { shared = NewPool() })
	return shared
}

// NewPool makes an empty pool; workers start on first use.
func NewPool() *Pool { return &Pool{wake: make(chan struct{}, maxWake)} }

// Started is the number of worker goroutines running.
func (p *Pool) Started() int { return int(p.started.Load()) }

// workers returns how many goroutines may run chunks now (the caller
// included), starting more if the worker count grew.
func (p *Pool) workers() int {
	n := Count()
	if int(p.started.Load()) >= n-1 {
		return n
	}
	p.startMu.Lock()
	for int(p.started.Load()) < n-1 {
		p.started.Add(1)
		go p.loop()
	}
	p.startMu.Unlock()
	return n
}

func (p *Pool) push(ts []task) {
	p.mu.Lock()
	p.queue = append(p.queue, ts...)
	p.queued.Add(int32(len(ts)))
	p.mu.Unlock()
	// Sequentially consistent atomics: either this load sees a sleeper, or
	// that sleeper's re-check of queued (after counting itself) sees the
	// tasks.
	p.wsleep.wake(len(ts))
	if s := int(p.sleepers.Load()); s > 0 {
		for range min(s, len(ts)) {
			select {
			case p.wake <- struct{}{}:
			default:
			}
		}
	}
}

func (p *Pool) pop() (task, bool) {
	if p.queued.Load() == 0 {
		return task{}, false
	}
	p.mu.Lock()
	if p.head == len(p.queue) {
		p.mu.Unlock()
		return task{}, false
	}
	t := p.queue[p.head]
	p.queue[p.head] = task{}
	p.head++
	if p.head == len(p.queue) {
		p.queue, p.head = p.queue[:0], 0
	}
	p.queued.Add(-1)
	p.mu.Unlock()
	return t, true
}

// park blocks until a wake-up token arrives or, when done is not nil, the
// job signals completion (reported by the result).
func (p *Pool) park(done chan struct{}) (finished bool) {
	p.sleepers.Add(1)
	defer p.sleepers.Add(-1)
	if p.queued.Load() > 0 {
		return false
	}
	select {
	case <-p.wake:
		return false
	case <-done: // nil for workers (off Linux): never ready
		return true
	}
}

func (p *Pool) loop() {
	// A worker owns its thread, so it can keep the floating-point mode of
	// the last chunk it ran and change it only when a chunk differs.
	runtime.LockOSThread()
	cur := fpmode.Current()
	for {
		t, ok := p.pop()
		if !ok {
			if spinUntil(func() bool { return p.queued.Load() > 0 }) {
				continue
			}
			p.parkWorker()
			continue
		}
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

// Parallel runs fn over [0,n) in chunks of at least grain elements, at most
// one chunk per worker, the caller running the first. Chunk boundaries
// depend only on n, grain and the worker count.
func (p *Pool) Parallel(n, grain int, fn func(lo, hi int)) {
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
	j.pending.Store(int32(chunks))
	j.panicV = nil
	csr := fpmode.Current()
	var small [8]task
	ts := small[:0]
	for lo := size; lo < n; lo += size {
		ts = append(ts, task{fn: fn, lo: lo, hi: min(lo+size, n), job: j, csr: csr})
	}
	p.push(ts)
	task{fn: fn, lo: 0, hi: min(size, n), job: j, csr: csr}.run()
	p.wait(j, csr)
	pv := j.panicV
	j.panicV = nil
	jobs.Put(j)
	if err, ok := pv.(error); ok {
		// Wrapped, not formatted, so a typed error (a failed scratch
		// allocation) still reaches whoever recovers it.
		panic(fmt.Errorf("parallel kernel chunk panicked: %w", err))
	}
	if pv != nil {
		panic(fmt.Sprintf("parallel kernel chunk panicked: %v", pv))
	}
}

// wait returns once every chunk of j finished, running queued chunks (of
// any call) meanwhile.
func (p *Pool) wait(j *job, csr uint32) {
	for {
		if j.pending.Load() == 0 {
			<-j.done // the last finisher's signal is on its way or there
			return
		}
		if t, ok := p.pop(); ok {
			t.runForeign(csr)
			continue
		}
		if spinUntil(func() bool { return j.pending.Load() == 0 || p.queued.Load() > 0 }) {
			continue
		}
		if p.park(j.done) {
			return
		}
	}
}
