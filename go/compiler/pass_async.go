package compiler

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/gojax/gojax/go/ir"
)

// asyncStarts maps the custom-call targets of JAX's asynchronous collectives
// (jax.lax.psum_start, all_gather_start, psum_scatter_start,
// all_to_all_start, ppermute_start) to the StableHLO collective each stands
// for; asyncDones are their "done" halves.
var asyncStarts = map[string]string{
	"all-reduce-start":         "stablehlo.all_reduce",
	"all-gather-start":         "stablehlo.all_gather",
	"reduce-scatter-start":     "stablehlo.reduce_scatter",
	"all-to-all-start":         "stablehlo.all_to_all",
	"collective-permute-start": "stablehlo.collective_permute",
}

var asyncDones = map[string]bool{
	"all-reduce-done": true, "all-gather-done": true, "reduce-scatter-done": true,
	"all-to-all-done": true, "collective-permute-done": true,
}

// asyncConfig is the JSON JAX puts in a start's async_collective_config
// frontend attribute: the synchronous op's attributes.
type asyncConfig struct {
	ReplicaGroups      [][]int64 `json:"replica_groups"`
	ChannelID          *int64    `json:"channel_id"`
	UseGlobalDeviceIDs *bool     `json:"use_global_device_ids"`
	AllGatherDimension *int64    `json:"all_gather_dimension"`
	ScatterDimension   *int64    `json:"scatter_dimension"`
	Tiled              *bool     `json:"tiled"`
	SplitDimension     *int64    `json:"split_dimension"`
	ConcatDimension    *int64    `json:"concat_dimension"`
	SplitCount         *int64    `json:"split_count"`
	Permutation        [][]int64 `json:"permutation"`
}

// rewriteAsyncCollectives turns each start/done pair into the synchronous
// collective at the start and nothing at the done: gojax runs a collective
// when its step runs, so there is nothing to overlap, and the pair computes
// what the synchronous op does. A result type that differs from the
// synchronous op's (same elements) gets a reshape.
func rewriteAsyncCollectives(st *passState) error {
	repl := map[*ir.Value]*ir.Value{}
	rewritten := map[*ir.Op][]*ir.Op{}
	var err error
	st.entry.Body.Walk(func(op *ir.Op) bool {
		if op.Name != "stablehlo.custom_call" {
			return true
		}
		target := customTarget(op)
		switch {
		case asyncDones[target]:
			if len(op.Operands) != 1 || len(op.Results) != 1 || !ir.TypesEqual(op.Operands[0].Type, op.Results[0].Type) {
				err = op.Errorf("%s takes its start's result and returns it", target)
				return false
			}
			repl[op.Results[0]] = op.Operands[0]
			rewritten[op] = nil
		case asyncStarts[target] != "":
			var ops []*ir.Op
			if ops, err = syncCollective(op, target); err != nil {
				return false
			}
			for _, o := range ops {
				o.Loc, o.Block = op.Loc, op.Block
			}
			repl[op.Results[0]] = ops[len(ops)-1].Results[0]
			rewritten[op] = ops
		}
		return true
	})
	if err != nil {
		return err
	}
	applyRewrites(st.entry.Body, rewritten, repl)
	return nil
}

func syncCollective(op *ir.Op, target string) ([]*ir.Op, error) {
	fa, _ := op.Attrs["mhlo.frontend_attributes"].(ir.DictAttr)
	text, ok := fa.Entries.Str("async_collective_config")
	if !ok {
		return nil, op.Errorf("%s has no async_collective_config", target)
	}
	var cfg asyncConfig
	if err := json.Unmarshal([]byte(text), &cfg); err != nil {
		return nil, op.Errorf("%s: async_collective_config %q: %v", target, text, err)
	}
	if len(op.Operands) != 1 || len(op.Results) != 1 {
		return nil, op.Errorf("%s takes one operand and has one result", target)
	}
	in, out := op.Operands[0].StaticTensor(), op.Results[0].StaticTensor()
	if in == nil || out == nil {
		return nil, op.Errorf("%s needs static tensor types", target)
	}
	attrs := ir.Attrs{}
	if cfg.ChannelID != nil {
		attrs["channel_id"] = ir.IntAttr{Value: *cfg.ChannelID, Type: ir.S64}
	}
	if cfg.UseGlobalDeviceIDs != nil && *cfg.UseGlobalDeviceIDs {
		attrs["use_global_device_ids"] = ir.UnitAttr{}
	}
	groups, n, err := intMatrix(cfg.ReplicaGroups)
	if err != nil {
		return nil, op.Errorf("%s: replica_groups: %v", target, err)
	}
	if groups != nil {
		attrs["replica_groups"] = groups
	}
	dim := func(name string, p *int64) (int, error) {
		if p == nil || *p < 0 || int(*p) >= in.Rank() {
			return 0, op.Errorf("%s: %s is missing or not a dimension of %s", target, name, in)
		}
		return int(*p), nil
	}
	natural := slices.Clone(in.Shape)
	name := asyncStarts[target]
	switch target {
	case "all-reduce-start":
	case "all-gather-start":
		d, err := dim("all_gather_dimension", cfg.AllGatherDimension)
		if err != nil {
			return nil, err
		}
		attrs["all_gather_dim"] = ir.IntAttr{Value: int64(d), Type: ir.S64}
		natural[d] *= int64(max(n, 1))
	case "reduce-scatter-start":
		d, err := dim("scatter_dimension", cfg.ScatterDimension)
		if err != nil {
			return nil, err
		}
		if n == 0 || natural[d]%int64(n) != 0 {
			return nil, op.Errorf("%s: dimension %d of %s does not split into groups of %d", target, d, in, n)
		}
		attrs["scatter_dimension"] = ir.IntAttr{Value: int64(d), Type: ir.S64}
		natural[d] /= int64(n)
	case "all-to-all-start":
		sd, err := dim("split_dimension", cfg.SplitDimension)
		if err != nil {
			return nil, err
		}
		cd, err := dim("concat_dimension", cfg.ConcatDimension)
		if err != nil {
			return nil, err
		}
		if cfg.SplitCount == nil || *cfg.SplitCount <= 0 || natural[sd]%*cfg.SplitCount != 0 {
			return nil, op.Errorf("%s: split_count does not split dimension %d of %s", target, sd, in)
		}
		c := *cfg.SplitCount
		attrs["split_dimension"] = ir.IntAttr{Value: int64(sd), Type: ir.S64}
		attrs["concat_dimension"] = ir.IntAttr{Value: int64(cd), Type: ir.S64}
		attrs["split_count"] = ir.IntAttr{Value: c, Type: ir.S64}
		natural[sd] /= c
		natural[cd] *= c
	case "collective-permute-start":
		pairs, _, err := intMatrix(cfg.Permutation)
		if err != nil || pairs == nil || pairs.Type.Shape[1] != 2 {
			return nil, op.Errorf("%s: permutation must be a list of [source, target] pairs", target)
		}
		attrs["source_target_pairs"] = pairs
		delete(attrs, "replica_groups")
	}
	nt := &ir.TensorType{Elem: in.Elem, Shape: natural}
	sync := ir.NewOp(name, []*ir.Value{op.Operands[0]}, []ir.Type{nt}, attrs)
	switch target {
	case "all-reduce-start", "reduce-scatter-start":
		if len(op.Regions) != 1 {
			return nil, op.Errorf("%s needs its reducer (called_computations)", target)
		}
		sync.AddRegion(op.Regions[0])
	}
	if nt.NumElements() != out.NumElements() {
		return nil, op.Errorf("%s: result %s does not hold the %s the collective gives", target, out, nt)
	}
	if ir.TypesEqual(nt, out) {
		return []*ir.Op{sync}, nil
	}
	reshape := ir.NewOp("stablehlo.reshape", sync.Results, []ir.Type{out}, nil)
	return []*ir.Op{sync, reshape}, nil
}

// intMatrix packs equal-length integer rows as a tensor<RxCxi64> attribute
// (nil for no rows) and returns the row length.
func intMatrix(rows [][]int64) (*ir.ElementsAttr, int, error) {
	if len(rows) == 0 {
		return nil, 0, nil
	}
	n := len(rows[0])
	data := make([]byte, 0, 8*n*len(rows))
	for _, r := range rows {
		if len(r) != n {
			return nil, 0, fmt.Errorf("rows of %d and %d entries", n, len(r))
		}
		for _, v := range r {
			data = binary.LittleEndian.AppendUint64(data, uint64(v))
		}
	}
	return &ir.ElementsAttr{Type: &ir.TensorType{Elem: ir.S64, Shape: []int64{int64(len(rows)), int64(n)}}, Data: data}, n, nil
}
