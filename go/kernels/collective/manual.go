package collective

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/gojax/gojax/go/internal/fpmode"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/gojax/gojax/go/kernels/reduce"
	"github.com/gojax/gojax/go/shardy"
)

// lowerManualComputation compiles sdy.manual_computation (shard_map). gojax
// runs the global program, so the body runs once per device of the mesh:
// partition p gets the block of each operand cut along the manual axes at
// p's coordinates, whole along the free axes (those left to the partitioner,
// which stay global inside the body), and the partitions run concurrently so
// their collectives, whose ids are devices of the whole mesh, can meet. The
// devices of one manual group that differ only along free axes compute the
// same values. The blocks of each result are joined per out_shardings; a
// result not split along a manual axis (a replica) is taken from coordinate
// 0 of it.
//
// Inside another manual computation's partition (a nested one, or the axis
// index JAX emits for a free axis) no new partitions start: the partition
// cuts its own block, runs the body, and the peers exchange their result
// blocks so each holds the joined result again. The compiler's Shardy pass
// attaches the mesh (gojax.mesh) and inlines computations over one device.
func lowerManualComputation(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	pc, ok := ctx.(kernel.PartitionContext)
	if !ok {
		return nil, op.Errorf("the compiler offers no partitioned compilation")
	}
	meshAttr, ok := op.Attrs["gojax.mesh"].(ir.OpaqueAttr)
	name, _ := op.Attrs.Str("gojax.mesh_name")
	if !ok || name == "" {
		return nil, op.Errorf("mesh not resolved (the compiler's Shardy pass did not run)")
	}
	mesh, err := shardy.ParseMesh(meshAttr.Text)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	meshes := map[string]*shardy.Mesh{name: mesh}
	manualNames, err := manualAxisNames(op)
	if err != nil {
		return nil, err
	}
	manual := func(axis string) bool { return manualNames[axis] }
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
		return nil, op.Errorf("expected one single-block region")
	}
	body := op.Regions[0].Blocks[0]
	term := body.Terminator()
	if len(body.Args) != len(op.Operands) || term == nil || len(term.Operands) != len(op.Results) {
		return nil, op.Errorf("region signature does not match the op's operands and results")
	}
	n := mesh.Size()

	inSh, inUnred, err := shardingList(op, "in_shardings", meshes, op.Operands)
	if err != nil {
		return nil, err
	}
	outSh, outUnred, err := shardingList(op, "out_shardings", meshes, op.Results)
	if err != nil {
		return nil, err
	}
	ins, err := blocks(op, "operand", op.Operands, inSh, body.Args, mesh, manual)
	if err != nil {
		return nil, err
	}
	outs, err := blocks(op, "result", op.Results, outSh, term.Operands, mesh, manual)
	if err != nil {
		return nil, err
	}
	// An operand unreduced along manual axes is the sum of the partitions'
	// blocks: the one at coordinate 0 of those axes gets the value, the
	// others zeros. Combined by max or min, every partition gets the value.
	for i := range ins {
		unred := manualOnly(inUnred[i], manual)
		if ins[i].global == nil || len(unred) == 0 || inSh[i] != nil && inSh[i].Reduction != "sum" {
			continue
		}
		ins[i].zero = make([]bool, n)
		for p := range ins[i].zero {
			for _, a := range unred {
				ins[i].zero[p] = ins[i].zero[p] || mesh.Coord(p, a) != 0
			}
		}
	}
	// sources[j][p]: the partitions whose blocks of result j make up the
	// whole result partition p sees, in lists whose blocks sum to one block
	// (a result unreduced along manual axes sums them; other lists hold one).
	sources := make([][][][]int, len(op.Results))
	adders := make([]*reducer, len(op.Results))
	for j := range op.Results {
		unred := manualOnly(outUnred[j], manual)
		if len(unred) > 0 && outs[j].global != nil {
			if adders[j], err = combiner(ctx, op, outs[j].global.Elem, outSh[j].Reduction); err != nil {
				return nil, err
			}
		}
		sources[j] = make([][][]int, n)
		for p := 0; p < n; p++ {
			byBlock := map[int]int{} // partition at coordinate 0 of the unreduced axes -> list
			for q := 0; q < n; q++ {
				if !source(mesh, p, q, manual, outSh[j], unred) {
					continue
				}
				key := q
				for _, a := range unred {
					key = withCoord(mesh, key, a, 0)
				}
				k, ok := byBlock[key]
				if !ok {
					k = len(sources[j][p])
					byBlock[key] = k
					sources[j][p] = append(sources[j][p], nil)
				}
				sources[j][p][k] = append(sources[j][p][k], q)
			}
		}
	}
	if part := pc.Partition(); part != nil {
		if _, grid := grids.Load(part.Meet); grid || part.Count != n {
			return nil, op.Errorf("a manual computation over %d devices nested in a partition of %d processes", n, part.Count)
		}
		return nestedManual(op, pc, part, ins, outs, sources, adders)
	}

	meet := kernel.NewRendezvous(n)
	bodies := make([]kernel.Callable, n)
	localIn := make([][][]byte, n)
	localOut := make([][][]byte, n)
	for p := 0; p < n; p++ {
		if bodies[p], err = pc.CompileRegionAs(op.Regions[0], &kernel.Partition{Self: p, Count: n, Meet: meet}); err != nil {
			return nil, err
		}
		localIn[p] = localBuffers(ins)
		localOut[p] = localBuffers(outs)
	}
	var mu sync.Mutex // one run at a time: the buffers and the rendezvous are per op
	errs := make([]error, n)
	return func(gin, gout [][]byte) error {
		mu.Lock()
		defer mu.Unlock()
		meet.Reset()
		csr := fpmode.Current() // partitions run in the run's floating-point mode
		var wg sync.WaitGroup
		for p := 0; p < n; p++ {
			wg.Add(1)
			go func(p int) {
				defer wg.Done()
				prev := fpmode.EnterAs(csr)
				defer fpmode.Exit(prev)
				defer func() {
					if r := recover(); r != nil {
						errs[p] = op.Errorf("partition %d panicked: %v", p, r)
						meet.Abort()
					}
				}()
				for i, b := range ins {
					b.cut(gin[i], localIn[p][i], p)
				}
				if errs[p] = bodies[p].Call(localIn[p], localOut[p]); errs[p] != nil {
					meet.Abort()
					return
				}
				// Blocks that are copied whole go to the result from here,
				// in parallel; sums of several wait for every partition.
				for j, b := range outs {
					for _, l := range sources[j][0] {
						if l[0] == p && (len(l) == 1 || adders[j] == nil) {
							b.join(gout[j], localOut[p][j], p)
						}
					}
				}
			}(p)
		}
		wg.Wait()
		var first error
		for p, e := range errs {
			if e != nil && (first == nil || errors.Is(first, kernel.ErrAborted)) {
				first = fmt.Errorf("partition %d: %w", p, e)
			}
			errs[p] = nil
		}
		if first != nil {
			return first
		}
		for j, b := range outs {
			// Every partition sees the same whole result here; partition 0's
			// sources assemble it. The partitions copied the single blocks.
			if adders[j] == nil {
				continue
			}
			if err := b.assemble(gout[j], sources[j][0], adders[j], func(q int) []byte { return localOut[q][j] }, true); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// nestedManual runs a manual computation inside partition part of an
// enclosing one over the same devices.
func nestedManual(op *ir.Op, pc kernel.PartitionContext, part *kernel.Partition, ins, outs []block, sources [][][][]int, adders []*reducer) (kernel.Step, error) {
	fn, err := pc.CompileRegionAs(op.Regions[0], part)
	if err != nil {
		return nil, err
	}
	p := part.Self
	localIn, localOut := localBuffers(ins), localBuffers(outs)
	return func(gin, gout [][]byte) error {
		for i, b := range ins {
			b.cut(gin[i], localIn[i], p)
		}
		if err := fn.Call(localIn, localOut); err != nil {
			return err
		}
		for j, b := range outs {
			if b.global == nil {
				continue
			}
			var aerr error
			if err := part.Meet.Exchange(p, localOut[j], func(all [][]byte) {
				aerr = b.assemble(gout[j], sources[j][p], adders[j], func(q int) []byte { return all[q] }, false)
			}); err != nil {
				return err
			}
			if aerr != nil {
				return aerr
			}
		}
		return nil
	}, nil
}

// source reports whether partition q holds a block of the result partition p
// sees: q agrees with p on every axis the computation leaves free, and along
// each manual axis the result is neither split on nor unreduced along (a
// replica) q sits at 0.
func source(m *shardy.Mesh, p, q int, manual func(string) bool, sh *shardy.Sharding, unreduced []string) bool {
	for _, a := range m.Axes {
		cq := m.Coord(q, a.Name)
		switch {
		case !manual(a.Name):
			if cq != m.Coord(p, a.Name) {
				return false
			}
		case !sh.Uses(a.Name) && !slices.Contains(unreduced, a.Name):
			if cq != 0 {
				return false
			}
		}
	}
	return true
}

// withCoord is partition p moved to coordinate c along axis.
func withCoord(m *shardy.Mesh, p int, axis string, c int) int {
	q := 0
	for _, a := range m.Axes {
		x := m.Coord(p, a.Name)
		if a.Name == axis {
			x = c
		}
		q = q*a.Size + x
	}
	return q
}

func manualOnly(axes []string, manual func(string) bool) []string {
	var out []string
	for _, a := range axes {
		if manual(a) {
			out = append(out, a)
		}
	}
	return out
}

// combiner is a reducer that combines elements of type et as an unreduced
// result along manual axes says (kind sum: add, or for pred; max; min).
func combiner(ctx kernel.Context, op *ir.Op, et ir.ElemType, kind string) (*reducer, error) {
	s := ir.Tensor(et)
	blk := ir.NewBlock(s, s)
	name := "stablehlo.add"
	switch {
	case kind == "max":
		name = "stablehlo.maximum"
	case kind == "min":
		name = "stablehlo.minimum"
	case et == ir.Pred:
		name = "stablehlo.or"
	}
	sum := blk.Append(ir.NewOp(name, []*ir.Value{blk.Args[0], blk.Args[1]}, []ir.Type{s}, nil))
	blk.Append(ir.NewOp("stablehlo.return", []*ir.Value{sum.Result()}, nil, nil))
	fn, err := ctx.CompileRegion(ir.NewRegion(blk))
	if err != nil {
		return nil, op.Errorf("combining an unreduced result: %v", err)
	}
	return &reducer{fn: fn, fold: reduce.Fold(blk.Region, et), es: et.ByteSize()}, nil
}

func localBuffers(bs []block) [][]byte {
	out := make([][]byte, len(bs))
	for i, b := range bs {
		if b.local != nil {
			out[i] = kernel.Make[byte](b.local.ByteSize())
		}
	}
	return out
}

// block is how one operand or result splits: its global and per-partition
// types and each partition's offset; both types are nil for a token, which
// carries no data. zero[p] (operands unreduced along a manual axis) gives
// partition p zeros.
type block struct {
	global, local *ir.TensorType
	offsets       [][]int64
	zero          []bool
}

// cut copies partition p's block of global into local.
func (b block) cut(global, local []byte, p int) {
	switch {
	case b.global == nil:
	case b.zero != nil && b.zero[p]:
		clear(local)
	default:
		shardy.CopyBlock(global, local, b.global.Shape, b.local.Shape, b.offsets[p], int64(b.global.Elem.ByteSize()), false)
	}
}

// assemble joins the blocks of partitions lists (see sources) into global;
// add sums the blocks of a list of several. With sumsOnly the single blocks
// are already there.
func (b block) assemble(global []byte, lists [][]int, add *reducer, local func(q int) []byte, sumsOnly bool) error {
	var sum []byte
	for _, l := range lists {
		if len(l) == 1 || add == nil {
			if !sumsOnly {
				b.join(global, local(l[0]), l[0])
			}
			continue
		}
		if sum == nil {
			sum = make([]byte, len(local(l[0])))
		}
		parts := make([][]byte, len(l))
		for i, q := range l {
			parts[i] = local(q)
		}
		if err := add.reduce(sum, parts); err != nil {
			return err
		}
		b.join(global, sum, l[0])
	}
	return nil
}

// join copies partition p's block local into global.
func (b block) join(global, local []byte, p int) {
	if b.global != nil {
		shardy.CopyBlock(global, local, b.global.Shape, b.local.Shape, b.offsets[p], int64(b.global.Elem.ByteSize()), true)
	}
}

func blocks(op *ir.Op, what string, vals []*ir.Value, sh []*shardy.Sharding, locals []*ir.Value, mesh *shardy.Mesh, manual func(string) bool) ([]block, error) {
	out := make([]block, len(vals))
	for i, v := range vals {
		g, l := v.Tensor(), locals[i].Tensor()
		if isToken(v.Type) && isToken(locals[i].Type) {
			continue
		}
		if g == nil || l == nil {
			return nil, op.Errorf("%s %d: %s outside and %s inside are not both tensors or both tokens", what, i, v.Type, locals[i].Type)
		}
		b := block{global: g, local: l, offsets: make([][]int64, mesh.Size())}
		for p := range b.offsets {
			shape, off, err := sh[i].BlockOf(mesh, g.Shape, p, manual)
			if err != nil {
				return nil, op.Errorf("%s %d: %v", what, i, err)
			}
			if !ir.TypesEqual(ir.Tensor(g.Elem, shape...), l) {
				return nil, op.Errorf("%s %d: partition block %v of %s does not match the body's %s", what, i, shape, g, l)
			}
			b.offsets[p] = off
		}
		out[i] = b
	}
	return out, nil
}

func isToken(t ir.Type) bool {
	_, ok := t.(*ir.TokenType)
	return ok
}

func shardingList(op *ir.Op, key string, meshes map[string]*shardy.Mesh, vals []*ir.Value) ([]*shardy.Sharding, [][]string, error) {
	out := make([]*shardy.Sharding, len(vals))
	unreduced := make([][]string, len(vals))
	a, ok := op.Attrs[key].(ir.OpaqueAttr)
	if !ok {
		if len(vals) == 0 {
			return out, unreduced, nil
		}
		return nil, nil, op.Errorf("%s missing", key)
	}
	parts, err := shardy.SplitPerValue(a.Text)
	if err != nil {
		return nil, nil, op.Errorf("%s: %v", key, err)
	}
	if len(parts) != len(vals) {
		return nil, nil, op.Errorf("%s has %d entries for %d values", key, len(parts), len(vals))
	}
	for i, p := range parts {
		t := vals[i].Tensor()
		if t == nil {
			continue
		}
		s, _, err := shardy.ParseSharding(p, meshes, t.Rank())
		if err != nil {
			return nil, nil, op.Errorf("%s %d: %v", key, i, err)
		}
		out[i] = s
		unreduced[i] = s.Unreduced
	}
	return out, unreduced, nil
}

func manualAxisNames(op *ir.Op) (map[string]bool, error) {
	a, ok := op.Attrs["manual_axes"].(ir.OpaqueAttr)
	if !ok {
		return nil, op.Errorf("manual_axes missing")
	}
	names, err := shardy.ParseManualAxes(a.Text)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	set := map[string]bool{}
	for _, n := range names {
		set[n] = true
	}
	return set, nil
}
