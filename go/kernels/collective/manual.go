package collective

import (
	"errors"
	"fmt"
	"github.com/gojax/gojax/go/internal/fpmode"
	"sync"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/gojax/gojax/go/shardy"
)

// lowerManualComputation compiles sdy.manual_computation (shard_map) over a
// mesh whose axes are all manual: the body is compiled once per partition;
// each run cuts every operand into per-partition blocks (in_shardings), runs
// the partitions concurrently so their collectives can meet, and joins the
// blocks of each result (out_shardings; a result not split along an axis is
// taken from the partitions at coordinate 0 of it). The compiler's Shardy
// pass attaches the mesh (gojax.mesh) and inlines computations over one
// device.
func lowerManualComputation(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	pc, ok := ctx.(kernel.PartitionContext)
	if !ok {
		return nil, op.Errorf("the compiler offers no partitioned compilation")
	}
	if pc.Partition() != nil {
		return nil, op.Errorf("nested manual computations are not supported")
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

	inSh, err := shardingList(op, "in_shardings", meshes, op.Operands)
	if err != nil {
		return nil, err
	}
	outSh, err := shardingList(op, "out_shardings", meshes, op.Results)
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
	// writes[j][p]: partition p supplies result j's block (it sits at
	// coordinate 0 of every manual axis the result is not split along).
	writes := make([][]bool, len(op.Results))
	for j := range op.Results {
		writes[j] = make([]bool, n)
		for p := 0; p < n; p++ {
			w := true
			for _, a := range mesh.Axes {
				if manual(a.Name) && !outSh[j].Uses(a.Name) && mesh.Coord(p, a.Name) != 0 {
					w = false
				}
			}
			writes[j][p] = w
		}
	}

	meet := kernel.NewRendezvous(n)
	bodies := make([]kernel.Callable, n)
	localIn := make([][][]byte, n)
	localOut := make([][][]byte, n)
	for p := 0; p < n; p++ {
		if bodies[p], err = pc.CompileRegionAs(op.Regions[0], &kernel.Partition{Self: p, Count: n, Meet: meet}); err != nil {
			return nil, err
		}
		for _, b := range ins {
			localIn[p] = append(localIn[p], kernel.Make[byte](b.local.ByteSize()))
		}
		for _, b := range outs {
			localOut[p] = append(localOut[p], kernel.Make[byte](b.local.ByteSize()))
		}
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
					shardy.CopyBlock(gin[i], localIn[p][i], b.global.Shape, b.local.Shape, b.offsets[p], int64(b.global.Elem.ByteSize()), false)
				}
				if errs[p] = bodies[p].Call(localIn[p], localOut[p]); errs[p] != nil {
					meet.Abort()
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
			for p := 0; p < n; p++ {
				if writes[j][p] {
					shardy.CopyBlock(gout[j], localOut[p][j], b.global.Shape, b.local.Shape, b.offsets[p], int64(b.global.Elem.ByteSize()), true)
				}
			}
		}
		return nil
	}, nil
}

// block is how one operand or result splits: its global and per-partition
// types and each partition's offset.
type block struct {
	global, local *ir.TensorType
	offsets       [][]int64
}

func blocks(op *ir.Op, what string, vals []*ir.Value, sh []*shardy.Sharding, locals []*ir.Value, mesh *shardy.Mesh, manual func(string) bool) ([]block, error) {
	out := make([]block, len(vals))
	for i, v := range vals {
		g, l := v.Tensor(), locals[i].Tensor()
		if g == nil || l == nil {
			return nil, op.Errorf("%s %d is not a tensor (tokens cannot cross a manual computation here)", what, i)
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

func shardingList(op *ir.Op, key string, meshes map[string]*shardy.Mesh, vals []*ir.Value) ([]*shardy.Sharding, error) {
	out := make([]*shardy.Sharding, len(vals))
	a, ok := op.Attrs[key].(ir.OpaqueAttr)
	if !ok {
		if len(vals) == 0 {
			return out, nil
		}
		return nil, op.Errorf("%s missing", key)
	}
	parts, err := shardy.SplitPerValue(a.Text)
	if err != nil {
		return nil, op.Errorf("%s: %v", key, err)
	}
	if len(parts) != len(vals) {
		return nil, op.Errorf("%s has %d entries for %d values", key, len(parts), len(vals))
	}
	for i, p := range parts {
		t := vals[i].Tensor()
		if t == nil {
			continue
		}
		s, _, err := shardy.ParseSharding(p, meshes, t.Rank())
		if err != nil {
			return nil, op.Errorf("%s %d: %v", key, i, err)
		}
		out[i] = s
	}
	return out, nil
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
