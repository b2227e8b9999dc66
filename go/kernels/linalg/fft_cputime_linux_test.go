package linalg

import (
	"syscall"
	"time"
)

// fftThreadCPU is the calling thread's CPU time, for benchmarks on a shared
// machine where wall time is noise.
func fftThreadCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
