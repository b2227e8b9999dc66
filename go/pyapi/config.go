package pyapi

import (
	"fmt"
	"runtime"
)

// SetWorkerThreads limits how many threads run gojax's Go code at once
// (runtime.GOMAXPROCS). n <= 0 restores Go's default, the CPUs available to
// the process.
func SetWorkerThreads(n int) error {
	if n > 1<<16 {
		return fmt.Errorf("gojax: worker threads %d out of range", n)
	}
	if n <= 0 {
		// Back to Go's own default, which follows cgroup CPU limits.
		runtime.SetDefaultGOMAXPROCS()
		return nil
	}
	runtime.GOMAXPROCS(n)
	return nil
}

// WorkerThreads returns the current worker thread limit.
func WorkerThreads() int { return runtime.GOMAXPROCS(0) }
