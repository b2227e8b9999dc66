package pyapi

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/gojax/gojax/go/capi"
	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/config"
	"github.com/gojax/gojax/go/nancheck"
	"github.com/gojax/gojax/go/profile"
)

var (
	obsMu     sync.Mutex
	profiling *profile.Profiler
	nans      bool
)

func init() {
	if config.Env().DebugNans {
		SetDebugNans(true)
	}
}

// ProfileStart begins recording per-step timings of every gojax execution.
func ProfileStart() error {
	obsMu.Lock()
	defer obsMu.Unlock()
	if profiling != nil {
		return fmt.Errorf("gojax: a profile is already being recorded")
	}
	profiling = profile.New()
	compiler.AddObserver(profiling)
	return nil
}

// ProfileStop ends the recording and returns it as JSON: {"ops": [...],
// "summary": text, "trace": Chrome trace-event object}.
func ProfileStop() (string, error) {
	obsMu.Lock()
	p := profiling
	profiling = nil
	if p != nil {
		compiler.RemoveObserver(p)
	}
	obsMu.Unlock()
	if p == nil {
		return "", fmt.Errorf("gojax: no profile is being recorded")
	}
	trace, err := p.ChromeTrace()
	if err != nil {
		return "", err
	}
	out, err := json.Marshal(map[string]any{
		"ops":     p.Ops(),
		"summary": p.Summary(),
		"trace":   json.RawMessage(trace),
	})
	return string(out), err
}

// SetDebugNans turns NaN detection on or off: while on, an execution fails
// at the first step that produces a NaN from NaN-free inputs, naming the op
// and its source line (GOJAX_DEBUG_NANS=true turns it on at load). Programs
// compiled while it is on are not fused, so each op is checked on its own;
// in programs compiled before, a fused chain is checked as one step.
func SetDebugNans(on bool) {
	obsMu.Lock()
	defer obsMu.Unlock()
	if on == nans {
		return
	}
	nans = on
	capi.SetCompileUnfused(on)
	if on {
		compiler.AddObserver(nancheck.Checker{})
	} else {
		compiler.RemoveObserver(nancheck.Checker{})
	}
}

// DebugNans reports whether NaN detection is on.
func DebugNans() bool {
	obsMu.Lock()
	defer obsMu.Unlock()
	return nans
}
