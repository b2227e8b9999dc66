package verify

import (
	"fmt"

	"github.com/gojax/gojax/go/ir"
)

// Distribution and host-communication ops: collectives, replica/partition
// ids, infeed/outfeed, send/recv, async wrappers.

func init() {
	register(map[string]checkFunc{
		"stablehlo.all_gather":           checkAllGather,
		"stablehlo.all_reduce":           checkAllReduce,
		"stablehlo.all_to_all":           checkAllToAll,
		"stablehlo.reduce_scatter":       checkReduceScatter,
		"stablehlo.collective_permute":   checkCollectivePermute,
		"stablehlo.collective_broadcast": checkCollectiveBroadcast,
		"stablehlo.collective_reduce":    checkAllReduce,
		"stablehlo.cross-replica-sum":    checkCrossReplicaSum,
		"stablehlo.replica_id":           checkProcessID,
		"stablehlo.partition_id":         checkProcessID,
		"stablehlo.infeed":               checkInfeed,
		"stablehlo.outfeed":              checkOutfeed,
		"stablehlo.send":                 checkSend,
		"stablehlo.recv":                 checkRecv,
		"stablehlo.async_start":          checkAsyncStart,
		"stablehlo.async_done":           checkAsyncDone,
	})
}

// replicaGroups checks the replica_groups attribute (required unless optional).
func replicaGroups(op *ir.Op, required bool) error {
	if d, ok := op.Attrs["replica_groups"].(ir.DictAttr); ok {
		// #stablehlo.replica_group_mesh_axes: groups named by mesh axes,
		// made explicit by the compiler once the meshes are known.
		if _, ok := d.Entries["mesh"]; !ok {
			return op.Errorf("replica_groups %s names no mesh", d)
		}
		if _, ok := d.Entries["axes"].(ir.ArrayAttr); !ok {
			return op.Errorf("replica_groups %s has no axis list", d)
		}
		_, err := boolAttr(op, "use_global_device_ids", false)
		return err
	}
	groups, _, err := i64s(op, "replica_groups", required)
	if err != nil {
		return err
	}
	for _, g := range groups {
		if g < -1 {
			return op.Errorf("replica_groups entry %d is invalid", g)
		}
	}
	if _, err := intAttr(op, "channel_id", false, 0); err != nil {
		// VHLO stores channel handles as an integer; other forms are kept opaque.
		if _, opaque := op.Attrs["channel_id"].(ir.OpaqueAttr); !opaque {
			return err
		}
	}
	_, err = boolAttr(op, "use_global_device_ids", false)
	return err
}

// sameTypesInOut checks N operands and N results of pairwise equal types.
func sameTypesInOut(v *verifier, op *ir.Op) error {
	if len(op.Operands) == 0 {
		return op.Errorf("expects at least one operand")
	}
	return v.valuesMatch(op, "results", op.Results, types(op.Operands))
}

func checkAllReduce(v *verifier, op *ir.Op) error {
	if err := regions(op, 1); err != nil {
		return err
	}
	if err := sameTypesInOut(v, op); err != nil {
		return err
	}
	ins, err := v.operandTensors(op)
	if err != nil {
		return err
	}
	if err := replicaGroups(op, true); err != nil {
		return err
	}
	// The computation reduces pairs of scalars of the first operand's type.
	e := scalarLike(ins[0])
	return v.regionSig(op, 0, []ir.Type{e, e}, []ir.Type{e})
}

// checkGatherLike checks operand/result pairs that differ only along dim,
// where the result is a multiple (mul) or fraction (div) of the operand.
func checkGatherLike(v *verifier, op *ir.Op, dimAttr string, grow bool) error {
	if len(op.Operands) == 0 {
		return op.Errorf("expects at least one operand")
	}
	if err := counts(op, -1, len(op.Operands)); err != nil {
		return err
	}
	ins, err := v.operandTensors(op)
	if err != nil {
		return err
	}
	outs, err := v.resultTensors(op)
	if err != nil {
		return err
	}
	dim, err := intAttr(op, dimAttr, true, 0)
	if err != nil {
		return err
	}
	for i := range ins {
		in, out := ins[i], outs[i]
		if in.Elem != out.Elem || in.Rank() != out.Rank() {
			return op.Errorf("result %d (%s) must keep operand %d's element type and rank (%s)", i, out, i, in)
		}
		if dim < 0 || dim >= int64(in.Rank()) {
			return op.Errorf("%s %d out of range for %s", dimAttr, dim, in)
		}
		for d := range in.Shape {
			a, b := in.Shape[d], out.Shape[d]
			if int64(d) == dim {
				if !grow {
					a, b = b, a
				}
				if a == 0 && b == 0 {
					continue
				}
				if a == 0 || b%a != 0 {
					return op.Errorf("%s size of result %d (%d) incompatible with operand (%d)", dimAttr, i, out.Shape[d], in.Shape[d])
				}
				continue
			}
			if a != b {
				return op.Errorf("result %d dim %d is %d; operand has %d", i, d, b, a)
			}
		}
	}
	return nil
}

func checkAllGather(v *verifier, op *ir.Op) error {
	if err := regions(op, 0); err != nil {
		return err
	}
	if err := checkGatherLike(v, op, "all_gather_dim", true); err != nil {
		return err
	}
	return replicaGroups(op, true)
}

func checkReduceScatter(v *verifier, op *ir.Op) error {
	if err := regions(op, 1); err != nil {
		return err
	}
	if err := checkGatherLike(v, op, "scatter_dimension", false); err != nil {
		return err
	}
	if err := replicaGroups(op, true); err != nil {
		return err
	}
	e := scalarLike(op.Operands[0].Tensor())
	return v.regionSig(op, 0, []ir.Type{e, e}, []ir.Type{e})
}

func checkAllToAll(v *verifier, op *ir.Op) error {
	if err := regions(op, 0); err != nil {
		return err
	}
	if len(op.Operands) == 0 {
		return op.Errorf("expects at least one operand")
	}
	if err := counts(op, -1, len(op.Operands)); err != nil {
		return err
	}
	ins, err := v.operandTensors(op)
	if err != nil {
		return err
	}
	outs, err := v.resultTensors(op)
	if err != nil {
		return err
	}
	split, err := intAttr(op, "split_dimension", true, 0)
	if err != nil {
		return err
	}
	concat, err := intAttr(op, "concat_dimension", true, 0)
	if err != nil {
		return err
	}
	count, err := intAttr(op, "split_count", true, 0)
	if err != nil {
		return err
	}
	if count <= 0 {
		return op.Errorf("split_count %d must be positive", count)
	}
	for i := range ins {
		in, out := ins[i], outs[i]
		r := int64(in.Rank())
		if split < 0 || split >= r || concat < 0 || concat >= r {
			return op.Errorf("split_dimension %d / concat_dimension %d out of range for %s", split, concat, in)
		}
		if in.Shape[split]%count != 0 {
			return op.Errorf("operand %d dim %d (%d) is not divisible by split_count %d", i, split, in.Shape[split], count)
		}
		want := append([]int64(nil), in.Shape...)
		want[split] /= count
		want[concat] *= count
		if err := wantShape(op, fmt.Sprintf("result %d", i), out, want); err != nil {
			return err
		}
		if err := wantElem(op, fmt.Sprintf("result %d", i), out, in.Elem); err != nil {
			return err
		}
	}
	return replicaGroups(op, true)
}

func checkCollectivePermute(v *verifier, op *ir.Op) error {
	if err := regions(op, 0); err != nil {
		return err
	}
	if err := counts(op, 1, 1); err != nil {
		return err
	}
	if err := sameTypesInOut(v, op); err != nil {
		return err
	}
	pairs, _, err := i64s(op, "source_target_pairs", true)
	if err != nil {
		return err
	}
	if len(pairs)%2 != 0 {
		return op.Errorf("source_target_pairs has an odd number of values (%d)", len(pairs))
	}
	_, err = intAttr(op, "channel_id", false, 0)
	if _, opaque := op.Attrs["channel_id"].(ir.OpaqueAttr); opaque {
		err = nil
	}
	return err
}

func checkCollectiveBroadcast(v *verifier, op *ir.Op) error {
	if err := regions(op, 0); err != nil {
		return err
	}
	if err := sameTypesInOut(v, op); err != nil {
		return err
	}
	return replicaGroups(op, true)
}

func checkCrossReplicaSum(v *verifier, op *ir.Op) error {
	if err := regions(op, 0); err != nil {
		return err
	}
	if err := counts(op, 1, 1); err != nil {
		return err
	}
	if err := sameTypesInOut(v, op); err != nil {
		return err
	}
	_, _, err := i64s(op, "replica_groups", true)
	return err
}

func checkProcessID(v *verifier, op *ir.Op) error {
	_, outs, err := v.sig(op, 0, 1)
	if err != nil {
		return err
	}
	if err := wantElem(op, "result", outs[0], ir.U32); err != nil {
		return err
	}
	return wantShape(op, "result", outs[0], nil)
}

func checkInfeed(v *verifier, op *ir.Op) error {
	if err := regions(op, 0); err != nil {
		return err
	}
	if err := counts(op, 1, -1); err != nil {
		return err
	}
	if !isToken(op.Operands[0]) {
		return op.Errorf("operand must be a token, is %s", op.Operands[0].Type)
	}
	if _, err := stringAttr(op, "infeed_config", false); err != nil {
		return err
	}
	return lastIsToken(op, op.Results, "result")
}

func checkOutfeed(v *verifier, op *ir.Op) error {
	if err := regions(op, 0); err != nil {
		return err
	}
	if err := counts(op, -1, 1); err != nil {
		return err
	}
	if err := lastIsToken(op, op.Operands, "operand"); err != nil {
		return err
	}
	if _, err := stringAttr(op, "outfeed_config", false); err != nil {
		return err
	}
	if !isToken(op.Results[0]) {
		return op.Errorf("result must be a token, is %s", op.Results[0].Type)
	}
	return nil
}

// channelAttrs checks send/recv channel attributes.
func channelAttrs(op *ir.Op) error {
	if _, err := intAttr(op, "channel_id", false, 0); err != nil {
		if _, opaque := op.Attrs["channel_id"].(ir.OpaqueAttr); !opaque {
			return err
		}
	}
	_, err := boolAttr(op, "is_host_transfer", false)
	return err
}

func checkSend(v *verifier, op *ir.Op) error {
	if err := regions(op, 0); err != nil {
		return err
	}
	if err := counts(op, -1, 1); err != nil {
		return err
	}
	if err := lastIsToken(op, op.Operands, "operand"); err != nil {
		return err
	}
	if !isToken(op.Results[0]) {
		return op.Errorf("result must be a token, is %s", op.Results[0].Type)
	}
	return channelAttrs(op)
}

func checkRecv(v *verifier, op *ir.Op) error {
	if err := regions(op, 0); err != nil {
		return err
	}
	if err := counts(op, 1, -1); err != nil {
		return err
	}
	if !isToken(op.Operands[0]) {
		return op.Errorf("operand must be a token, is %s", op.Operands[0].Type)
	}
	if err := lastIsToken(op, op.Results, "result"); err != nil {
		return err
	}
	return channelAttrs(op)
}

// checkAsyncStart: async_start wraps a collective in a region and yields a
// future (carried as an opaque single result in gojax IR).
func checkAsyncStart(v *verifier, op *ir.Op) error {
	if err := regions(op, 1); err != nil {
		return err
	}
	return counts(op, -1, 1)
}

func checkAsyncDone(v *verifier, op *ir.Op) error {
	if err := regions(op, 0); err != nil {
		return err
	}
	return counts(op, 1, -1)
}
