// Package compiler turns a StableHLO portable artifact into an executable plan.
package compiler

import (
	"errors"

	"github.com/gojax/gojax/go/ir"
)

// Options tune a compile.
type Options struct {
	// DumpDir, when set, receives the module text of every compile (GOJAX_DUMP_DIR).
	DumpDir string
}

// Executable is a compiled program; safe to Run from several goroutines at once.
type Executable struct {
	module *ir.Module
}

// RunResult holds the outputs of one execution.
type RunResult struct {
	// Outputs are device buffers (devmem) in result order; the caller owns them.
	Outputs [][]byte
	// AliasOf[i] is the argument index whose memory Outputs[i] reuses (a donated
	// input), or -1 when the output has memory of its own.
	AliasOf []int
}

// Compile reads, verifies and compiles a portable artifact.
func Compile(code []byte, opts Options) (*Executable, error) {
	return nil, errors.New("compiler: not implemented yet")
}

// Name is the module's entry function name (or module name).
func (e *Executable) Name() string { return "main" }

// Module returns the IR the executable was compiled from.
func (e *Executable) Module() *ir.Module { return e.module }

// InputTypes are the entry function's parameter types.
func (e *Executable) InputTypes() []ir.Type { return nil }

// OutputTypes are the entry function's result types.
func (e *Executable) OutputTypes() []ir.Type { return nil }

// Fingerprint identifies the program (its content without source locations).
func (e *Executable) Fingerprint() string { return "" }

// NumReplicas and NumPartitions come from the module attributes (1 by default).
func (e *Executable) NumReplicas() int   { return 1 }
func (e *Executable) NumPartitions() int { return 1 }

// Run executes the plan. args are device buffers matching InputTypes;
// donatable[i] says argument i may be reused for an output.
func (e *Executable) Run(args [][]byte, donatable []bool) (*RunResult, error) {
	return nil, errors.New("compiler: not implemented yet")
}
