// Package fpmode controls how the CPU treats subnormal floats while gojax
// runs kernels. XLA:CPU executes with flush-to-zero and denormals-are-zero
// (FTZ/DAZ) set, so subnormal results become ±0 and subnormal inputs read
// as ±0; gojax does the same by default so both backends give the same
// bits. The mode is per OS thread (the SSE control register), so a run
// locks its goroutine to its thread, sets the mode, and restores the
// caller's mode afterwards: Python and other libraries in the process never
// see it.
package fpmode

import (
	"runtime"
	"sync/atomic"

	"github.com/gojax/gojax/go/config"
)

// flush is whether runs flush subnormals (GOJAX_FLUSH_DENORMALS=false keeps
// IEEE subnormals).
var flush atomic.Bool

func init() { flush.Store(config.Env().FlushDenormals) }

// SetFlushDenormals chooses the mode of later runs.
func SetFlushDenormals(on bool) { flush.Store(on) }

// FlushDenormals reports the mode of later runs.
func FlushDenormals() bool { return flush.Load() }

// Enter locks the calling goroutine to its thread and sets the run mode; it
// returns the control word Exit restores.
func Enter() uint32 {
	runtime.LockOSThread()
	prev := getCSR()
	setCSR(withMode(prev, flush.Load()))
	return prev
}

// Exit restores the control word Enter saved and unlocks the thread.
func Exit(prev uint32) {
	setCSR(prev)
	runtime.UnlockOSThread()
}

// Current is the calling thread's control word; a worker running part of
// a run sets it with Adopt.
func Current() uint32 { return getCSR() }

// Adopt sets the calling (locked) thread's control word, for pool workers
// that run chunks of runs started elsewhere.
func Adopt(csr uint32) { setCSR(csr) }

// Enter a run's mode on a fresh goroutine that works for a run started on
// another one: lock, set csr, and return the word to restore with Exit.
func EnterAs(csr uint32) uint32 {
	runtime.LockOSThread()
	prev := getCSR()
	setCSR(csr)
	return prev
}

// Flushing reports whether the calling thread flushes subnormals now.
func Flushing() bool { return getCSR()&ftzDAZ == ftzDAZ && ftzDAZ != 0 }
