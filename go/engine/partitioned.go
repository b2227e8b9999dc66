package engine

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/config"
	"github.com/gojax/gojax/go/internal/cancel"
	"github.com/gojax/gojax/go/internal/workers"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/gojax/gojax/go/shardy"
	"github.com/gojax/gojax/go/shardy/partition"
)

// An SPMD program the partitioner (go/shardy/partition) accepts runs as one
// program per device, each on its own argument shards and writing its own
// result shards: no global array is assembled, so a device needs about 1/N
// of the memory of the global arrays. Its partitions' collectives meet
// through one rendezvous, so runs of one executable take turns. Programs
// the partitioner refuses keep the global execution of spmd.go.
//
// In a multi-process job each process runs only its own devices' programs;
// the rendezvous trades each collective's contributions with the other
// processes (crossRemote, multiprocess.go), and runs take turns in run
// number order, the same in every process.

// partitioned is an SPMD program compiled per partition.
type partitioned struct {
	progs []cancellableProgram // per addressable device (*compiler.Executable)
	meet  *kernel.Rendezvous
	mu    sync.Mutex // one run at a time: two runs' collectives must not meet
	// Multi-process: the trade with the other processes, and the runs'
	// turns: each run gets a ticket when dispatched and runs when turn
	// reaches it, so runs of the executable go in dispatch order, which
	// is the order of their run numbers in every process.
	remote  *crossRemote
	tickets uint64 // handed out (under e.client's runMu)
	turn    uint64
	turned  sync.Cond // on mu
}

// preparePartitioned compiles plan's program per partition when the
// partitioner accepts it; otherwise e runs on global arrays.
func (e *Executable) preparePartitioned(plan *spmdPlan) {
	n := e.Assignment.Partitions
	m := e.prog.Module()
	if !config.Env().SPMDPartition || m == nil || len(e.addressable) == 0 || len(e.addressable)+len(e.remote) != n || plan.mesh == nil || plan.mesh.Size() != n {
		return
	}
	if len(e.remote) > 0 && (e.client == nil || e.client.job == nil || e.client.job.Peers == nil) {
		return
	}
	if _, maximal := plan.mesh.Maximal(); maximal {
		return
	}
	for _, k := range append(append([]int(nil), e.inKinds...), e.outKinds...) {
		if k != 0 {
			return // memory kinds other than the device's: not laid out per partition
		}
	}
	meshes, err := shardy.Meshes(m)
	if err != nil {
		return
	}
	prog, err := partition.Build(partition.Input{Module: m, Meshes: meshes, Mesh: plan.mesh, Args: plan.args, Outs: plan.outs})
	if err != nil {
		// Refused (partition.ErrUnsupported) or not partitionable for
		// another reason: the global execution stays correct.
		return
	}
	pp := &partitioned{progs: make([]cancellableProgram, len(e.addressable))}
	pp.turned.L = &pp.mu
	if len(e.remote) > 0 {
		pp.remote = e.newCrossRemote()
		pp.meet = kernel.NewRendezvousAcross(n, len(e.addressable), pp.remote)
	} else {
		pp.meet = kernel.NewRendezvous(n)
	}
	meet := pp.meet
	for d := range e.addressable {
		p := e.logical[d][1]
		// The executable's own options (dump directory, fusion for NaN
		// detection) hold for each partition's program.
		opts := e.copts
		opts.Partition = &kernel.Partition{Self: p, Count: n, Meet: meet}
		// As many partitions as workers keep them all busy: a kernel split
		// over the pool would only add hand-offs and spinning waits.
		opts.Serial = len(e.addressable) >= workers.Count()
		exe, err := compiler.CompileModule(prog.Parts[p], opts)
		if err != nil {
			return
		}
		pp.progs[d] = exe
	}
	e.parts = pp
}

// runPartitioned runs each device's program on its argument shards; every
// device's result shards become its outputs. tok (nil for none) cancels the
// run at a step boundary; a token that polls for Ctrl-C (polls) is checked
// only on the calling goroutine, which runs the first device's program,
// and the other devices' programs stop through a token of their own that
// follows it. In a multi-process job, seq is the run's number and ticket
// its turn among this executable's runs (both from e.client.nextRun).
func (e *Executable) runPartitioned(args [][]*Buffer, outs [][]*Buffer, seq, ticket uint64, running *time.Duration, tok *cancel.Token, polls bool) (err error) {
	pp := e.parts
	var argErr error
	for _, list := range args {
		for i, b := range list {
			if werr := b.ready.Wait(); werr != nil && argErr == nil {
				argErr = WithCode(CodeFailedPrecondition, fmt.Errorf("argument %d of %q is not available: %w", i, e.Name(), werr))
			}
		}
	}
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if pp.remote != nil {
		// Every ticket takes its turn, even one whose run fails here, so
		// the runs after it do not wait forever.
		for pp.turn != ticket {
			pp.turned.Wait()
		}
		defer func() {
			pp.turn++
			pp.turned.Broadcast()
		}()
	}
	if argErr != nil {
		return argErr
	}
	start := time.Now()
	if pp.remote == nil {
		e.client.slots.acquire()
		defer e.client.slots.release()
	}
	// A multi-process run takes no run slot: it may wait in a collective
	// for a peer that runs another program first, which the slot it held
	// could block (the global-run model exchanges before taking one).
	defer func() { *running = time.Since(start) }()
	if pp.remote != nil {
		pp.remote.run = seq
	}
	pp.meet.Reset()
	results := make([]*compiler.RunResult, len(args))
	errs := make([]error, len(args))
	others := tok
	if polls {
		others = cancel.New(false)
	}
	runOne := func(d int, tok *cancel.Token) {
		defer func() {
			if r := recover(); r != nil {
				errs[d] = fmt.Errorf("panicked: %v", r)
				pp.meet.Abort()
			}
		}()
		data := make([][]byte, len(args[d]))
		for i, b := range args[d] {
			var berr error
			if data[i], berr = b.bytes(); berr != nil {
				errs[d] = berr
				pp.meet.Abort()
				return
			}
		}
		if results[d], errs[d] = pp.progs[d].RunCancel(data, nil, tok); errs[d] != nil {
			pp.meet.Abort()
		}
	}
	var wg sync.WaitGroup
	for d := 1; d < len(args); d++ {
		wg.Add(1)
		go func(d int) {
			defer wg.Done()
			runOne(d, others)
		}(d)
	}
	if len(args) > 0 {
		runOne(0, tok)
		if cerr := tok.Err(); cerr != nil && others != tok {
			others.Cancel(cerr)
		}
	}
	wg.Wait()
	if cerr := tok.Err(); cerr != nil && firstErr(errs) != nil {
		for _, res := range results {
			if res != nil {
				freeUnaliased(res)
			}
		}
		return &Error{Code: CodeCancelled, Err: fmt.Errorf("execution of %q: %w", e.Name(), cerr)}
	}
	var first error
	for d, rerr := range errs {
		if rerr != nil && (first == nil || errors.Is(first, kernel.ErrAborted)) {
			first = fmt.Errorf("execution of %q on device %d: %w", e.Name(), d, rerr)
		}
	}
	for d, res := range results {
		if res == nil {
			continue
		}
		if first == nil && len(res.Outputs) != len(outs[d]) {
			first = Errorf(CodeInternal, "%q produced %d outputs on device %d, expected %d", e.Name(), len(res.Outputs), d, len(outs[d]))
		}
		for i, o := range outs[d] {
			if first != nil || i >= len(res.Outputs) {
				break
			}
			buf := res.Outputs[i]
			if int64(len(buf)) != o.size {
				first = Errorf(CodeInternal, "%q output %d has %d bytes on device %d, expected %d", e.Name(), i, len(buf), d, o.size)
				break
			}
		}
	}
	if first != nil {
		for _, res := range results {
			if res != nil {
				freeUnaliased(res)
			}
		}
		var ee *Error
		if errors.As(first, &ee) {
			return first
		}
		return WithCode(CodeInternal, first)
	}
	// Counted before the outputs turn ready, so a caller who waited on
	// them sees the run counted.
	counters.partitionedRuns.Add(1)
	for d, res := range results {
		for i, o := range outs[d] {
			buf := res.Outputs[i]
			res.Outputs[i] = nil // ownership moves to the buffer
			if cap(buf) == 0 {
				o.setData(nil, ownNone, nil)
			} else {
				o.setData(buf, ownDevmem, nil)
			}
		}
	}
	return nil
}

// firstErr is the first non-nil error of errs.
func firstErr(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// runsOn0 is the program partition 0 runs: its own when e is partitioned,
// else e's program.
func (e *Executable) runsOn0() Program {
	if e.parts != nil {
		for d := range e.addressable {
			if e.logical[d][1] == 0 {
				if p, ok := e.parts.progs[d].(Program); ok {
					return p
				}
			}
		}
	}
	return e.prog
}

// MemorySizes is what one device's run holds, as XLA reports one device's
// program (compiled.memory_analysis()): the bytes of its arguments and
// results (for an SPMD program, partition 0's shards) and its plan's
// scratch bytes (temp). A program on global arrays also assembles them per
// run, which temp does not count.
func (e *Executable) MemorySizes() (args, outs, temp int64) {
	for i, t := range e.inTypes {
		if e.spmd != nil {
			if st, err := shardType(e.spmd.args[i], e.spmd.meshOf(e.spmd.args[i]), t, 0); err == nil {
				t = st
			}
		}
		args += TypeBytes(t)
	}
	for i, t := range e.outTypes {
		if e.spmd != nil {
			if st, err := shardType(e.spmd.outs[i], e.spmd.meshOf(e.spmd.outs[i]), t, 0); err == nil {
				t = st
			}
		}
		outs += TypeBytes(t)
	}
	if p, ok := e.runsOn0().(interface{ Stats() compiler.PlanStats }); ok {
		temp = p.Stats().ScratchBytes
	}
	return args, outs, temp
}
