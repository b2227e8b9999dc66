// Package collective holds the kernels of StableHLO's cross-device ops
// (all_reduce, all_gather, reduce_scatter, all_to_all, collective_permute,
// collective_broadcast, partition_id, replica_id) and of Shardy's
// manual_computation, which runs its body once per SPMD partition.
//
// Outside a manual computation gojax runs one process: every group holds only
// that process, collectives reduce to copies, and an attribute naming another
// process is a compile error. Inside one, each partition's copy of the body
// meets its peers through a kernel.Rendezvous. A grid of replicas x
// partitions running whole programs (RegisterGrid) meets the same way; how
// ids name processes is in grid.go.
package collective

import (
	"encoding/binary"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/gojax/gojax/go/kernels/reduce"
	"github.com/gojax/gojax/go/shardy"
)

func init() {
	kernel.RegisterOp("stablehlo.all_reduce", lowerAllReduce, kernel.Traits{Cost: allReduceCost, Storage: true})
	kernel.Register("stablehlo.collective_reduce", lowerCollectiveReduce)
	kernel.RegisterOp("stablehlo.cross-replica-sum", lowerAllReduce, kernel.Traits{Cost: allReduceCost})
	kernel.RegisterOp("stablehlo.all_gather", lowerAllGather, kernel.Traits{Storage: true})
	kernel.RegisterOp("stablehlo.reduce_scatter", lowerReduceScatter, kernel.Traits{Storage: true})
	kernel.RegisterOp("stablehlo.all_to_all", lowerAllToAll, kernel.Traits{Storage: true})
	kernel.RegisterOp("stablehlo.collective_broadcast", lowerCollectiveBroadcast, kernel.Traits{Storage: true})
	kernel.RegisterOp("stablehlo.collective_permute", lowerCollectivePermute, kernel.Traits{Storage: true})
	kernel.Register("stablehlo.replica_id", lowerReplicaID)
	kernel.Register("stablehlo.partition_id", lowerPartitionID)
	kernel.Register("sdy.manual_computation", lowerManualComputation)
}

// comm is where one collective op runs: the partition (nil: the single
// process) and this process's group as flat process ids (see grid.go), in
// group order; group is nil when the process is in no group (it still takes
// part in every exchange, so the rendezvous stays in step).
type comm struct {
	part  *kernel.Partition
	group []int
	pos   int // index of this process in group
}

func partitionOf(ctx kernel.Context) *kernel.Partition {
	if pc, ok := ctx.(kernel.PartitionContext); ok {
		return pc.Partition()
	}
	return nil
}

// intList flattens an integer-list or integer-tensor attribute; dims is the
// tensor shape (nil for a list).
func intList(a ir.Attr) (vals, dims []int64, ok bool) {
	switch v := a.(type) {
	case ir.DenseI64Attr:
		return v.Values, nil, true
	case *ir.ElementsAttr:
		if v.Type == nil || !v.Type.Elem.IsInteger() {
			return nil, nil, false
		}
		out := make([]int64, v.Type.NumElements())
		for i := range out {
			out[i] = lowerutil.ReadIndex(v.Data, v.Type.Elem, i)
		}
		return out, v.Type.Shape, true
	}
	return nil, nil, false
}

// channelOnly ops name partitions exactly when they have a channel.
func channelOnly(name string) bool {
	switch name {
	case "stablehlo.all_to_all", "stablehlo.collective_permute", "stablehlo.collective_broadcast":
		return true
	}
	return false
}

// groupOf resolves replica_groups for this process; a process in no group is
// an error.
func groupOf(ctx kernel.Context, op *ir.Op) (*comm, error) {
	c, err := groupIn(ctx, op, false)
	if err == nil && c.group == nil {
		pr := procOf(ctx)
		return nil, op.Errorf("process (replica %d, partition %d) is in no replica group", pr.replica, pr.partition)
	}
	return c, err
}

// groupIn resolves replica_groups (mode per grid.go); with allowNone a
// process outside every group gets a nil group.
func groupIn(ctx kernel.Context, op *ir.Op, allowNone bool) (*comm, error) {
	pr := procOf(ctx)
	m := modeOf(op, channelOnly(op.Name))
	c := &comm{part: pr.part}
	var vals, dims []int64
	if a, ok := op.Attrs["replica_groups"]; ok {
		var okList bool
		if vals, dims, okList = intList(a); !okList {
			return nil, op.Errorf("replica_groups %s has an unexpected form", a)
		}
	}
	limit, self := pr.limit(m), pr.mine(m)
	flat := 0
	if pr.part != nil {
		flat = pr.part.Self
	}
	var groups [][]int
	if len(vals) == 0 { // no groups: every id together
		all := make([]int, limit)
		for i := range all {
			all[i] = i
		}
		groups = [][]int{all}
	}
	size := len(vals)
	if len(dims) == 2 {
		size = int(dims[1])
	}
	for g := 0; size > 0 && g+size <= len(vals); g += size {
		var members []int
		for _, id := range vals[g : g+size] {
			if id == -1 {
				continue
			}
			if id < 0 || id >= int64(limit) {
				return nil, op.Errorf("replica group names process %d of %d, but %s", id, limit, pr.describe(m))
			}
			members = append(members, int(id))
		}
		groups = append(groups, members)
	}
	for _, g := range groups {
		for _, id := range g {
			if id != self {
				continue
			}
			c.group = pr.members(m, g)
			for i, f := range c.group {
				if f == flat {
					c.pos = i
				}
			}
			return c, nil
		}
	}
	if !allowNone {
		return nil, op.Errorf("process (replica %d, partition %d) is in no replica group (%s)", pr.replica, pr.partition, m)
	}
	return c, nil
}

// exchange shares data with every partition (see kernel.Rendezvous) and
// calls read with the contributions of this partition's group, in order.
func (c *comm) exchange(data []byte, read func(group [][]byte)) error {
	if c.part == nil {
		read([][]byte{data})
		return nil
	}
	mine := make([][]byte, len(c.group))
	return c.part.Meet.Exchange(c.part.Self, data, func(all [][]byte) {
		if c.group == nil {
			read(nil)
			return
		}
		for i, p := range c.group {
			mine[i] = all[p]
		}
		read(mine)
	})
}

// reducer folds group contributions elementwise with the op's region: with
// a typed loop over whole blocks when the region is one recognized binary op
// (reduce.Fold), else by calling the region once per element.
type reducer struct {
	fn   kernel.Callable
	fold func(dst, src []byte)
	es   int
}

// foldBlock is the bytes reduced at a time: the block stays in cache while
// every contribution is folded into it.
const foldBlock = 32 << 10

// splitMin is the size from which the partitions of a group reduce a slice
// each and then copy their peers' slices (reduce-scatter then all-gather,
// one more rendezvous) instead of each reducing the whole buffer.
const splitMin = 256 << 10

func newReducer(ctx kernel.Context, op *ir.Op, et ir.ElemType) (*reducer, error) {
	if len(op.Regions) != 1 {
		if op.Name == "stablehlo.cross-replica-sum" {
			return nil, nil // sums; only ever one contribution (cross-replica)
		}
		return nil, op.Errorf("expected a reduction region")
	}
	fn, err := ctx.CompileRegion(op.Regions[0])
	if err != nil {
		return nil, err
	}
	return &reducer{fn: fn, fold: reduce.Fold(op.Regions[0], et), es: et.ByteSize()}, nil
}

// reduce writes fold(parts) into out, in group order (the same order on
// every partition, so all get bit-identical results); out may be one of
// parts.
func (r *reducer) reduce(out []byte, parts [][]byte) error {
	return r.reduceRange(out, parts, 0, len(out))
}

// reduceRange reduces bytes [lo, hi) of parts into out (element-aligned).
// Each block is folded in a scratch buffer and then copied, so out may alias
// a contribution.
func (r *reducer) reduceRange(out []byte, parts [][]byte, lo, hi int) error {
	if len(parts) == 1 {
		copy(out[lo:hi], parts[0][lo:hi])
		return nil
	}
	block := foldBlock / r.es * r.es
	acc := make([]byte, min(block, hi-lo))
	for b := lo; b < hi; b += block {
		e := min(b+block, hi)
		a := acc[:e-b]
		copy(a, parts[0][b:e])
		for _, p := range parts[1:] {
			if err := r.foldInto(a, p[b:e]); err != nil {
				return err
			}
		}
		copy(out[b:e], a)
	}
	return nil
}

// foldInto computes dst = region(dst, src) elementwise.
func (r *reducer) foldInto(dst, src []byte) error {
	if r.fold != nil {
		r.fold(dst, src)
		return nil
	}
	var acc [16]byte // the widest element (c128)
	ins, outs := make([][]byte, 2), [][]byte{acc[:r.es]}
	for e := 0; e < len(dst); e += r.es {
		ins[0], ins[1] = dst[e:e+r.es], src[e:e+r.es]
		if err := r.fn.Call(ins, outs); err != nil {
			return err
		}
		copy(dst[e:e+r.es], acc[:r.es])
	}
	return nil
}

// share returns the element-aligned byte range [lo, hi) of a buffer of size
// bytes that member pos of n reduces when the work is split.
func share(size, es, pos, n int) (lo, hi int) {
	elems := size / es
	return pos * elems / n * es, (pos + 1) * elems / n * es
}

func tensors(op *ir.Op) (ins, outs []*ir.TensorType, err error) {
	for i := range op.Operands {
		t, err := lowerutil.TensorOperand(op, i)
		if err != nil {
			return nil, nil, err
		}
		ins = append(ins, t)
	}
	for i := range op.Results {
		t, err := lowerutil.TensorResult(op, i)
		if err != nil {
			return nil, nil, err
		}
		outs = append(outs, t)
	}
	if len(ins) != len(outs) || len(ins) == 0 {
		return nil, nil, op.Errorf("expected as many results as operands, got %d and %d", len(outs), len(ins))
	}
	return ins, outs, nil
}

func lowerAllReduce(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	return lowerReduce(ctx, op, false)
}

// lowerCollectiveReduce: like all_reduce, but only the first process of each
// group (its root) gets the reduction; the others get zeros.
func lowerCollectiveReduce(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if r, ok := op.Attrs.Bool("has_dynamic_root"); ok && r {
		return nil, op.Errorf("has_dynamic_root is not supported")
	}
	return lowerReduce(ctx, op, true)
}

func lowerReduce(ctx kernel.Context, op *ir.Op, rootOnly bool) (kernel.Step, error) {
	c, err := groupOf(ctx, op)
	if err != nil {
		return nil, err
	}
	ins, outs, err := tensors(op)
	if err != nil {
		return nil, err
	}
	for i := range ins {
		if !ins[i].Equal(outs[i]) {
			return nil, op.Errorf("result %s differs from operand %s", outs[i], ins[i])
		}
	}
	var reducers []*reducer
	if len(c.group) > 1 {
		for _, t := range ins {
			r, err := newReducer(ctx, op, t.Elem)
			if err != nil {
				return nil, err
			}
			reducers = append(reducers, r)
		}
	}
	zeros := rootOnly && c.pos != 0
	// Large all_reduces split the work over the group (see splitMin); every
	// partition of the manual computation must take the same path, so the
	// choice depends only on the operand size, the same everywhere. Across
	// processes the second round would send every buffer again over the
	// network, which costs more than each partition reducing all of it.
	split := !rootOnly && c.part != nil && !c.part.Meet.Across()
	return func(in, out [][]byte) error {
		for i := range in {
			var rerr error
			if split && len(in[i]) >= splitMin {
				var r *reducer
				if reducers != nil {
					r = reducers[i]
				}
				if err := c.allReduceSplit(r, ins[i].Elem.ByteSize(), in[i], out[i]); err != nil {
					return err
				}
				continue
			}
			if err := c.exchange(in[i], func(parts [][]byte) {
				if zeros {
					clear(out[i])
					return
				}
				if reducers == nil {
					copy(out[i], parts[0])
					return
				}
				rerr = reducers[i].reduce(out[i], parts)
			}); err != nil {
				return err
			}
			if rerr != nil {
				return rerr
			}
		}
		return nil
	}, nil
}

// allReduceSplit reduces in over the group into out: each member reduces
// its share of the elements (in group order, as reduce does, so the bits are
// those of one partition reducing everything) into its own out, then copies
// the other shares from its peers' outs. Shares are disjoint, so no member
// writes what a peer reads in the same round, even when out aliases in.
// r is nil for a group of one.
func (c *comm) allReduceSplit(r *reducer, es int, in, out []byte) error {
	n := len(c.group)
	var rerr error
	if err := c.exchange(in, func(parts [][]byte) {
		if r == nil {
			copy(out, parts[0])
			return
		}
		lo, hi := share(len(in), es, c.pos, n)
		rerr = r.reduceRange(out, parts, lo, hi)
	}); err != nil {
		return err
	}
	// A failed share still takes part in the second round so the peers do
	// not wait forever; its error is returned after it.
	err := c.exchange(out, func(outs [][]byte) {
		for k, peer := range outs {
			if k != c.pos && r != nil {
				lo, hi := share(len(out), es, k, n)
				copy(out[lo:hi], peer[lo:hi])
			}
		}
	})
	if rerr != nil {
		return rerr
	}
	return err
}

// dimAttr reads an integer attribute naming a dimension of rank.
func dimAttr(op *ir.Op, name string, rank int) (int, error) {
	d, err := lowerutil.IntAttr(op, name)
	if err != nil {
		return 0, err
	}
	if d < 0 || int(d) >= rank {
		return 0, op.Errorf("%s %d is out of range for rank %d", name, d, rank)
	}
	return int(d), nil
}

func lowerAllGather(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	c, err := groupOf(ctx, op)
	if err != nil {
		return nil, err
	}
	ins, outs, err := tensors(op)
	if err != nil {
		return nil, err
	}
	dim, err := dimAttr(op, "all_gather_dim", ins[0].Rank())
	if err != nil {
		return nil, err
	}
	n := int64(len(c.group))
	for i := range ins {
		want := append([]int64(nil), ins[i].Shape...)
		want[dim] *= n
		if !lowerutil.SameShape(want, outs[i].Shape) || ins[i].Elem != outs[i].Elem {
			return nil, op.Errorf("result %s is not %d operands %s joined along dimension %d", outs[i], n, ins[i], dim)
		}
	}
	return func(in, out [][]byte) error {
		for i := range in {
			t := ins[i]
			off := make([]int64, t.Rank())
			if err := c.exchange(in[i], func(parts [][]byte) {
				for k, p := range parts {
					off[dim] = int64(k) * t.Shape[dim]
					shardy.CopyBlock(out[i], p, outs[i].Shape, t.Shape, off, int64(t.Elem.ByteSize()), true)
				}
			}); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

func lowerReduceScatter(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	c, err := groupOf(ctx, op)
	if err != nil {
		return nil, err
	}
	ins, outs, err := tensors(op)
	if err != nil {
		return nil, err
	}
	in, out := ins[0], outs[0]
	if len(ins) != 1 {
		return nil, op.Errorf("expected one operand")
	}
	dim, err := dimAttr(op, "scatter_dimension", in.Rank())
	if err != nil {
		return nil, err
	}
	n := int64(len(c.group))
	want := append([]int64(nil), in.Shape...)
	if want[dim]%n != 0 {
		return nil, op.Errorf("dimension %d of %s does not split into %d", dim, in, n)
	}
	want[dim] /= n
	if !lowerutil.SameShape(want, out.Shape) || in.Elem != out.Elem {
		return nil, op.Errorf("result %s is not a 1/%d block of %s along dimension %d", out, n, in, dim)
	}
	var red *reducer
	if n > 1 {
		if red, err = newReducer(ctx, op, in.Elem); err != nil {
			return nil, err
		}
	}
	es := int64(in.Elem.ByteSize())
	off := make([]int64, in.Rank())
	off[dim] = int64(c.pos) * out.Shape[dim]
	// This process's block of every contribution is one run of bytes when
	// the dimensions before dim are all 1; else it is gathered into tmp.
	contiguous := lowerutil.Numel(in.Shape[:dim]) == 1
	var tmp []byte
	if !contiguous && red != nil {
		tmp = kernel.Make[byte](out.ByteSize())
	}
	blk := int(out.ByteSize())
	return func(ins, outs [][]byte) error {
		var rerr error
		if err := c.exchange(ins[0], func(parts [][]byte) {
			if contiguous {
				mine := make([][]byte, len(parts))
				for k, p := range parts {
					mine[k] = p[c.pos*blk : (c.pos+1)*blk]
				}
				if red == nil {
					copy(outs[0], mine[0])
					return
				}
				rerr = red.reduce(outs[0], mine)
				return
			}
			shardy.CopyBlock(parts[0], outs[0], in.Shape, out.Shape, off, es, false)
			for _, p := range parts[1:] {
				shardy.CopyBlock(p, tmp, in.Shape, out.Shape, off, es, false)
				if rerr = red.foldInto(outs[0], tmp); rerr != nil {
					return
				}
			}
		}); err != nil {
			return err
		}
		return rerr
	}, nil
}

func lowerAllToAll(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	c, err := groupOf(ctx, op)
	if err != nil {
		return nil, err
	}
	ins, outs, err := tensors(op)
	if err != nil {
		return nil, err
	}
	sd, err := dimAttr(op, "split_dimension", ins[0].Rank())
	if err != nil {
		return nil, err
	}
	cd, err := dimAttr(op, "concat_dimension", ins[0].Rank())
	if err != nil {
		return nil, err
	}
	count, err := lowerutil.IntAttr(op, "split_count")
	if err != nil {
		return nil, err
	}
	n := int64(len(c.group))
	if count != n {
		return nil, op.Errorf("split_count %d differs from the group size %d", count, n)
	}
	chunks := make([][]int64, len(ins))
	for i, t := range ins {
		if t.Shape[sd]%n != 0 {
			return nil, op.Errorf("dimension %d of %s does not split into %d", sd, t, n)
		}
		ch := append([]int64(nil), t.Shape...)
		ch[sd] /= n
		want := append([]int64(nil), ch...)
		want[cd] *= n
		if !lowerutil.SameShape(want, outs[i].Shape) || t.Elem != outs[i].Elem {
			return nil, op.Errorf("result %s does not match all_to_all of %s", outs[i], t)
		}
		chunks[i] = ch
	}
	return func(in, out [][]byte) error {
		for i := range in {
			t, ch, es := ins[i], chunks[i], int64(ins[i].Elem.ByteSize())
			src := make([]int64, t.Rank())
			dst := make([]int64, t.Rank())
			src[sd] = int64(c.pos) * ch[sd]
			if err := c.exchange(in[i], func(parts [][]byte) {
				for k, p := range parts {
					dst[cd] = int64(k) * ch[cd]
					copyBetween(out[i], p, outs[i].Shape, t.Shape, ch, dst, src, es)
				}
			}); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// copyBetween copies the block of dimensions blk at offset so of a dense
// array src (dimensions sdims) to offset do of a dense array dst (ddims),
// es bytes an element, a run of contiguous bytes at a time.
func copyBetween(dst, src []byte, ddims, sdims, blk, do, so []int64, es int64) {
	rank := len(blk)
	if lowerutil.Numel(blk) == 0 {
		return
	}
	// The trailing dimensions the block spans whole in both arrays make one
	// run with the first dimension before them.
	inner := rank - 1
	for inner > 0 && blk[inner] == ddims[inner] && blk[inner] == sdims[inner] {
		inner--
	}
	run := es
	for d := inner; d < rank; d++ {
		run *= blk[d]
	}
	dstride, sstride := make([]int64, rank), make([]int64, rank)
	da, sa := es, es
	for d := rank - 1; d >= 0; d-- {
		dstride[d], sstride[d] = da, sa
		da, sa = da*ddims[d], sa*sdims[d]
	}
	idx := make([]int64, inner)
	for {
		var doff, soff int64
		for d := 0; d < rank; d++ {
			var x int64
			if d < inner {
				x = idx[d]
			}
			doff += (x + do[d]) * dstride[d]
			soff += (x + so[d]) * sstride[d]
		}
		copy(dst[doff:doff+run], src[soff:soff+run])
		d := inner - 1
		for ; d >= 0; d-- {
			if idx[d]++; idx[d] < blk[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

func lowerCollectiveBroadcast(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	c, err := groupIn(ctx, op, true)
	if err != nil {
		return nil, err
	}
	ins, outs, err := tensors(op)
	if err != nil {
		return nil, err
	}
	if !ins[0].Equal(outs[0]) || len(ins) != 1 {
		return nil, op.Errorf("result %s differs from operand %s", outs[0], ins[0])
	}
	return func(in, out [][]byte) error {
		return c.exchange(in[0], func(parts [][]byte) {
			if len(parts) == 0 {
				clear(out[0]) // in no group: zeros, per spec
				return
			}
			copy(out[0], parts[0])
		})
	}, nil
}

func lowerCollectivePermute(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	in, out, err := lowerutil.Unary(op)
	if err != nil {
		return nil, err
	}
	if !in.Equal(out) {
		return nil, op.Errorf("result %s differs from operand %s", out, in)
	}
	pairs, _, ok := intList(op.Attrs["source_target_pairs"])
	if !ok && op.Attrs["source_target_pairs"] != nil {
		return nil, op.Errorf("source_target_pairs %s has an unexpected form", op.Attrs["source_target_pairs"])
	}
	pr := procOf(ctx)
	m := modeOf(op, true)
	limit, self := pr.limit(m), pr.mine(m)
	source := -1
	targets := map[int64]bool{}
	for i := 0; i+1 < len(pairs); i += 2 {
		s, t := pairs[i], pairs[i+1]
		if s < 0 || t < 0 || s >= int64(limit) || t >= int64(limit) {
			if pr.part == nil {
				return nil, op.Errorf("source_target_pairs name process %d -> %d, but gojax runs a single process here", s, t)
			}
			return nil, op.Errorf("source_target_pairs name %d -> %d of %d, but %s", s, t, limit, pr.describe(m))
		}
		if targets[t] {
			return nil, op.Errorf("process %d is the target of two pairs", t)
		}
		targets[t] = true
		if t == int64(self) {
			source = int(s)
		}
	}
	// Every process takes part in the exchange; the source is a flat id.
	c := &comm{part: pr.part, group: []int{0}}
	if pr.part != nil {
		c.group = make([]int, pr.part.Count)
		for i := range c.group {
			c.group[i] = i
		}
	}
	if source >= 0 {
		source = pr.members(m, []int{source})[0]
	}
	return func(ins, outs [][]byte) error {
		return c.exchange(ins[0], func(all [][]byte) {
			if source < 0 {
				clear(outs[0]) // nothing is sent here: zeros, per spec
				return
			}
			copy(outs[0], all[source])
		})
	}, nil
}

func idStep(op *ir.Op, id int) (kernel.Step, error) {
	if len(op.Operands) != 0 || len(op.Results) != 1 {
		return nil, op.Errorf("expected no operands and 1 result")
	}
	out, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	if out.Rank() != 0 || out.Elem != ir.U32 {
		return nil, op.Errorf("result %s is not a ui32 scalar", out)
	}
	return func(ins, outs [][]byte) error {
		binary.LittleEndian.PutUint32(outs[0], uint32(id))
		return nil
	}, nil
}

func lowerReplicaID(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	return idStep(op, procOf(ctx).replica)
}

func lowerPartitionID(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	return idStep(op, procOf(ctx).partition)
}

// allReduceCost is XLA's estimate: one flop per result element, as if
// two replicas were summed.
func allReduceCost(op *ir.Op) kernel.Work {
	var n int64
	for _, r := range op.Results {
		n += kernel.Elements(r)
	}
	return kernel.Work{Flops: n}
}
