package pyapi

import (
	"fmt"
	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/internal/fpmode"
	"github.com/gojax/gojax/go/internal/workers"
	"os"

	gjruntime "github.com/gojax/gojax/go/runtime"
)

// envDumpDir is read by every compile (go/capi, go/compiler).
const envDumpDir = "GOJAX_DUMP_DIR"

// SetWorkerThreads limits how many threads run gojax's Go code at once
// (runtime.GOMAXPROCS). n <= 0 restores Go's default, the CPUs available to
// the process.
func SetWorkerThreads(n int) error {
	if n > 1<<16 {
		return fmt.Errorf("gojax: worker threads %d out of range", n)
	}
	// n <= 0: back to the CPUs available (Go's default, which follows
	// cgroup CPU limits). The process keeps one spare P (package workers).
	workers.Set(n)
	return nil
}

// WorkerThreads returns the current worker thread limit.
func WorkerThreads() int { return workers.Count() }

// SetDumpDir sets the directory that receives every compiled module's text
// ("" turns dumping off). It sets Go's GOJAX_DUMP_DIR: Go keeps its own copy
// of the environment, so changing os.environ in Python after import has no
// effect on it.
func SetDumpDir(dir string) error {
	if dir == "" {
		return os.Unsetenv(envDumpDir)
	}
	return os.Setenv(envDumpDir, dir)
}

// DumpDir returns the dump directory ("" when off).
func DumpDir() string { return os.Getenv(envDumpDir) }

// DefaultNumDevices is the device count a new gojax client gets
// (GOJAX_NUM_DEVICES as Go sees it, else 1).
func DefaultNumDevices() (int, error) { return gjruntime.DefaultNumDevices() }

// SetFlushDenormals chooses whether programs run with subnormal floats
// flushed to zero, as XLA:CPU runs them (the default), or keep IEEE
// subnormals (GOJAX_FLUSH_DENORMALS=0 at load). Applies from the next run.
func SetFlushDenormals(on bool) { fpmode.SetFlushDenormals(on) }

// FlushDenormals reports the current mode.
func FlushDenormals() bool { return fpmode.FlushDenormals() }

// SetBufferCacheBytes sets the budget of the device memory cache, which keeps
// freed large buffers for reuse by later executions (0 disables it, < 0
// restores the default, min(1 GiB, RAM/8)); what exceeds it is released now.
func SetBufferCacheBytes(n int64) { devmem.SetCacheBudget(n) }

// BufferCacheBytes returns the cache budget (GOJAX_BUFFER_CACHE_BYTES at load).
func BufferCacheBytes() int64 { return devmem.CacheBudget() }

// TrimBufferCache releases every cached block to the OS and returns the bytes
// released.
func TrimBufferCache() int64 { return devmem.TrimCache() }

// SetAsyncDispatch chooses whether Execute returns before a single-device
// program has run (true) or runs it on the calling thread (false, the
// default; GOJAX_ASYNC_DISPATCH=1 at load turns it on). See go/runtime
// dispatch.go for why and what it measured.
func SetAsyncDispatch(on bool) { gjruntime.SetAsyncDispatch(on) }

// AsyncDispatch reports the current mode.
func AsyncDispatch() bool { return gjruntime.AsyncDispatch() }
