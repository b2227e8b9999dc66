package pyapi

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/gojax/gojax/go/config"
)

// A fatal error in gojax's Go code ends the process, and the runtime writes
// its report to stderr, which the caller may be capturing (pytest does, and
// the report is lost with the process). GOJAX_CRASH_OUTPUT names a file that
// gets a copy.
func init() {
	if path := config.Env().CrashOutput; path != "" {
		if err := setCrashOutput(path); err != nil {
			fmt.Fprintf(os.Stderr, "gojax: GOJAX_CRASH_OUTPUT=%s: %v (crash reports go to stderr only)\n", path, err)
		}
	}
}

// setCrashOutput appends every later fatal error report to the file at path.
func setCrashOutput(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close() // the runtime keeps its own duplicate
	return debug.SetCrashOutput(f, debug.CrashOptions{})
}
