package engine

import (
	"sync/atomic"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/config"
	"github.com/gojax/gojax/go/ir"
)

// inlineBytes bounds the memory a program may touch (arguments, results and
// internal buffers) to run on the thread that calls Execute instead of on a
// goroutine of its own (default 256 KiB, GOJAX_INLINE_BYTES at load); 0
// turns inline execution off.
var inlineBytes atomic.Int64

func init() { inlineBytes.Store(config.Env().InlineBytes) }

// SetInlineBytes sets the bound for later executions (0: off).
func SetInlineBytes(n int64) { inlineBytes.Store(max(0, n)) }

// InlineBytes reports the bound.
func InlineBytes() int64 { return inlineBytes.Load() }

// inlineSteps bounds the kernel steps of an inline program: the byte bound
// says little about loops, so programs with a while loop never run inline.
const inlineSteps = 64

// inlinePolicy decides whether a single-device execution of prog runs
// synchronously even in asynchronous-dispatch mode (dispatch.go): for a tiny
// program, starting a goroutine and waking the caller's thread costs more
// than the program.
func inlinePolicy(prog Program, in, out []ir.Type) bool {
	limit := inlineBytes.Load()
	if limit <= 0 {
		return false
	}
	sp, ok := prog.(interface{ Stats() compiler.PlanStats })
	if !ok {
		return false
	}
	st := sp.Stats()
	if st.KernelSteps > inlineSteps {
		return false
	}
	total := st.ScratchBytes
	for _, t := range in {
		total += TypeBytes(t)
	}
	for _, t := range out {
		total += TypeBytes(t)
	}
	if total > limit {
		return false
	}
	if m := prog.Module(); m != nil {
		for _, f := range m.Funcs {
			if f.Body != nil && !f.Body.Walk(func(op *ir.Op) bool { return op.Name != "stablehlo.while" }) {
				return false
			}
		}
	}
	return true
}
