package engine

import (
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/internal/cancel"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/shardy"
	"github.com/gojax/gojax/go/shardy/propagate"
)

// SPMD programs (num_partitions > 1) are written in global shapes with Shardy
// annotations saying how each argument and result is split over a device
// mesh. Until the compiler partitions programs, gojax runs such a program once
// on the global arrays: it assembles each argument from the devices' shards,
// runs, and hands every device its shard of each result. A result the
// program leaves unannotated (or open) gets the sharding propagation gives
// it (go/shardy/propagate), as XLA's partitioner reports it; a parameter
// returned unchanged keeps the parameter's sharding.

// spmdPlan is how an SPMD program's values map to partitions. Each sharding
// carries its own mesh: a program may mix meshes (JAX annotates Python
// scalars with the empty mesh, and GSPMD annotations each bring a device
// order), and every mesh covers the program's partitions, or is a maximal
// mesh of one of them; values on the empty mesh are replicated (nil).
type spmdPlan struct {
	mesh *shardy.Mesh       // the program's mesh: the first covering mesh its shardings use
	args []*shardy.Sharding // nil entries are replicated
	outs []*shardy.Sharding
	// donate marks the parameters a call gives up: those aliased to a
	// result (tf.aliasing_output), and buffer donors (jax.buffer_donor,
	// which JAX writes for sharded programs, leaving the choice to the
	// compiler) whose shard a result shard of the same byte size and memory
	// kind can reuse, as XLA:CPU pairs them (a (8,1) shard with an (8,)
	// one). A donor nothing can reuse stays alive.
	donate []bool
	// effects marks programs with side effects (ops with has_side_effect,
	// tokens), whose runs jaxlib tracks until they finish.
	effects bool
}

// pairDonors fills plan.donate: each donor takes the first result not yet
// taken whose shard has its shard's byte size and memory kind.
func (e *Executable) pairDonors(plan *spmdPlan) error {
	plan.donate = make([]bool, len(e.inTypes))
	f := e.prog.Module().Main()
	taken := make([]bool, len(e.outTypes))
	for i := range e.inTypes {
		if !e.donors[i] {
			continue
		}
		if _, alias := f.ArgAttrs[i]["tf.aliasing_output"]; alias {
			plan.donate[i] = true
			continue
		}
		in, err := shardType(plan.args[i], plan.meshOf(plan.args[i]), e.inTypes[i], 0)
		if err != nil {
			return fmt.Errorf("argument %d: %w", i, err)
		}
		for j, t := range e.outTypes {
			if taken[j] || e.inKinds[i] != e.outKinds[j] {
				continue
			}
			out, err := shardType(plan.outs[j], plan.meshOf(plan.outs[j]), t, 0)
			if err != nil {
				return fmt.Errorf("result %d: %w", j, err)
			}
			if TypeBytes(in) == TypeBytes(out) {
				taken[j], plan.donate[i] = true, true
				break
			}
		}
	}
	return nil
}

// meshOf is the mesh a sharding of the plan is over.
func (p *spmdPlan) meshOf(s *shardy.Sharding) *shardy.Mesh {
	if s != nil && s.Mesh != nil {
		return s.Mesh
	}
	return p.mesh
}

// planSPMD builds the plan from the entry function's Shardy annotations, or
// its GSPMD ones (mhlo.sharding) where a value has no Shardy one.
func planSPMD(m *ir.Module, partitions int, in, out []ir.Type) (*spmdPlan, error) {
	if m == nil {
		return nil, fmt.Errorf("program has %d partitions but no module to read shardings from", partitions)
	}
	meshes, err := shardy.Meshes(m)
	if err != nil {
		return nil, err
	}
	f := m.Main()
	if f == nil {
		return nil, fmt.Errorf("program has no entry function")
	}
	plan := &spmdPlan{args: make([]*shardy.Sharding, len(in)), outs: make([]*shardy.Sharding, len(out)), effects: hasEffects(m)}
	read := func(attrs []ir.Attrs, i int, t ir.Type) (*shardy.Sharding, error) {
		if i >= len(attrs) || attrs[i] == nil {
			return nil, nil
		}
		tt, ok := t.(*ir.TensorType)
		if !ok {
			return nil, nil
		}
		var s *shardy.Sharding
		if a, ok := attrs[i]["sdy.sharding"]; ok {
			op, ok := a.(ir.OpaqueAttr)
			if !ok {
				return nil, fmt.Errorf("sdy.sharding is not a Shardy attribute")
			}
			if s, _, err = shardy.ParseSharding(op.Text, meshes, tt.Rank()); err != nil {
				return nil, err
			}
		} else if text, ok := attrs[i].Str("mhlo.sharding"); ok {
			if s, err = shardy.ParseHLOSharding(text, tt.Rank()); err != nil {
				return nil, err
			}
		}
		if s == nil || s.Mesh.Empty() {
			return nil, nil
		}
		if d, maximal := s.Mesh.Maximal(); maximal {
			if d >= partitions {
				return nil, fmt.Errorf("sharding puts the value on device %d of a program with %d partitions", d, partitions)
			}
			return s, nil
		}
		if s.Mesh.Size() != partitions {
			return nil, fmt.Errorf("mesh %s has %d devices but the program has %d partitions", s.Mesh, s.Mesh.Size(), partitions)
		}
		if plan.mesh == nil {
			plan.mesh = s.Mesh
		}
		return s, nil
	}
	for i, t := range in {
		if plan.args[i], err = read(f.ArgAttrs, i, t); err != nil {
			return nil, fmt.Errorf("argument %d: %w", i, err)
		}
	}
	for i, t := range out {
		if plan.outs[i], err = read(f.ResAttrs, i, t); err != nil {
			return nil, fmt.Errorf("result %d: %w", i, err)
		}
		if plan.outs[i] == nil && !annotated(f.ResAttrs, i) {
			// A parameter returned unchanged, at most moved to another
			// memory kind (jax.device_put(x, jax.memory.Space.Host)),
			// keeps its sharding, as XLA's propagation gives it.
			if j := passedParameter(f, i); j >= 0 {
				plan.outs[i] = plan.args[j]
			}
		}
	}
	if plan.mesh, err = propagate.Fill(m, meshes, plan.mesh, partitions, plan.outs); err != nil {
		return nil, err
	}
	if plan.mesh == nil {
		plan.mesh = &shardy.Mesh{Axes: []shardy.Axis{{Name: "", Size: partitions}}}
	}
	return plan, nil
}

// hasEffects reports whether any op of m has side effects or carries a
// token.
func hasEffects(m *ir.Module) bool {
	found := false
	for _, f := range m.Funcs {
		if f.Body == nil {
			continue
		}
		f.Body.Walk(func(op *ir.Op) bool {
			if se, _ := op.Attrs.Bool("has_side_effect"); se {
				found = true
			}
			for _, v := range append(op.Operands[:len(op.Operands):len(op.Operands)], op.Results...) {
				if _, tok := v.Type.(*ir.TokenType); tok {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// annotated reports whether attrs[i] says how the value is sharded.
func annotated(attrs []ir.Attrs, i int) bool {
	if i >= len(attrs) {
		return false
	}
	_, sdy := attrs[i]["sdy.sharding"]
	_, gspmd := attrs[i]["mhlo.sharding"]
	return sdy || gspmd
}

// placementCalls are the custom calls that only move a value to another
// memory kind.
var placementCalls = map[string]bool{"annotate_device_placement": true, "MoveToHost": true, "MoveToDevice": true}

// passedParameter is the entry parameter that f returns unchanged as
// result i (through placementCalls only), or -1.
func passedParameter(f *ir.Func, i int) int {
	if f.Body == nil || len(f.Body.Blocks) == 0 {
		return -1
	}
	entry := f.Body.Blocks[0]
	ret := entry.Terminator()
	if ret == nil || i >= len(ret.Operands) {
		return -1
	}
	v := ret.Operands[i]
	for v.Def != nil {
		target, _ := v.Def.Attrs.Str("call_target_name")
		if v.Def.Name != "stablehlo.custom_call" || !placementCalls[target] || len(v.Def.Operands) != 1 {
			return -1
		}
		v = v.Def.Operands[0]
	}
	if v.Block != entry {
		return -1
	}
	return v.Index
}

// shardType is partition p's type for a value of global type t, sharded by
// s over mesh m.
func shardType(s *shardy.Sharding, m *shardy.Mesh, t ir.Type, p int) (ir.Type, error) {
	tt, ok := t.(*ir.TensorType)
	if !ok || s == nil {
		return t, nil
	}
	shape, _, err := s.ShardOf(m, tt.Shape, p)
	if err != nil {
		return nil, err
	}
	return ir.Tensor(tt.Elem, shape...), nil
}

// allocFor allocates a dense buffer for type t (tokens get no memory).
func allocFor(t ir.Type) ([]byte, error) {
	b, err := devmem.Alloc(int(TypeBytes(t)))
	if err != nil {
		return nil, WithCode(CodeResourceExhausted, err)
	}
	return b, nil
}

// executeSPMD runs an SPMD program once on global arrays (see the top of
// this file). args[d] are the shards of device d = e.addressable[d].
// given (nil for none) cancels the run at a step boundary, as for a run on
// one device (ExecuteOptions.Cancel).
func (e *Executable) executeSPMD(args [][]*Buffer, nonDon nonDonatable, userData []UserData, given *cancel.Token) ([][]*Buffer, []*Event, error) {
	plan := e.spmd
	if len(args) != len(e.addressable) {
		return nil, nil, Errorf(CodeInvalidArgument, "Execute: %d argument lists for %d devices", len(args), len(e.addressable))
	}
	for d, list := range args {
		if len(list) != len(e.inTypes) {
			return nil, nil, Errorf(CodeInvalidArgument, "Execute: device %d got %d arguments, program %q takes %d", d, len(list), e.Name(), len(e.inTypes))
		}
		p := e.logical[d][1]
		for i, b := range list {
			if b == nil {
				return nil, nil, Errorf(CodeInvalidArgument, "Execute: argument %d of device %d is NULL", i, d)
			}
			want, err := shardType(plan.args[i], plan.meshOf(plan.args[i]), e.inTypes[i], p)
			if err != nil {
				return nil, nil, Errorf(CodeInvalidArgument, "Execute: argument %d: %v", i, err)
			}
			if !b.matchesType(want) {
				return nil, nil, Errorf(CodeInvalidArgument, "Execute: argument %d of device %d has type %v, partition %d of %q expects %v", i, d, b.Type(), p, e.Name(), want)
			}
			if plan.donate[i] && !nonDon.has(i) && occurrences(list, b) > 1 {
				return nil, nil, Errorf(CodeInvalidArgument, "Execute: argument %d of program %q is donated, but the same buffer is passed as another argument of this call", i, e.Name())
			}
		}
	}
	// Host callbacks (debug.print, pure_callback, io_callback) find JAX's
	// callables in the user data of this call, as on one device; every
	// partition of the run, manual computation bodies included, reads the
	// same table.
	callbacks := false
	if hp, ok := e.prog.(hostCallbackProgram); ok && hp.HostCallbacks() != nil && hp.HostCallbacks().Used() {
		if err := installHostCallbacks(hp.HostCallbacks(), userData); err != nil {
			return nil, nil, err
		}
		callbacks = hp.HostCallbacks().CallbacksUsed()
	}
	outs := make([][]*Buffer, len(args))
	events := make([]*Event, len(args))
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
		for i, b := range list {
			if err := b.holdArg("Execute argument", i); err != nil {
				undo()
				return nil, nil, err
			}
			held = append(held, b)
		}
		p := e.logical[d][1]
		for i, t := range e.outTypes {
			st, err := shardType(plan.outs[i], plan.meshOf(plan.outs[i]), t, p)
			if err != nil {
				undo()
				return nil, nil, Errorf(CodeInvalidArgument, "Execute: result %d: %v", i, err)
			}
			nb, err := newResultBuffer(e.outMemory(e.addressable[d], i), st)
			if err != nil {
				undo()
				return nil, nil, err
			}
			nb.local = true
			created = append(created, nb)
			outs[d] = append(outs[d], nb)
		}
		events[d] = NewEvent()
	}
	// Donated arguments read as deleted from now on, as on XLA:CPU. The run
	// still reads them under its holds, and their memory goes when it lets
	// go: results are cut from global arrays, so none reuses an argument.
	for _, list := range args {
		for i, b := range list {
			if plan.donate[i] && !nonDon.has(i) {
				b.donate()
			}
		}
	}
	counters.executions.Add(1)
	// The job's processes number their runs of a program alike, in call
	// order, so that each message names the run it belongs to.
	seq, ticket := e.client.nextRun(e.jobKey, len(e.remote) > 0, e.parts)
	// The run's token, as on one device: on the calling thread one that
	// also polls for Ctrl-C (unless given), on a goroutine one cancelled
	// once every device's outputs are deleted.
	tok, polls := given, false
	if tok == nil {
		switch {
		case callbacks:
			tok, polls = cancel.New(true), true
		case e.spmd.effects:
			// jaxlib keeps a side-effecting run's completion token and
			// raises its error at the next effects barrier: such a run is
			// not abandoned when its outputs go.
			tok = cancel.New(false)
		default:
			var all []*Buffer
			for _, list := range outs {
				all = append(all, list...)
			}
			tok = abandonOnDelete(all)
		}
	}
	finish := func() {
		var running time.Duration
		var err error
		tok.Begin()
		if e.parts != nil {
			err = e.runPartitioned(args, outs, seq, ticket, &running, tok, polls)
		} else {
			err = e.runSPMD(args, outs, seq, &running, tok)
		}
		tok.End()
		for _, b := range held {
			b.unhold()
		}
		countExecutionEnd(running, err)
		for d := range outs {
			if err != nil {
				for _, o := range outs[d] {
					if !o.ready.IsReady() {
						o.fail(err)
					}
				}
			}
			events[d].Set(err)
		}
	}
	if callbacks {
		// As on one device, a program with host callbacks runs on the
		// caller's thread: a callback takes the GIL, which the caller may be
		// waiting to get back, and effects stay in call order.
		finish()
		if err := syncRunError(outs, events); err != nil {
			return nil, nil, err
		}
		return outs, events, nil
	}
	go finish()
	return outs, events, nil
}

// holder is the addressable device whose copy of a value sharded by s is
// read: the maximal mesh's device, else the first.
func (e *Executable) holder(s *shardy.Sharding) int {
	if s == nil || s.Mesh == nil {
		return 0
	}
	if p, ok := s.Mesh.Maximal(); ok {
		for d := range e.addressable {
			if e.logical[d][1] == p {
				return d
			}
		}
	}
	return 0
}

func (e *Executable) runSPMD(args [][]*Buffer, outs [][]*Buffer, seq uint64, running *time.Duration, tok *cancel.Token) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = Errorf(CodeInternal, "execution of %q panicked: %v", e.Name(), r)
		}
	}()
	plan := e.spmd
	for _, list := range args {
		for i, b := range list {
			if werr := b.ready.Wait(); werr != nil {
				return WithCode(CodeFailedPrecondition, fmt.Errorf("argument %d of %q is not available: %w", i, e.Name(), werr))
			}
		}
	}
	// Exchange before taking a run slot: a run waiting on a peer must not
	// hold a slot a run the peer waits on needs.
	var remote [][][]byte // [remote device][argument] shard bytes
	if len(e.remote) > 0 {
		var rerr error
		if remote, rerr = e.exchangeShards(args, seq); rerr != nil {
			return rerr
		}
	}
	e.client.slots.acquire()
	start := time.Now()
	defer func() {
		*running = time.Since(start)
		e.client.slots.release()
	}()

	global := make([][]byte, len(e.inTypes))
	var temps [][]byte
	defer func() {
		for _, t := range temps {
			devmem.Free(t)
		}
	}()
	for i, t := range e.inTypes {
		s := plan.args[i]
		tt, isTensor := t.(*ir.TensorType)
		if _, maximal := plan.meshOf(s).Maximal(); s == nil || !isTensor || maximal {
			// Replicated, or on a maximal mesh's one device.
			data, berr := args[e.holder(s)][i].bytes()
			if berr != nil {
				return WithCode(CodeFailedPrecondition, berr)
			}
			global[i] = data
			continue
		}
		g, aerr := allocFor(t)
		if aerr != nil {
			return aerr
		}
		temps = append(temps, g)
		// Holders' blocks first: an argument unreduced along some axes is
		// the sum (max, min) of the blocks along them, which the others
		// then combine with.
		type shard struct {
			p    int
			data []byte
		}
		var shards []shard
		for d, list := range args {
			data, berr := list[i].bytes()
			if berr != nil {
				return WithCode(CodeFailedPrecondition, berr)
			}
			shards = append(shards, shard{e.logical[d][1], data})
		}
		for d, r := range remote {
			shards = append(shards, shard{e.remoteLogical[d][1], r[i]})
		}
		m := plan.meshOf(s)
		for _, pass := range []bool{true, false} {
			for _, sh := range shards {
				if s.Holder(m, sh.p) != pass {
					continue
				}
				if !pass && !representative(s, m, sh.p) {
					// A copy of another device's partial value (the
					// value is replicated along an axis it differs in):
					// combined once.
					continue
				}
				shape, off, serr := s.ShardOf(m, tt.Shape, sh.p)
				if serr != nil {
					return WithCode(CodeInvalidArgument, serr)
				}
				if pass {
					shardy.CopyBlock(g, sh.data, tt.Shape, shape, off, int64(tt.Elem.ByteSize()), true)
					continue
				}
				sum := make([]byte, len(sh.data))
				shardy.CopyBlock(g, sum, tt.Shape, shape, off, int64(tt.Elem.ByteSize()), false)
				if aerr := combineInto(sum, sh.data, tt.Elem, s.Reduction); aerr != nil {
					return WithCode(CodeUnimplemented, fmt.Errorf("argument %d of %q is unreduced: %w", i, e.Name(), aerr))
				}
				shardy.CopyBlock(g, sum, tt.Shape, shape, off, int64(tt.Elem.ByteSize()), true)
			}
		}
		global[i] = g
	}
	var res *compiler.RunResult
	var rerr error
	if cp, ok := e.prog.(cancellableProgram); ok && tok != nil {
		res, rerr = cp.RunCancel(global, make([]bool, len(global)), tok)
	} else {
		res, rerr = e.prog.Run(global, make([]bool, len(global)))
	}
	if rerr != nil {
		if cerr := tok.Err(); cerr != nil {
			return &Error{Code: CodeCancelled, Err: fmt.Errorf("execution of %q: %w", e.Name(), cerr)}
		}
		return WithCode(CodeInternal, rerr)
	}
	if res == nil || len(res.Outputs) != len(e.outTypes) {
		if res != nil {
			freeUnaliased(res)
		}
		return Errorf(CodeInternal, "%q produced the wrong number of outputs", e.Name())
	}
	for _, o := range res.Outputs {
		temps = append(temps, o)
	}
	for i, t := range e.outTypes {
		if int64(len(res.Outputs[i])) != TypeBytes(t) {
			return Errorf(CodeInternal, "%q output %d has %d bytes, expected %d", e.Name(), i, len(res.Outputs[i]), TypeBytes(t))
		}
		tt, isTensor := t.(*ir.TensorType)
		for d := range outs {
			o := outs[d][i]
			buf, aerr := allocFor(o.Type())
			if aerr != nil {
				return aerr
			}
			if isTensor && plan.outs[i] != nil {
				s, p := plan.outs[i], e.logical[d][1]
				shape, off, serr := s.ShardOf(plan.meshOf(s), tt.Shape, p)
				if serr != nil {
					devmem.Free(buf)
					return WithCode(CodeInvalidArgument, serr)
				}
				if s.Holder(plan.meshOf(s), p) || s.Reduction != "sum" {
					shardy.CopyBlock(res.Outputs[i], buf, tt.Shape, shape, off, int64(tt.Elem.ByteSize()), false)
				} else {
					// Unreduced: the holder's block is the whole sum.
					clear(buf)
				}
			} else {
				copy(buf, res.Outputs[i])
			}
			o.setData(buf, ownDevmem, nil)
		}
	}
	return nil
}

// representative reports whether partition p sits at coordinate 0 of every
// mesh axis the sharding neither cuts along nor holds unreduced: of the
// devices holding copies of one block, the one whose partial value counts.
func representative(s *shardy.Sharding, m *shardy.Mesh, p int) bool {
	for _, a := range m.Axes {
		if !s.Uses(a.Name) && !s.UnreducedOn(a.Name) && m.Coord(p, a.Name) != 0 {
			return false
		}
	}
	return true
}

// opSharding encodes a sharding as a serialized xla.OpSharding: REPLICATED
// (the empty message), MAXIMAL on a maximal mesh's device, or OTHER with a
// tile assignment over logical device ids (= partition numbers), devices of
// one tile in mesh order. Mesh axes the sharding does not split along become
// trailing tile dimensions, as XLA:CPU reports them: first the unreduced ones
// (last_tile_dims UNREDUCED, with the reduction op in the metadata), then
// the replicated ones.
func opSharding(s *shardy.Sharding, m *shardy.Mesh) []byte {
	if s == nil {
		return []byte{}
	}
	if dev, ok := m.Maximal(); ok {
		out := appendVarintField(nil, 1, 1) // type: MAXIMAL
		return appendBytesField(out, 4, binary.AppendUvarint(nil, uint64(dev)))
	}
	counts := make([]int, len(s.Dims))
	total := 1
	for d, axes := range s.Dims {
		counts[d] = 1
		for _, a := range axes {
			counts[d] *= a.Size
		}
		total *= counts[d]
	}
	var unreduced []shardy.Axis // in mesh order
	unred := 1
	for _, a := range m.Axes {
		if s.UnreducedOn(a.Name) {
			unreduced = append(unreduced, a)
			unred *= a.Size
		}
	}
	if total*unred == 1 {
		return []byte{}
	}
	rep := m.Size() / (total * unred)
	devices := make([]int64, m.Size())
	filled := make([]int, total*unred)
	for pos := 0; pos < m.Size(); pos++ {
		p := m.Device(pos)
		flat := 0
		for d, axes := range s.Dims {
			idx := 0
			for _, a := range axes {
				idx = idx*a.Size + m.AxisCoord(p, a)
			}
			flat = flat*counts[d] + idx
		}
		for _, a := range unreduced {
			flat = flat*a.Size + m.Coord(p, a.Name)
		}
		devices[flat*rep+filled[flat]] = int64(p)
		filled[flat]++
	}
	var dims, devs []byte
	for _, c := range counts {
		dims = binary.AppendUvarint(dims, uint64(c))
	}
	if unred > 1 {
		dims = binary.AppendUvarint(dims, uint64(unred))
	}
	if rep > 1 {
		dims = binary.AppendUvarint(dims, uint64(rep))
	}
	for _, d := range devices {
		devs = binary.AppendUvarint(devs, uint64(d))
	}
	out := appendVarintField(nil, 1, 3) // type: OTHER
	out = appendBytesField(out, 3, dims)
	out = appendBytesField(out, 4, devs)
	if unred == 1 {
		if rep > 1 {
			out = appendVarintField(out, 6, 1) // replicate_on_last_tile_dim
		}
		return out
	}
	meta := appendBytesField(nil, 1, []byte("sdy::reduction_op"))          // op_type
	meta = appendBytesField(meta, 2, []byte(strings.ToUpper(s.Reduction))) // op_name: SUM, MAX, MIN
	out = appendBytesField(out, 7, meta)
	last := binary.AppendUvarint(nil, 6) // UNREDUCED
	if rep > 1 {
		last = binary.AppendUvarint(last, 0) // REPLICATED
	}
	return appendBytesField(out, 8, last) // last_tile_dims
}

// ParameterShardings returns each parameter's serialized xla.OpSharding, or
// false when the program is not partitioned (the framework then assumes its
// defaults).
func (e *Executable) ParameterShardings() ([][]byte, bool) {
	if e.spmd == nil {
		return nil, false
	}
	out := make([][]byte, len(e.spmd.args))
	for i, s := range e.spmd.args {
		out[i] = opSharding(s, e.spmd.meshOf(s))
	}
	return out, true
}

// OutputShardings is ParameterShardings for the results.
func (e *Executable) OutputShardings() ([][]byte, bool) {
	if e.spmd == nil {
		return nil, false
	}
	if len(e.spmd.outs) == 0 {
		// A program without results returns an empty tuple, whose one
		// sharding frameworks expect in its place.
		return [][]byte{{}}, true
	}
	out := make([][]byte, len(e.spmd.outs))
	for i, s := range e.spmd.outs {
		out[i] = opSharding(s, e.spmd.meshOf(s))
	}
	return out, true
}
