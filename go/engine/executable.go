package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/internal/cancel"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// Executable is a compiled program bound to devices.
type Executable struct {
	client      *Client
	prog        Program
	code        []byte
	options     []byte
	Build       BuildOptions
	Assignment  *DeviceAssignment
	addressable []*Device
	logical     [][2]int // (replica, partition) of each addressable device
	// remote are the devices of other processes in the assignment, with
	// their (replica, partition); set only for a multi-process program
	// (multiprocess.go).
	remote        []*Device
	remoteLogical [][2]int
	jobKey        uint64 // names the program on the data plane
	inTypes       []ir.Type
	outTypes      []ir.Type
	donors        []bool       // parameters the program may alias to an output
	inKinds       []int        // each parameter's memory kind (index into MemoryKinds)
	outKinds      []int        // each result's memory kind
	noDonation    []bool       // all false, one per parameter (read-only)
	spmd          *spmdPlan    // set for programs with several partitions
	parts         *partitioned // set when spmd's program runs per device (partitioned.go)
	// copts are the compiler options the program was compiled with (dump
	// directory, fusion); per-partition compiles get them too.
	copts   compiler.Options
	deleted atomic.Bool
	// inline marks programs small enough to run on the calling thread
	// (see inlinePolicy).
	inline bool
}

// Program is what the runtime needs from a compiled program
// (*compiler.Executable implements it).
type Program interface {
	Name() string
	Module() *ir.Module
	InputTypes() []ir.Type
	OutputTypes() []ir.Type
	Fingerprint() string
	NumReplicas() int
	NumPartitions() int
	Run(args [][]byte, donatable []bool) (*compiler.RunResult, error)
}

// cancellableProgram is a Program whose runs stop at a step boundary when
// their token is cancelled (*compiler.Executable).
type cancellableProgram interface {
	RunCancel(args [][]byte, donatable []bool, tok *cancel.Token) (*compiler.RunResult, error)
}

// contextProgram is a Program whose steps may read their run's context
// (FFI handlers: run id, device ordinal, user data; *compiler.Executable).
type contextProgram interface {
	RunContext(args [][]byte, donatable []bool, tok *cancel.Token, rc *kernel.RunContext) (*compiler.RunResult, error)
}

// runIDs numbers Execute calls whose programs read their run's context:
// every device of one call shares its id, as XLA's RunId.
var runIDs atomic.Int64

// runContext is the context of one device's run of an Execute call, nil
// when no step of the program reads it.
func (e *Executable) runContext(runID int64, dev *Device, data []UserData) *kernel.RunContext {
	if runID == 0 {
		return nil
	}
	ord := 0
	if dev != nil && dev.LocalHardwareID >= 0 {
		ord = dev.LocalHardwareID
	}
	return &kernel.RunContext{RunID: runID, DeviceOrdinal: ord, UserData: data}
}

// Compile compiles a StableHLO portable artifact with the compiler options
// copts (the plugin's dump directory and NaN-detection mode). client may be
// nil for a device-less compile (PJRT_Compile); such an executable cannot
// run.
func Compile(client *Client, code, options []byte, copts compiler.Options) (*Executable, error) {
	if _, err := ParseCompileOptions(options); err != nil {
		return nil, err
	}
	start := time.Now()
	prog, err := compiler.Compile(code, copts)
	countCompile(start, err)
	if err != nil {
		return nil, WithCode(CodeInvalidArgument, err)
	}
	if prog == nil {
		return nil, Errorf(CodeInternal, "compiler returned no executable")
	}
	return newExecutable(client, prog, code, options, copts)
}

// NewExecutable binds a compiled program to a client's devices following the
// serialized CompileOptionsProto in options.
func NewExecutable(client *Client, prog Program, code, options []byte) (*Executable, error) {
	return newExecutable(client, prog, code, options, compiler.Options{})
}

// newExecutable is NewExecutable for a program compiled with copts.
func newExecutable(client *Client, prog Program, code, options []byte, copts compiler.Options) (*Executable, error) {
	build, err := ParseCompileOptions(options)
	if err != nil {
		return nil, err
	}
	e := &Executable{
		client:   client,
		prog:     prog,
		copts:    copts,
		code:     append([]byte(nil), code...),
		options:  append([]byte(nil), options...),
		Build:    build,
		inTypes:  prog.InputTypes(),
		outTypes: prog.OutputTypes(),
	}
	for i, t := range e.outTypes {
		if _, ok := t.(*ir.TupleType); ok {
			return nil, Errorf(CodeUnimplemented, "output %d has tuple type %v; gojax returns flat outputs only", i, t)
		}
	}
	e.donors = make([]bool, len(e.inTypes))
	if e.inKinds, e.outKinds, err = memoryKinds(prog.Module(), len(e.inTypes), len(e.outTypes)); err != nil {
		return nil, err
	}
	if m := prog.Module(); m != nil {
		if f := m.Main(); f != nil {
			for i := range e.donors {
				if i < len(f.ArgAttrs) && f.ArgAttrs[i] != nil {
					_, alias := f.ArgAttrs[i]["tf.aliasing_output"]
					_, donor := f.ArgAttrs[i]["jax.buffer_donor"]
					e.donors[i] = alias || donor
				}
			}
		}
	}
	if err := e.assign(); err != nil {
		return nil, err
	}
	if err := e.planPartitions(); err != nil {
		return nil, err
	}
	e.noDonation = make([]bool, len(e.inTypes))
	e.inline = inlinePolicy(prog, e.inTypes, e.outTypes)
	return e, nil
}

// planPartitions prepares SPMD execution for programs with several partitions.
func (e *Executable) planPartitions() error {
	if e.Assignment.Partitions <= 1 {
		return nil
	}
	if e.Assignment.Replicas > 1 {
		return Errorf(CodeUnimplemented, "programs with both replicas (%d) and partitions (%d) are not supported", e.Assignment.Replicas, e.Assignment.Partitions)
	}
	plan, err := planSPMD(e.prog.Module(), e.Assignment.Partitions, e.inTypes, e.outTypes)
	if err != nil {
		return Errorf(CodeUnimplemented, "SPMD program %q: %v", e.Name(), err)
	}
	if err := e.pairDonors(plan); err != nil {
		return Errorf(CodeUnimplemented, "SPMD program %q: %v", e.Name(), err)
	}
	if err := inspectShardings(e.prog.Module(), plan); err != nil {
		return Errorf(CodeInvalidArgument, "SPMD program %q: %v", e.Name(), err)
	}
	if err := e.partitionCallbacks(e.prog.Module(), plan); err != nil {
		return Errorf(CodeUnimplemented, "SPMD program %q: %v", e.Name(), err)
	}
	e.spmd = plan
	e.preparePartitioned(plan)
	return nil
}

// assign resolves the device assignment against the client's devices.
func (e *Executable) assign() error {
	b := e.Build
	if b.NumReplicas == 0 {
		b.NumReplicas = 1
	}
	if b.NumPartitions == 0 {
		b.NumPartitions = 1
	}
	if r := e.prog.NumReplicas(); r > 1 && b.Assignment == nil {
		b.NumReplicas = r
	}
	if p := e.prog.NumPartitions(); p > 1 && b.Assignment == nil {
		b.NumPartitions = p
	}
	da := b.Assignment
	if da == nil {
		da = &DeviceAssignment{Replicas: b.NumReplicas, Partitions: b.NumPartitions}
		for r := 0; r < da.Replicas; r++ {
			row := make([]int, da.Partitions)
			for p := range row {
				row[p] = r*da.Partitions + p
			}
			da.IDs = append(da.IDs, row)
		}
	}
	e.Assignment = da
	if e.client == nil {
		return nil
	}
	seen := map[int]bool{}
	for r, row := range da.IDs {
		for p, id := range row {
			d, err := e.client.LookupDevice(id)
			if err != nil {
				return Errorf(CodeInvalidArgument, "device assignment (replica %d, partition %d): %v", r, p, err)
			}
			if seen[id] {
				return Errorf(CodeInvalidArgument, "device assignment uses device %d twice", id)
			}
			seen[id] = true
			if !d.Addressable() {
				e.remote = append(e.remote, d)
				e.remoteLogical = append(e.remoteLogical, [2]int{r, p})
				continue
			}
			e.addressable = append(e.addressable, d)
			e.logical = append(e.logical, [2]int{r, p})
		}
	}
	if len(e.remote) > 0 {
		e.jobKey = jobKey(e.Fingerprint(), da)
	}
	return nil
}

// Load binds a device-less executable to a client.
func (e *Executable) Load(client *Client) (*Executable, error) {
	ne := &Executable{
		client: client, prog: e.prog, code: e.code, options: e.options, Build: e.Build,
		inTypes: e.inTypes, outTypes: e.outTypes, donors: e.donors, noDonation: e.noDonation, inline: e.inline,
	}
	if err := ne.assign(); err != nil {
		return nil, err
	}
	if err := ne.planPartitions(); err != nil {
		return nil, err
	}
	return ne, nil
}

// Name is the program name.
func (e *Executable) Name() string { return e.prog.Name() }

// NumReplicas and NumPartitions come from the device assignment.
func (e *Executable) NumReplicas() int   { return e.Assignment.Replicas }
func (e *Executable) NumPartitions() int { return e.Assignment.Partitions }

// InputTypes and OutputTypes are the entry function's signature.
func (e *Executable) InputTypes() []ir.Type  { return e.inTypes }
func (e *Executable) OutputTypes() []ir.Type { return e.outTypes }

// AddressableDevices are the devices the program runs on, replica-major.
func (e *Executable) AddressableDevices() []*Device { return e.addressable }

// LogicalIDs are the (replica, partition) of each addressable device.
func (e *Executable) LogicalIDs() [][2]int { return e.logical }

// CompileOptions returns the serialized options given at compile time.
func (e *Executable) CompileOptions() []byte { return e.options }

// Cost returns the cost analysis of the compiled program; false for a
// program that has none (one not made by go/compiler).
func (e *Executable) Cost() (compiler.Cost, bool) {
	p, ok := e.prog.(interface{ Cost() compiler.Cost })
	if !ok {
		return compiler.Cost{}, false
	}
	return p.Cost(), true
}

// CodeSize is the size of the program's input, used as "generated code" size.
func (e *Executable) CodeSize() int64 { return int64(len(e.code)) }

// Code is the program as compiled (the bytes the client was given); callers
// must not modify it.
func (e *Executable) Code() []byte { return e.code }

// OptimizedStableHLO is the program after gojax's passes, with its plan's
// facts, as StableHLO text that jaxlib converts to HLO
// (compiler.Executable.OptimizedStableHLO); an error for a program not
// made by go/compiler or one the writer cannot spell.
//
// A partitioned program shows partition 0's program, with its collectives
// and local shapes, as XLA shows its partitioned HLO.
func (e *Executable) OptimizedStableHLO() (string, error) {
	p, ok := e.runsOn0().(interface{ OptimizedStableHLO() (string, error) })
	if !ok {
		return "", fmt.Errorf("engine: %s has no optimized program text", e.prog.Name())
	}
	return p.OptimizedStableHLO()
}

// ShardyOp names an op of the Shardy dialect in the program's functions
// (sdy.sharding_constraint, sdy.manual_computation, ...), or "". The HLO
// converter frameworks run on the program text does not take them.
func (e *Executable) ShardyOp() string {
	m := e.prog.Module()
	if m == nil {
		return ""
	}
	found := ""
	for _, f := range m.Funcs {
		if f.Body == nil {
			continue
		}
		f.Body.Walk(func(op *ir.Op) bool {
			if strings.HasPrefix(op.Name, "sdy.") {
				found = op.Name
				return false
			}
			return true
		})
		if found != "" {
			break
		}
	}
	return found
}

// Fingerprint identifies the program.
func (e *Executable) Fingerprint() string {
	if f := e.prog.Fingerprint(); f != "" {
		return f
	}
	h := sha256.Sum256(e.code)
	return hex.EncodeToString(h[:16])
}

// Delete marks the executable deleted; later executions fail.
func (e *Executable) Delete()         { e.deleted.Store(true) }
func (e *Executable) IsDeleted() bool { return e.deleted.Load() }

// TypeBytes is the dense size of a value of type t.
func TypeBytes(t ir.Type) int64 {
	if tt, ok := t.(*ir.TensorType); ok {
		return tt.ByteSize()
	}
	return 0
}

const serialMagic = "GOJAXEX1"

// Serialize encodes the executable so Deserialize can rebuild it with the same
// library version (it recompiles the program).
func (e *Executable) Serialize() []byte {
	var b bytes.Buffer
	b.WriteString(serialMagic)
	b.Write(binary.AppendUvarint(nil, uint64(len(e.code))))
	b.Write(e.code)
	b.Write(binary.AppendUvarint(nil, uint64(len(e.options))))
	b.Write(e.options)
	return b.Bytes()
}

// Deserialize rebuilds an executable from Serialize output. Non-nil options
// override the stored compile options.
func Deserialize(client *Client, data, options []byte, copts compiler.Options) (*Executable, error) {
	if !bytes.HasPrefix(data, []byte(serialMagic)) {
		return nil, Errorf(CodeInvalidArgument, "not a serialized gojax executable")
	}
	p := data[len(serialMagic):]
	read := func() ([]byte, error) {
		n, k := binary.Uvarint(p)
		if k <= 0 || uint64(len(p)-k) < n {
			return nil, Errorf(CodeInvalidArgument, "truncated serialized gojax executable")
		}
		out := p[k : k+int(n)]
		p = p[k+int(n):]
		return out, nil
	}
	code, err := read()
	if err != nil {
		return nil, err
	}
	opts, err := read()
	if err != nil {
		return nil, err
	}
	if options != nil {
		opts = options
	}
	return Compile(client, code, opts, copts)
}

// ExecuteOptions tune one Execute call.
type ExecuteOptions struct {
	// NonDonatable lists argument indices that must not be donated. Execute
	// reads it only during the call (it may view the caller's memory).
	NonDonatable []int64
	// UserData is the FFI user data of the PJRT execute context; JAX passes
	// its host callbacks this way.
	UserData []UserData
	// Cancel, when set, stops the call's runs at their next step boundary
	// once cancelled; their outputs and events then carry its error with
	// code CANCELLED. Without it each run gets a token of its own: one that
	// also stops it on Ctrl-C for a run on the calling thread, and one
	// cancelled when all its outputs are deleted for a run on a goroutine.
	Cancel *cancel.Token
}

// Execute runs the program once per argument list: args[i] runs on
// devices[i] (nil = the addressable devices). It returns at once with the
// output buffers and a completion event per device.
func (e *Executable) Execute(args [][]*Buffer, devices []*Device, opts ExecuteOptions) ([][]*Buffer, []*Event, error) {
	if e.IsDeleted() {
		return nil, nil, Errorf(CodeFailedPrecondition, "Execute: executable %q has been deleted", e.Name())
	}
	if e.client == nil {
		return nil, nil, Errorf(CodeFailedPrecondition, "Execute: executable is not loaded on a client")
	}
	if len(e.addressable) == 0 && devices == nil && len(e.remote) > 0 {
		// A program on other processes' devices only: this process has
		// no part in it (as on XLA:CPU, which runs nothing here).
		if len(args) != 0 {
			return nil, nil, Errorf(CodeInvalidArgument, "Execute: %d argument lists for a program with no device in this process", len(args))
		}
		return [][]*Buffer{}, []*Event{}, nil
	}
	if len(e.remote) > 0 && e.spmd == nil {
		return nil, nil, Errorf(CodeUnimplemented, "Execute: program %q has %d replicas on devices of several processes; gojax runs such programs only when they are SPMD-partitioned (jit with shardings, shard_map)", e.Name(), e.NumReplicas())
	}
	if e.spmd != nil {
		if devices != nil {
			return nil, nil, Errorf(CodeUnimplemented, "Execute: portable execution of a partitioned program is not supported")
		}
		return e.executeSPMD(args, nonDonatable(opts.NonDonatable), opts.UserData, opts.Cancel)
	}
	if devices == nil {
		devices = e.addressable
	}
	if len(args) != len(devices) {
		return nil, nil, Errorf(CodeInvalidArgument, "Execute: %d argument lists for %d devices", len(args), len(devices))
	}
	nonDon := nonDonatable(opts.NonDonatable)
	// Validate everything before touching any buffer.
	for d, list := range args {
		if len(list) != len(e.inTypes) {
			return nil, nil, Errorf(CodeInvalidArgument, "Execute: device %d got %d arguments, program %q takes %d", d, len(list), e.Name(), len(e.inTypes))
		}
		for i, b := range list {
			if b == nil {
				return nil, nil, Errorf(CodeInvalidArgument, "Execute: argument %d of device %d is NULL", i, d)
			}
			if !b.matchesType(e.inTypes[i]) {
				hint := ""
				if e.NumPartitions() > 1 {
					hint = fmt.Sprintf(" (the program has %d partitions; gojax runs it unpartitioned on every device, so SPMD-sharded arguments are not supported yet)", e.NumPartitions())
				}
				return nil, nil, Errorf(CodeInvalidArgument, "Execute: argument %d has type %v, program %q expects %v%s", i, b.Type(), e.Name(), e.inTypes[i], hint)
			}
			// As XLA: a buffer the program may overwrite cannot also be
			// read as another argument of the same call.
			if e.donors[i] && !nonDon.has(i) && occurrences(list, b) > 1 {
				return nil, nil, Errorf(CodeInvalidArgument, "Execute: argument %d of program %q is donated, but the same buffer is passed as another argument of this call", i, e.Name())
			}
		}
	}
	callbacks := false
	var runID int64 // 0: the program does not read its run's context
	if hp, ok := e.prog.(hostCallbackProgram); ok && hp.HostCallbacks() != nil && hp.HostCallbacks().Used() {
		if err := installHostCallbacks(hp.HostCallbacks(), opts.UserData); err != nil {
			return nil, nil, err
		}
		runID = runIDs.Add(1)
		// FFI handlers reading user data alone need no synchronous run.
		callbacks = hp.HostCallbacks().CallbacksUsed()
	}
	if len(args) == 1 && e.runsOnCaller() && !callbacks {
		if outs, events, err, ok := e.executeInline(args[0], devices[0], nonDon, opts.Cancel, e.runContext(runID, devices[0], opts.UserData)); ok {
			return outs, events, err
		}
	}
	outs := make([][]*Buffer, len(args))
	events := make([]*Event, len(args))
	type job struct {
		dev        *Device
		in         []*Buffer
		donated    []bool
		anyDonated bool
		out        []*Buffer
		done       *Event
		rc         *kernel.RunContext
	}
	var jobs []*job
	var held, created []*Buffer
	undo := func() {
		for _, b := range held {
			b.unhold()
		}
		for _, b := range created {
			b.discard()
		}
	}
	for d, list := range args {
		j := &job{dev: devices[d], in: list, donated: make([]bool, len(list)), done: NewEvent(), rc: e.runContext(runID, devices[d], opts.UserData)}
		for i, b := range list {
			if err := b.holdArg("Execute argument", i); err != nil {
				undo()
				return nil, nil, err
			}
			held = append(held, b)
			if e.donors[i] && !nonDon.has(i) {
				j.donated[i] = b.donate()
				j.anyDonated = j.anyDonated || j.donated[i]
			}
		}
		for i, t := range e.outTypes {
			nb, err := newResultBuffer(e.outMemory(devices[d], i), t)
			if err != nil {
				undo()
				return nil, nil, err
			}
			nb.local = true
			created = append(created, nb)
			j.out = append(j.out, nb)
		}
		outs[d], events[d] = j.out, j.done
		jobs = append(jobs, j)
	}
	counters.executions.Add(int64(len(jobs)))
	if callbacks {
		// As XLA:CPU does, programs with host callbacks run synchronously on
		// the caller's thread: a callback takes the GIL, which the caller
		// may be waiting to get back, and its effects stay in call order.
		for _, j := range jobs {
			e.run(j.in, j.donated, j.out, j.done, e.callerToken(opts.Cancel), j.rc)
		}
		if err := syncRunError(outs, events); err != nil {
			return nil, nil, err
		}
		return outs, events, nil
	}
	if len(jobs) == 1 && allReady(jobs[0].in) && (e.inline && !jobs[0].anyDonated || !asyncDispatch.Load()) {
		// In calling-thread mode (dispatch.go) also a donating call; or an
		// argument became ready after executeInline looked.
		j := jobs[0]
		e.run(j.in, j.donated, j.out, j.done, e.callerToken(opts.Cancel), j.rc)
		return outs, events, nil
	}
	for _, j := range jobs {
		tok := opts.Cancel
		if tok == nil {
			tok = abandonOnDelete(j.out)
		}
		go e.run(j.in, j.donated, j.out, j.done, tok, j.rc)
	}
	return outs, events, nil
}

// nonDonatable is ExecuteOptions.NonDonatable; such lists are short, and
// scanning one costs less than building a set on every call.
type nonDonatable []int64

func (l nonDonatable) has(i int) bool {
	for _, j := range l {
		if j == int64(i) {
			return true
		}
	}
	return false
}

// firedOK is the completion event of every inline run that succeeded.
var firedOK = DoneEvent(nil)

// executeInline runs a program on the calling thread: a tiny one always
// (inlinePolicy: a goroutine start and a cross-thread wake-up cost more than
// it), any other in calling-thread mode (dispatch.go). Its outputs and event
// are ready before it returns. It is
// Execute's general path minus the bookkeeping for several devices and
// asynchronous runs; ok is false, with nothing done, when the call needs that
// path (an argument that is not ready yet, or one the program may donate).
func (e *Executable) executeInline(list []*Buffer, dev *Device, nonDon nonDonatable, tok *cancel.Token, rc *kernel.RunContext) (outs [][]*Buffer, events []*Event, err error, ok bool) {
	for i, b := range list {
		if e.donors[i] && !nonDon.has(i) {
			return nil, nil, nil, false
		}
		if !b.ready.IsReady() {
			return nil, nil, nil, false
		}
	}
	for i, b := range list {
		if err := b.holdArg("Execute argument", i); err != nil {
			for _, h := range list[:i] {
				h.unhold()
			}
			return nil, nil, err, true
		}
	}
	// One allocation for the result lists, the event list and (for the usual
	// single result) the output list.
	res := &struct {
		outs   [1][]*Buffer
		events [1]*Event
		one    [1]*Buffer
	}{}
	out := res.one[:]
	if len(e.outTypes) != 1 {
		out = make([]*Buffer, len(e.outTypes))
	}
	for i, t := range e.outTypes {
		nb, err := newResultBuffer(e.outMemory(dev, i), t)
		if err != nil {
			for _, h := range list {
				h.unhold()
			}
			for _, o := range out[:i] {
				o.discard()
			}
			return nil, nil, err, true
		}
		nb.local = true
		out[i] = nb
	}
	counters.executions.Add(1)
	ev := firedOK
	if rerr := e.run(list, e.noDonation, out, nil, e.callerToken(tok), rc); rerr != nil {
		ev = DoneEvent(rerr)
	}
	res.outs[0], res.events[0] = out, ev
	return res.outs[:], res.events[:], nil, true
}

// occurrences counts b in list (argument lists are short).
func occurrences(list []*Buffer, b *Buffer) int {
	n := 0
	for _, x := range list {
		if x == b {
			n++
		}
	}
	return n
}

func allReady(list []*Buffer) bool {
	for _, b := range list {
		if !b.ready.IsReady() {
			return false
		}
	}
	return true
}

// donate marks a held buffer as donated: deleted for everyone else, as XLA
// does for parameters the program aliases. It reports whether the program may
// also reuse the memory, which gojax allows only for its own allocations
// (zero-copy host data and views belong to the caller) that nobody outside
// references.
func (b *Buffer) donate() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.deleted {
		return false
	}
	b.setDeletedLocked()
	// Memory seen from outside (NumPy views, DLPack) must never be rewritten.
	b.donated = b.local && b.extRefs == 0
	return b.donated
}

// waitSoleHolder blocks until only the caller's hold remains.
func (b *Buffer) waitSoleHolder() {
	b.mu.Lock()
	for b.holds > 1 {
		if b.cond == nil {
			b.cond = sync.NewCond(&b.mu)
		}
		b.cond.Wait()
	}
	b.mu.Unlock()
}

// takeDonated moves a donated buffer's memory out, for an output to own.
func (b *Buffer) takeDonated() ([]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.donated || b.released || b.own != ownDevmem {
		return nil, false
	}
	data := b.data
	b.data, b.own = nil, ownNone
	b.markReleasedLocked()
	return data, true
}

// errAbandoned stops a run whose results nobody can read any more.
var errAbandoned = errors.New("every output was deleted before the run finished")

// abandonOnDelete returns the token of a run on a goroutine, cancelled once
// every output in out has been deleted, with no execution, copy or external
// reference left to read it, before the run produced it: nothing can observe
// those results (programs with host callbacks, the only side effects, run on
// the calling thread; jaxlib keeps the output token of a program with
// ordered effects). The completion event then fires with the error, which
// jaxlib does not report for a call whose arrays are gone. This is what stops
// a run whose wait was interrupted: jaxlib's block_until_ready raises
// KeyboardInterrupt itself, without telling the plugin, and the run stops
// once the arrays it computes go away.
func abandonOnDelete(out []*Buffer) *cancel.Token {
	if len(out) == 0 {
		return nil
	}
	tok := cancel.New(false)
	left := new(atomic.Int32)
	left.Store(int32(len(out)))
	abandon := func() {
		if left.Add(-1) == 0 {
			tok.Cancel(errAbandoned)
		}
	}
	for _, o := range out {
		o.abandon = abandon
	}
	return tok
}

// callerToken is the token of a run on the thread that called Execute: one
// that also polls for Ctrl-C, since that thread may be Python's main thread
// and Python cannot raise KeyboardInterrupt there until the call returns.
// Tiny programs (inlinePolicy: no loops, little memory) end sooner than a
// poll would come, and run without one unless the caller gave a token.
func (e *Executable) callerToken(given *cancel.Token) *cancel.Token {
	if given != nil || e.inline {
		return given
	}
	return cancel.New(true)
}

// run runs the program once, fires done (when not nil) and returns the
// error. tok (nil for none) cancels it at a step boundary; rc (nil for none)
// is the run's context.
func (e *Executable) run(in []*Buffer, donated []bool, out []*Buffer, done *Event, tok *cancel.Token, rc *kernel.RunContext) error {
	var running time.Duration
	tok.Begin()
	err := e.runOnce(in, donated, out, &running, tok, rc)
	tok.End()
	for _, b := range in {
		b.unhold()
	}
	countExecutionEnd(running, err)
	if err != nil {
		for _, o := range out {
			if !o.ready.IsReady() {
				o.fail(err)
			}
		}
	}
	if done != nil {
		done.Set(err)
	}
	return err
}

func (e *Executable) runOnce(in []*Buffer, donated []bool, out []*Buffer, running *time.Duration, tok *cancel.Token, rc *kernel.RunContext) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = Errorf(CodeInternal, "execution of %q panicked: %v", e.Name(), r)
		}
	}()
	for i, b := range in {
		if werr := b.ready.Wait(); werr != nil {
			return WithCode(CodeFailedPrecondition, fmt.Errorf("argument %d of %q is not available: %w", i, e.Name(), werr))
		}
	}
	// Wait for earlier readers of donated buffers before taking a run slot, so
	// a waiting donor never keeps those readers from running.
	for i, b := range in {
		if donated[i] {
			b.waitSoleHolder()
		}
	}
	e.client.slots.acquire()
	start := time.Now()
	defer func() {
		*running = time.Since(start)
		e.client.slots.release()
	}()
	data := make([][]byte, len(in))
	for i, b := range in {
		d, berr := b.bytes()
		if berr != nil {
			return WithCode(CodeFailedPrecondition, fmt.Errorf("argument %d of %q: %w", i, e.Name(), berr))
		}
		data[i] = d
	}
	var res *compiler.RunResult
	var rerr error
	if cp, ok := e.prog.(contextProgram); ok && rc != nil {
		res, rerr = cp.RunContext(data, donated, tok, rc)
	} else if cp, ok := e.prog.(cancellableProgram); ok && tok != nil {
		res, rerr = cp.RunCancel(data, donated, tok)
	} else {
		res, rerr = e.prog.Run(data, donated)
	}
	if rerr != nil {
		if cerr := tok.Err(); cerr != nil {
			return &Error{Code: CodeCancelled, Err: fmt.Errorf("execution of %q: %w", e.Name(), cerr)}
		}
		return WithCode(CodeInternal, rerr)
	}
	if res == nil || len(res.Outputs) != len(out) {
		n := -1
		if res != nil {
			n = len(res.Outputs)
			freeUnaliased(res)
		}
		return Errorf(CodeInternal, "%q produced %d outputs, expected %d", e.Name(), n, len(out))
	}
	for i, o := range out {
		alias := -1
		if i < len(res.AliasOf) {
			alias = res.AliasOf[i]
		}
		var buf []byte
		if alias >= 0 {
			if alias >= len(in) || !donated[alias] {
				freeUnaliased(res)
				return Errorf(CodeInternal, "%q output %d reuses argument %d, which was not donated", e.Name(), i, alias)
			}
			d, ok := in[alias].takeDonated()
			if !ok {
				freeUnaliased(res)
				return Errorf(CodeInternal, "%q output %d reuses argument %d twice", e.Name(), i, alias)
			}
			buf = d[:len(res.Outputs[i])]
		} else {
			buf = res.Outputs[i]
		}
		if int64(len(buf)) != o.size {
			freeUnaliased(res)
			return Errorf(CodeInternal, "%q output %d has %d bytes, expected %d", e.Name(), i, len(buf), o.size)
		}
		res.Outputs[i] = nil // ownership moves to the buffer
		if cap(buf) == 0 {
			o.setData(nil, ownNone, nil)
		} else {
			o.setData(buf, ownDevmem, nil)
		}
	}
	return nil
}

// freeUnaliased frees outputs that own their memory after a failed run.
func freeUnaliased(res *compiler.RunResult) {
	for i, o := range res.Outputs {
		if i < len(res.AliasOf) && res.AliasOf[i] >= 0 {
			continue
		}
		if o != nil {
			devmem.Free(o)
		}
		res.Outputs[i] = nil
	}
}

// matchesType checks an argument buffer against a parameter type without
// building the buffer's type (this runs for every argument of every call).
// JAX passes a bool[0] array for a token parameter (ordered effects thread a
// runtime token through the entry function); a token carries no data, so
// that stands for one.
func (b *Buffer) matchesType(want ir.Type) bool {
	switch w := want.(type) {
	case *ir.TensorType:
		if b.token || b.elem != w.Elem || len(b.dims) != len(w.Shape) {
			return false
		}
		for i, d := range b.dims {
			if d != w.Shape[i] {
				return false
			}
		}
		return true
	case *ir.TokenType:
		if b.token {
			return true
		}
		return b.elem == ir.Pred && b.size == 0
	}
	return false
}

// newResultBuffer makes the not-yet-ready buffer for one program result of
// type t (a tensor, or a token).
func newResultBuffer(mem *Memory, t ir.Type) (*Buffer, error) {
	if tt, ok := t.(*ir.TensorType); ok {
		return newBuffer(mem, tt.Elem, false, tt.Shape)
	}
	return newBuffer(mem, ir.Invalid, true, nil)
}
