package engine

import (
	"sync/atomic"

	"github.com/gojax/gojax/go/config"
)

// asyncDispatch chooses how Execute runs a single-device program whose
// arguments are ready. Off (the default), it runs on the calling thread and
// Execute returns with the results ready; jaxlib releases the GIL around
// Execute, so other Python threads go on meanwhile. On, it runs on a
// goroutine of its own and Execute returns at once.
//
// Synchronous is the default because it measured faster on every
// compute-bound workload: with Execute returning at once, the caller's
// thread parks in C while its P stays in syscall state, and Go's sysmon then
// wakes every 20 us for the whole run, preempting the kernel workers (a
// 1024² f32 matmul: ~50 voluntary and ~45 involuntary context switches per
// call, against ~6 and ~3 run on the calling thread). Quiet machine,
// python -m benchmarks, gojax/XLA time: matmul f32 1024² 1.53 -> 1.19,
// elementwise 1M 2.56 -> 1.89, sum axis 0 2.58 -> 1.86, axis 1 1.32 -> 1.05.
// What is lost is overlap of Python work with a run on the same thread, which
// on a CPU backend competes with the kernels for the same cores anyway.
// Tiny programs (inlinePolicy) always run on the calling thread; programs on
// several devices, and calls whose arguments are still being computed, run
// asynchronously either way. GOJAX_ASYNC_DISPATCH=true turns it on at load.
var asyncDispatch atomic.Bool

func init() { asyncDispatch.Store(config.Env().AsyncDispatch) }

// SetAsyncDispatch chooses asynchronous (true) or calling-thread (false)
// execution for later Execute calls.
func SetAsyncDispatch(on bool) { asyncDispatch.Store(on) }

// AsyncDispatch reports the current mode.
func AsyncDispatch() bool { return asyncDispatch.Load() }

// runsOnCaller reports whether a single-device call of e may run on the
// calling thread.
func (e *Executable) runsOnCaller() bool { return e.inline || !asyncDispatch.Load() }
