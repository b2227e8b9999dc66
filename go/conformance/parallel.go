package conformance

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/kernels/collective"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// interpreter.run_parallel (stablehlo/reference/InterpreterOps.cpp) runs a
// grid of num_replicas x num_partitions processes, process (r, p) calling
// the function programs[r][p]; the op's operands are dealt out to the
// processes in order (each takes as many as its function has parameters)
// and its results are the processes' results, concatenated in the same
// order. The runner does the same with gojax: each process's program is
// compiled for its place in the grid (compiler.Options.Partition), all run
// concurrently and their collectives meet through one kernel.Rendezvous,
// with ids meaning replicas or partitions as the StableHLO spec says
// (collective.RegisterGrid).

// resolve turns a spec's artifacts into paths.
func (m *Manifest) resolve(p *ParallelSpec) *ParallelSpec {
	out := &ParallelSpec{Grid: p.Grid, Inputs: filepath.Join(m.dir, p.Inputs), Programs: map[string]string{}}
	for name, a := range p.Programs {
		out.Programs[name] = filepath.Join(m.dir, a)
	}
	return out
}

func compileFile(path string, opts compiler.Options) (*compiler.Executable, error) {
	code, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return compiler.Compile(code, opts)
}

// runParallel runs a run_parallel test: inputs, the grid of programs, then
// the checks (checkPath) on the processes' results.
func runParallel(checkPath string, spec *ParallelSpec, hasChecks bool) error {
	replicas := len(spec.Grid)
	if replicas == 0 || len(spec.Grid[0]) == 0 {
		return fmt.Errorf("run_parallel: empty program grid")
	}
	partitions := len(spec.Grid[0])
	n := replicas * partitions
	rec := startRecording() // probes in the programs record too
	defer stopRecording()

	inExe, err := compileFile(spec.Inputs, compiler.Options{})
	if err != nil {
		return fmt.Errorf("compile run_parallel operands: %w", err)
	}
	inputs, err := inExe.Run(nil, nil)
	if err != nil {
		return fmt.Errorf("run_parallel operands: %w", err)
	}
	defer freeOutputs(inputs)

	meet := kernel.NewRendezvous(n)
	defer collective.RegisterGrid(meet, collective.Grid{Replicas: replicas, Partitions: partitions})()
	exes := make([]*compiler.Executable, n)
	names := make([]string, n)
	args := make([][][]byte, n)
	next := 0
	for r, row := range spec.Grid {
		if len(row) != partitions {
			return fmt.Errorf("run_parallel: programs is not a %d x %d grid", replicas, partitions)
		}
		for p, name := range row {
			i := r*partitions + p
			path, ok := spec.Programs[name]
			if !ok {
				return fmt.Errorf("run_parallel: no artifact for @%s", name)
			}
			exe, err := compileFile(path, compiler.Options{Partition: &kernel.Partition{Self: i, Count: n, Meet: meet}})
			if err != nil {
				return fmt.Errorf("compile @%s for process (replica %d, partition %d): %w", name, r, p, err)
			}
			k := len(exe.InputTypes())
			if next+k > len(inputs.Outputs) {
				return fmt.Errorf("run_parallel: %d operands are too few for the programs' parameters", len(inputs.Outputs))
			}
			exes[i], names[i], args[i] = exe, name, inputs.Outputs[next:next+k]
			next += k
		}
	}
	if next != len(inputs.Outputs) {
		return fmt.Errorf("run_parallel: %d operands, the programs take %d", len(inputs.Outputs), next)
	}

	results := make([]*compiler.RunResult, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range exes {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs[i] = fmt.Errorf("panic: %v", p)
					meet.Abort()
				}
			}()
			if results[i], errs[i] = exes[i].Run(args[i], nil); errs[i] != nil {
				meet.Abort()
			}
		}(i)
	}
	wg.Wait()
	var outs [][]byte
	for _, res := range results {
		if res != nil {
			defer freeOutputs(res)
			outs = append(outs, res.Outputs...)
		}
	}
	var first error
	for i, e := range errs {
		if e != nil && (first == nil || errors.Is(first, kernel.ErrAborted)) {
			first = fmt.Errorf("process (replica %d, partition %d) @%s: %w", i/partitions, i%partitions, names[i], e)
		}
	}
	if first != nil {
		return fmt.Errorf("run: %w", first)
	}

	chk, err := compileFile(checkPath, compiler.Options{})
	if err != nil {
		return fmt.Errorf("compile checks: %w", err)
	}
	if k := len(chk.InputTypes()); k != len(outs) {
		return fmt.Errorf("run_parallel has %d results, the processes returned %d", k, len(outs))
	}
	res, err := chk.Run(outs, nil)
	if res != nil {
		freeOutputs(res)
	}
	if err != nil {
		return fmt.Errorf("run checks: %w", err)
	}
	return rec.result(hasChecks)
}
