package shape

import (
	"encoding/binary"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// gojax runs one process: num_replicas = num_partitions = 1. Collectives
// over a group of that single process reduce to copies (or zeros for a
// collective_permute that sends nothing to it). Any attribute naming another
// process is a compile error. The compiler should also reject modules whose
// mhlo.num_replicas / mhlo.num_partitions exceed 1.
func init() {
	for _, name := range []string{"stablehlo.all_reduce", "stablehlo.all_gather", "stablehlo.reduce_scatter",
		"stablehlo.all_to_all", "stablehlo.collective_broadcast", "stablehlo.collective_reduce", "stablehlo.cross-replica-sum"} {
		kernel.Register(name, lowerSingleReplicaIdentity)
	}
	kernel.Register("stablehlo.collective_permute", lowerCollectivePermute)
	kernel.Register("stablehlo.replica_id", lowerZeroID)
	kernel.Register("stablehlo.partition_id", lowerZeroID)
}

// intList flattens an integer-list or integer-tensor attribute.
func intList(a ir.Attr) ([]int64, bool) {
	switch v := a.(type) {
	case ir.DenseI64Attr:
		return v.Values, true
	case *ir.ElementsAttr:
		if v.Type == nil || !v.Type.Elem.IsInteger() {
			return nil, false
		}
		out := make([]int64, v.Type.NumElements())
		for i := range out {
			out[i] = lowerutil.ReadIndex(v.Data, v.Type.Elem, i)
		}
		return out, true
	}
	return nil, false
}

// checkSingleProcess fails when replica_groups names any process but 0
// (-1 pads ragged groups).
func checkSingleProcess(op *ir.Op) error {
	a, ok := op.Attrs["replica_groups"]
	if !ok {
		return nil
	}
	ids, ok := intList(a)
	if !ok {
		return op.Errorf("replica_groups %s has an unexpected form", a)
	}
	for _, id := range ids {
		if id != 0 && id != -1 {
			return op.Errorf("replica group names process %d, but gojax runs a single process (num_replicas = num_partitions = 1)", id)
		}
	}
	return nil
}

func lowerSingleReplicaIdentity(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if err := checkSingleProcess(op); err != nil {
		return nil, err
	}
	if op.Name == "stablehlo.all_to_all" {
		if sc, ok := op.Attrs.Int("split_count"); ok && sc != 1 {
			return nil, op.Errorf("split_count %d needs %d processes; gojax runs one", sc, sc)
		}
	}
	if len(op.Operands) != len(op.Results) {
		return nil, op.Errorf("expected as many results as operands, got %d and %d", len(op.Results), len(op.Operands))
	}
	plans := make([]*copyPlan, len(op.Operands))
	for i := range op.Operands {
		in, err := lowerutil.TensorOperand(op, i)
		if err != nil {
			return nil, err
		}
		out, err := lowerutil.TensorResult(op, i)
		if err != nil {
			return nil, err
		}
		if !in.Equal(out) {
			return nil, op.Errorf("result %s differs from operand %s: the op needs more than one process", out, in)
		}
		plans[i] = newCopyPlan([]int64{in.NumElements()}, []int64{1}, []int64{1}, in.Elem.ByteSize())
	}
	return func(ins, outs [][]byte) error {
		for i, p := range plans {
			p.run(ctx, outs[i], ins[i], 0, 0)
		}
		return nil
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
	pairs, ok := intList(op.Attrs["source_target_pairs"])
	if !ok && op.Attrs["source_target_pairs"] != nil {
		return nil, op.Errorf("source_target_pairs %s has an unexpected form", op.Attrs["source_target_pairs"])
	}
	self := false
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i] != 0 || pairs[i+1] != 0 {
			return nil, op.Errorf("source_target_pairs name process %d -> %d, but gojax runs a single process", pairs[i], pairs[i+1])
		}
		self = true
	}
	p := newCopyPlan([]int64{in.NumElements()}, []int64{1}, []int64{1}, in.Elem.ByteSize())
	return func(ins, outs [][]byte) error {
		if self {
			p.run(ctx, outs[0], ins[0], 0, 0)
		} else {
			clear(outs[0]) // no process sends to this one: zeros, per spec
		}
		return nil
	}, nil
}

func lowerZeroID(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
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
		binary.LittleEndian.PutUint32(outs[0], 0)
		return nil
	}, nil
}
