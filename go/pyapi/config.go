package pyapi

import (
	"fmt"
	"time"

	"github.com/gojax/gojax/go/capi"
	"github.com/gojax/gojax/go/config"
	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/engine"
	"github.com/gojax/gojax/go/internal/fpmode"
	"github.com/gojax/gojax/go/internal/workers"
)

// ConfigError is the error of the GOJAX_* environment at load ("" when every
// variable was valid); importing gojax raises it.
func ConfigError() string {
	if err := config.EnvErr(); err != nil {
		return err.Error()
	}
	return ""
}

// applyField makes a parsed setting take effect; fields missing here are
// read-only (fixed when the library loads or JAX creates its client).
var applyField = map[string]func(st *config.Settings){
	"async_dispatch":     func(st *config.Settings) { SetAsyncDispatch(st.AsyncDispatch) },
	"inline_bytes":       func(st *config.Settings) { engine.SetInlineBytes(st.InlineBytes) },
	"buffer_cache_bytes": func(st *config.Settings) { SetBufferCacheBytes(st.BufferCacheBytes) },
	"memory_limit":       func(st *config.Settings) { devmem.SetLimit(st.MemoryLimit) },
	"dump_dir":           func(st *config.Settings) { capi.SetDumpDir(st.DumpDir) },
	"debug_nans":         func(st *config.Settings) { SetDebugNans(st.DebugNans) },
	"flush_denormals":    func(st *config.Settings) { SetFlushDenormals(st.FlushDenormals) },
	"spin_us":            func(st *config.Settings) { workers.SetSpin(time.Duration(st.SpinMicros) * time.Microsecond) },
}

// SetConfig sets a gojax.config field from its text, parsed by the same
// parser as its GOJAX_* variable (package config), so both accept the same
// spellings; "" restores the default. Errors name the field and the
// accepted values.
func SetConfig(field, value string) error {
	v, ok := config.ByField(field)
	if !ok {
		return fmt.Errorf("gojax.config has no setting %q", field)
	}
	apply, ok := applyField[field]
	if !ok {
		return fmt.Errorf("gojax.config.%s is read-only: set %s before gojax loads", field, v.Env)
	}
	st := config.Defaults()
	if err := v.Parse(&st, "gojax.config."+field, value); err != nil {
		return err
	}
	apply(&st)
	return nil
}

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

// SetDumpDir sets the directory that receives every later compile's module
// text and plan ("" turns dumping off). Compiles go on when it cannot be
// written; the failure is reported once on stderr.
func SetDumpDir(dir string) { capi.SetDumpDir(dir) }

// DumpDir returns the dump directory ("" when off).
func DumpDir() string { return capi.DumpDir() }

// DefaultNumDevices is the device count a new gojax client gets
// (GOJAX_NUM_DEVICES at load, else 1).
func DefaultNumDevices() int { return engine.DefaultNumDevices() }

// Vector is the GOJAX_VECTOR limit at load: auto, avx512, avx2 or none.
func Vector() string { return config.Env().Vector }

// CollectiveTimeout is how many seconds a process of a multi-process job
// waits on another (GOJAX_COLLECTIVE_TIMEOUT, read when the client is
// created).
func CollectiveTimeout() int64 { return config.Env().CollectiveTimeout }

// SPMDPartition says whether sharded programs run partitioned, one program
// per device on its shards (GOJAX_SPMD_PARTITION, read when the library
// loads).
func SPMDPartition() bool { return config.Env().SPMDPartition }

// DataplaneHost is where the job's other processes reach this one
// (GOJAX_DATAPLANE_HOST; "auto" picks an address).
func DataplaneHost() string { return config.Env().DataplaneHost }

// DataplanePort is the data-plane port (GOJAX_DATAPLANE_PORT; 0: any).
func DataplanePort() int { return config.Env().DataplanePort }

// CrashOutput is the file that also receives fatal error reports ("" when
// off; GOJAX_CRASH_OUTPUT, read-only).
func CrashOutput() string { return config.Env().CrashOutput }

// SetFlushDenormals chooses whether programs run with subnormal floats
// flushed to zero, as XLA:CPU runs them (the default), or keep IEEE
// subnormals (GOJAX_FLUSH_DENORMALS=false at load). Applies from the next
// run.
func SetFlushDenormals(on bool) { fpmode.SetFlushDenormals(on) }

// FlushDenormals reports the current mode.
func FlushDenormals() bool { return fpmode.FlushDenormals() }

// SetBufferCacheBytes sets the budget of the device memory cache, which keeps
// freed large buffers for reuse by later executions (0 disables it, < 0
// restores the default, min(1 GiB, RAM/8)); what exceeds it is released now.
func SetBufferCacheBytes(n int64) { devmem.SetCacheBudget(n) }

// BufferCacheBytes returns the cache budget (GOJAX_BUFFER_CACHE_BYTES at load).
func BufferCacheBytes() int64 { return devmem.CacheBudget() }

// MemoryLimit returns the memory limit in bytes (GOJAX_MEMORY_LIMIT at
// load), -1 when there is none.
func MemoryLimit() int64 { return devmem.Limit() }

// TrimBufferCache releases every cached block to the OS and returns the bytes
// released.
func TrimBufferCache() int64 { return devmem.TrimCache() }

// SetAsyncDispatch chooses whether Execute returns before a single-device
// program has run (true) or runs it on the calling thread (false, the
// default; GOJAX_ASYNC_DISPATCH=true at load turns it on). See go/engine
// dispatch.go for why and what it measured.
func SetAsyncDispatch(on bool) { engine.SetAsyncDispatch(on) }

// AsyncDispatch reports the current mode.
func AsyncDispatch() bool { return engine.AsyncDispatch() }

// InlineBytes is the memory bound under which a program always runs on the
// calling thread (GOJAX_INLINE_BYTES at load; 0: never).
func InlineBytes() int64 { return engine.InlineBytes() }

// SpinMicros is how long idle workers poll before parking, in microseconds
// (GOJAX_SPIN_US at load).
func SpinMicros() int64 { return int64(workers.Spin() / time.Microsecond) }
