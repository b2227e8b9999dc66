package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gojax/gojax/go/ir"
)

// rewrittenOps are ops no kernel runs: the legacy pass rewrites them into
// ops that have kernels (listed in docs/ops.md).
var rewrittenOps = map[string]string{
	"stablehlo.einsum":             "rewritten by the compiler (legacy pass) into reduce, dot_general and transpose",
	"stablehlo.unary_einsum":       "rewritten by the compiler (legacy pass) into reduce and transpose",
	"stablehlo.torch_index_select": "rewritten by the compiler (legacy pass) into gather",
}

// rewriteLegacyOps replaces the deprecated ops StableHLO kept from MHLO
// (einsum, unary_einsum, torch_index_select; JAX never emits them) by the
// ops they stand for.
func rewriteLegacyOps(st *passState) error {
	repl := map[*ir.Value]*ir.Value{}
	rewritten := map[*ir.Op][]*ir.Op{}
	var err error
	st.entry.Body.Walk(func(op *ir.Op) bool {
		var ops []*ir.Op
		switch op.Name {
		case "stablehlo.einsum", "stablehlo.unary_einsum":
			ops, err = lowerEinsum(op, repl)
		case "stablehlo.torch_index_select":
			ops, err = lowerTorchIndexSelect(op, repl)
		default:
			return true
		}
		if err != nil {
			return false
		}
		for _, o := range ops {
			o.Loc, o.Block = op.Loc, op.Block
		}
		repl[op.Results[0]] = ops[len(ops)-1].Results[0]
		rewritten[op] = ops
		return true
	})
	if err != nil {
		return err
	}
	applyRewrites(st.entry.Body, rewritten, repl)
	return nil
}

// einsumSpec is a parsed einsum_config: one label per dimension of each
// operand and of the result ("..." expanded into fresh labels).
type einsumSpec struct {
	ins [][]rune
	out []rune
}

// parseEinsum reads "ab,bc->ac" (or "ab->ba" for one operand). Labels are
// letters; "..." stands for the dimensions the letters leave, aligned at the
// right as in numpy (the result's "..." takes the longest operand's).
func parseEinsum(config string, ranks []int) (einsumSpec, error) {
	var s einsumSpec
	lhs, out, ok := strings.Cut(strings.ReplaceAll(config, " ", ""), "->")
	if !ok {
		return s, fmt.Errorf("einsum_config %q has no \"->\"", config)
	}
	parts := strings.Split(lhs, ",")
	if len(parts) != len(ranks) {
		return s, fmt.Errorf("einsum_config %q names %d operands, the op has %d", config, len(parts), len(ranks))
	}
	ellipsis := 0
	for i, p := range parts {
		if n := strings.Count(p, "..."); n > 1 {
			return s, fmt.Errorf("einsum_config %q: operand %d has more than one \"...\"", config, i)
		} else if n == 1 {
			e := ranks[i] - (len(p) - 3)
			if e < 0 {
				return s, fmt.Errorf("einsum_config %q: operand %d has rank %d", config, i, ranks[i])
			}
			ellipsis = max(ellipsis, e)
		}
	}
	// Fresh labels for "..." dimensions: runes outside the letters.
	fresh := func(n int) []rune {
		r := make([]rune, n)
		for i := range r {
			r[i] = rune(0x10000 + ellipsis - n + i)
		}
		return r
	}
	expand := func(p string, rank int, what string) ([]rune, error) {
		before, after, has := strings.Cut(p, "...")
		var labels []rune
		for _, c := range before + after {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return nil, fmt.Errorf("einsum_config %q: %q is not a label", config, c)
			}
		}
		labels = append(labels, []rune(before)...)
		if has {
			labels = append(labels, fresh(rank-len(before)-len(after))...)
		}
		labels = append(labels, []rune(after)...)
		if rank >= 0 && len(labels) != rank {
			return nil, fmt.Errorf("einsum_config %q: %s has %d labels for rank %d", config, what, len(labels), rank)
		}
		return labels, nil
	}
	for i, p := range parts {
		l, err := expand(p, ranks[i], fmt.Sprintf("operand %d", i))
		if err != nil {
			return s, err
		}
		s.ins = append(s.ins, l)
	}
	outRank := len(out)
	if strings.Contains(out, "...") {
		outRank = len(out) - 3 + ellipsis
	}
	o, err := expand(out, outRank, "the result")
	if err != nil {
		return s, err
	}
	s.out = o
	return s, nil
}

func newOp(name string, ins []*ir.Value, out ir.Type, attrs ir.Attrs) *ir.Op {
	return ir.NewOp(name, ins, []ir.Type{out}, attrs)
}

// sumOver reduces x over dims with add (zero init); ops receives the new ops.
func sumOver(ops *[]*ir.Op, x *ir.Value, dims []int64) *ir.Value {
	if len(dims) == 0 {
		return x
	}
	t := x.Tensor()
	scalar := &ir.TensorType{Elem: t.Elem}
	zero := newOp("stablehlo.constant", nil, scalar,
		ir.Attrs{"value": &ir.ElementsAttr{Type: scalar, Data: make([]byte, t.Elem.ByteSize())}})
	var shape []int64
	for d, n := range t.Shape {
		if !slices.Contains(dims, int64(d)) {
			shape = append(shape, n)
		}
	}
	blk := ir.NewBlock(scalar, scalar)
	sum := blk.Append(newOp("stablehlo.add", []*ir.Value{blk.Args[0], blk.Args[1]}, scalar, nil))
	blk.Append(ir.NewOp("stablehlo.return", []*ir.Value{sum.Results[0]}, nil, nil))
	red := newOp("stablehlo.reduce", []*ir.Value{x, zero.Results[0]}, ir.Tensor(t.Elem, shape...),
		ir.Attrs{"dimensions": ir.DenseI64Attr{Values: slices.Clone(dims)}})
	red.AddRegion(ir.NewRegion(blk))
	sum.Loc, blk.Ops[1].Loc = red.Loc, red.Loc
	*ops = append(*ops, zero, red)
	return red.Results[0]
}

// transposeTo permutes x whose dims carry labels have into the order want.
func transposeTo(ops *[]*ir.Op, x *ir.Value, have, want []rune) *ir.Value {
	perm := make([]int64, len(want))
	identity := true
	for i, l := range want {
		perm[i] = int64(slices.Index(have, l))
		identity = identity && perm[i] == int64(i)
	}
	if identity {
		return x
	}
	t := x.Tensor()
	shape := make([]int64, len(perm))
	for i, p := range perm {
		shape[i] = t.Shape[p]
	}
	op := newOp("stablehlo.transpose", []*ir.Value{x}, ir.Tensor(t.Elem, shape...),
		ir.Attrs{"permutation": ir.DenseI64Attr{Values: perm}})
	*ops = append(*ops, op)
	return op.Results[0]
}

// lowerEinsum rewrites einsum/unary_einsum: each operand is first summed
// over the labels only it has (and the result lacks), then the two operands
// meet in one dot_general (shared labels the result keeps are its batch
// dimensions, the others are contracted), whose dims are transposed into the
// result's order.
func lowerEinsum(op *ir.Op, repl map[*ir.Value]*ir.Value) ([]*ir.Op, error) {
	rt := op.Results[0].Tensor()
	if rt == nil || len(op.Results) != 1 {
		return nil, op.Errorf("expected one tensor result")
	}
	var xs []*ir.Value
	var ranks []int
	for _, v := range op.Operands {
		v = resolve(repl, v)
		t := v.Tensor()
		if t == nil {
			return nil, op.Errorf("operands must be tensors")
		}
		if t.Elem != rt.Elem {
			return nil, op.Errorf("operand %s and result %s differ in element type", t, rt)
		}
		xs = append(xs, v)
		ranks = append(ranks, t.Rank())
	}
	config, _ := op.Attrs.Str("einsum_config")
	spec, err := parseEinsum(config, ranks)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	size := map[rune]int64{}
	for i, labels := range spec.ins {
		seen := map[rune]bool{}
		for d, l := range labels {
			if seen[l] {
				return nil, op.Errorf("einsum_config %q repeats a label in operand %d (a diagonal): not supported", config, i)
			}
			seen[l] = true
			n := xs[i].Tensor().Shape[d]
			if m, ok := size[l]; ok && m != n {
				return nil, op.Errorf("einsum_config %q: label dimension sizes %d and %d differ", config, m, n)
			}
			size[l] = n
		}
	}
	for d, l := range spec.out {
		n, ok := size[l]
		if !ok {
			return nil, op.Errorf("einsum_config %q: a result label is in no operand", config)
		}
		if slices.Contains(spec.out[:d], l) {
			return nil, op.Errorf("einsum_config %q repeats a result label", config)
		}
		if rt.Shape[d] != n {
			return nil, op.Errorf("result %s does not match einsum_config %q", rt, config)
		}
	}
	if len(spec.out) != rt.Rank() {
		return nil, op.Errorf("result %s does not match einsum_config %q", rt, config)
	}
	var ops []*ir.Op
	// Sum out labels only one operand has and the result drops.
	for i := range xs {
		var dims []int64
		var keep []rune
		for d, l := range spec.ins[i] {
			other := len(xs) == 2 && slices.Contains(spec.ins[1-i], l)
			if !other && !slices.Contains(spec.out, l) {
				dims = append(dims, int64(d))
			} else {
				keep = append(keep, l)
			}
		}
		xs[i] = sumOver(&ops, xs[i], dims)
		spec.ins[i] = keep
	}
	var have []rune
	res := xs[0]
	if len(xs) == 1 {
		have = spec.ins[0]
	} else {
		lhs, rhs := spec.ins[0], spec.ins[1]
		var lb, rb, lc, rc []int64
		var batch, lfree, rfree []rune
		for d, l := range lhs {
			j := slices.Index(rhs, l)
			switch {
			case j >= 0 && slices.Contains(spec.out, l):
				lb, rb = append(lb, int64(d)), append(rb, int64(j))
				batch = append(batch, l)
			case j >= 0:
				lc, rc = append(lc, int64(d)), append(rc, int64(j))
			default:
				lfree = append(lfree, l)
			}
		}
		for _, l := range rhs {
			if !slices.Contains(lhs, l) {
				rfree = append(rfree, l)
			}
		}
		have = slices.Concat(batch, lfree, rfree)
		shape := make([]int64, len(have))
		for i, l := range have {
			shape[i] = size[l]
		}
		dot := newOp("stablehlo.dot_general", []*ir.Value{xs[0], xs[1]}, ir.Tensor(rt.Elem, shape...), ir.Attrs{
			"lhs_batching_dimensions":    ir.DenseI64Attr{Values: lb},
			"rhs_batching_dimensions":    ir.DenseI64Attr{Values: rb},
			"lhs_contracting_dimensions": ir.DenseI64Attr{Values: lc},
			"rhs_contracting_dimensions": ir.DenseI64Attr{Values: rc},
		})
		ops = append(ops, dot)
		res = dot.Results[0]
	}
	res = transposeTo(&ops, res, have, spec.out)
	if len(ops) == 0 || ops[len(ops)-1].Results[0] != res {
		// "ab->ab": the result is the operand; a copy keeps the op's value distinct.
		t := res.Tensor()
		c := newOp("stablehlo.reshape", []*ir.Value{res}, ir.Tensor(t.Elem, t.Shape...), nil)
		ops = append(ops, c)
	}
	return ops, nil
}

// lowerTorchIndexSelect rewrites torch_index_select into gather:
// result[b.., o.., i.., p..] = operand[b.., o.., index[b.., i..], p..],
// where b are the batch_dims leading dimensions operand and index share, o
// the operand's other dimensions before dim and p those after it.
func lowerTorchIndexSelect(op *ir.Op, repl map[*ir.Value]*ir.Value) ([]*ir.Op, error) {
	if len(op.Operands) != 2 || len(op.Results) != 1 {
		return nil, op.Errorf("expected 2 operands and 1 result")
	}
	x, idx := resolve(repl, op.Operands[0]), resolve(repl, op.Operands[1])
	xt, it, rt := x.Tensor(), idx.Tensor(), op.Results[0].Tensor()
	if xt == nil || it == nil || rt == nil {
		return nil, op.Errorf("operands and result must be tensors")
	}
	dim, ok1 := op.Attrs.Int("dim")
	batch, ok2 := op.Attrs.Int("batch_dims")
	if !ok1 || !ok2 || dim < 0 || int(dim) >= xt.Rank() || batch < 0 || batch > dim || int(batch) > it.Rank() {
		return nil, op.Errorf("dim / batch_dims out of range")
	}
	ir_ := it.Rank()
	var offset, collapsed, opBatch, idxBatch []int64
	sizes := slices.Clone(xt.Shape)
	for d := int64(0); d < batch; d++ {
		opBatch = append(opBatch, d)
		idxBatch = append(idxBatch, d)
		sizes[d] = 1
	}
	for d := batch; d < dim; d++ {
		offset = append(offset, d)
	}
	sizes[dim] = 1
	collapsed = append(collapsed, dim)
	for d := dim + 1; d < int64(xt.Rank()); d++ {
		offset = append(offset, d-1+int64(ir_)-batch)
	}
	g := newOp("stablehlo.gather", []*ir.Value{x, idx}, rt, ir.Attrs{
		"offset_dims":                 ir.DenseI64Attr{Values: offset},
		"collapsed_slice_dims":        ir.DenseI64Attr{Values: collapsed},
		"operand_batching_dims":       ir.DenseI64Attr{Values: opBatch},
		"start_indices_batching_dims": ir.DenseI64Attr{Values: idxBatch},
		"start_index_map":             ir.DenseI64Attr{Values: []int64{dim}},
		"index_vector_dim":            ir.IntAttr{Value: int64(ir_)},
		"slice_sizes":                 ir.DenseI64Attr{Values: sizes},
		"indices_are_sorted":          ir.BoolAttr{Value: false},
	})
	return []*ir.Op{g}, nil
}
