// Package kernel is the contract between the compiler and the op kernels: a
// kernel family registers, per StableHLO op name, a Lower function that
// resolves shapes and attributes once at compile time and returns a Step that
// only moves data at run time, and with it the op's traits (traits.go): the
// registry is the one place that says which ops are elementwise, run in
// place or fuse, and with which loops.
package kernel

import (
	"fmt"
	"sort"
	"sync"

	"github.com/gojax/gojax/go/ir"
)

// Step runs one op. ins and outs are dense row-major buffers in gojax storage
// layout (see ir.ElemType.ByteSize), sized exactly for the op's operand and
// result types; outs are allocated by the planner and may be uninitialized.
// A Step must not keep ins or outs after it returns and must not allocate per
// element. The planner may give an elementwise op or dynamic_update_slice an
// output that is the same memory as a same-sized operand whose last use is
// that op (in-place update of loop carries and donated inputs), so those
// kernels must be correct when outs[0] aliases such an input.
type Step func(ins, outs [][]byte) error

// Callable runs a compiled region (a reduce body, a sort comparator, …).
// Arguments and results follow the region's block arguments and its
// terminator's operands.
type Callable interface {
	Call(ins, outs [][]byte) error
}

// Context is what the compiler offers a Lower function.
type Context interface {
	// CompileRegion compiles one of the op's regions into a callable plan.
	CompileRegion(r *ir.Region) (Callable, error)
	// Parallel splits [0,n) into chunks run on the intra-op worker pool and
	// waits for them; grain is the minimum chunk size worth a goroutine.
	Parallel(n, grain int, fn func(lo, hi int))
}

// Lower compiles one op into a Step.
type Lower func(ctx Context, op *ir.Op) (Step, error)

var (
	mu          sync.RWMutex
	ops         = map[string]Lower{}
	customCalls = map[string]Lower{}
	// customCallFallback resolves targets registered while the process
	// runs (XLA FFI handlers, go/kernels/ffi); registered kernels win.
	customCallFallback func(target string) (Lower, bool)
)

// Register installs the lowering of a StableHLO op ("stablehlo.add"). It
// panics on a duplicate, which is a programming error found at init.
func Register(name string, l Lower) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := ops[name]; dup {
		panic(fmt.Sprintf("kernel: %s registered twice", name))
	}
	ops[name] = l
}

// RegisterCustomCall installs the lowering of a stablehlo.custom_call target
// ("lapack_spotrf_ffi").
func RegisterCustomCall(target string, l Lower) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := customCalls[target]; dup {
		panic(fmt.Sprintf("kernel: custom call %s registered twice", target))
	}
	customCalls[target] = l
}

// Lookup finds the lowering of an op.
func Lookup(name string) (Lower, bool) {
	mu.RLock()
	defer mu.RUnlock()
	l, ok := ops[name]
	return l, ok
}

// SetCustomCallFallback installs the resolver LookupCustomCall asks for
// targets without a registered kernel. It panics when one is already set.
func SetCustomCallFallback(f func(target string) (Lower, bool)) {
	mu.Lock()
	defer mu.Unlock()
	if customCallFallback != nil {
		panic("kernel: custom call fallback set twice")
	}
	customCallFallback = f
}

// LookupCustomCall finds the lowering of a custom-call target: its
// registered kernel, else what the fallback resolves.
func LookupCustomCall(target string) (Lower, bool) {
	mu.RLock()
	l, ok := customCalls[target]
	fallback := customCallFallback
	mu.RUnlock()
	if ok || fallback == nil {
		return l, ok
	}
	return fallback(target)
}

// Ops lists the registered op names, sorted.
func Ops() []string { return sortedKeys(ops) }

// CustomCalls lists the registered custom-call targets, sorted.
func CustomCalls() []string { return sortedKeys(customCalls) }

func sortedKeys(m map[string]Lower) []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
