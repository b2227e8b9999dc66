package capi

import (
	"fmt"
	"os"
	goruntime "runtime"
	"sync"
	"sync/atomic"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/config"
	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/internal/workers"
)

// The plugin's compile settings: every compile through the PJRT API takes
// a copy (compileOptions). They start from the environment at load and
// gojax.config changes them (go/pyapi).
var (
	dumpDir atomic.Pointer[string]
	unfused atomic.Bool
	// dumpWarned holds the dump directories already reported as unwritable.
	dumpWarned sync.Map
)

func init() {
	d := config.Env().DumpDir
	dumpDir.Store(&d)
}

// SetDumpDir sets the directory receiving the module text and plan of every
// later compile ("" turns dumping off). The directory is created at the
// first compile; when it cannot be written, compiles go on without dumps and
// the failure is reported once per directory on stderr.
func SetDumpDir(dir string) { dumpDir.Store(&dir) }

// DumpDir returns the dump directory ("" when off).
func DumpDir() string { return *dumpDir.Load() }

// SetCompileUnfused makes later compiles skip fusion, so that a step
// observer sees each op on its own (NaN detection names the op that made a
// NaN).
func SetCompileUnfused(on bool) { unfused.Store(on) }

// compileOptions are the compiler options of a compile started now.
func compileOptions() compiler.Options {
	dir := DumpDir()
	return compiler.Options{
		DumpDir: dir,
		NoFuse:  unfused.Load(),
		OnDumpError: func(err error) {
			if _, seen := dumpWarned.LoadOrStore(dir, true); !seen {
				fmt.Fprintf(os.Stderr, "gojax: warning: cannot write module dumps to %s (%v); compiles go on without dumps\n", dir, err)
			}
		},
	}
}

var setupOnce sync.Once

// setupProcess prepares the process for PJRT calls, once, when the plugin
// is initialised or a client created (not when the package loads, so Go
// programs and tests that import capi keep their GOMAXPROCS). Kernels split
// their work for the CPUs available (GOMAXPROCS as Go computed it, unless
// the worker count was set before) and the process keeps one spare P for
// the threads that enter Go through PJRT calls (see package workers for why
// and what it bought). The Go heap gets its pacing and soft memory limit
// (devmem.PaceGoHeap).
func setupProcess() {
	setupOnce.Do(func() {
		devmem.PaceGoHeap()
		if !workers.Configured() {
			workers.Set(goruntime.GOMAXPROCS(0))
		}
	})
}
