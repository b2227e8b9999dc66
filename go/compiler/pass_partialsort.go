package compiler

import (
	"math"
	"slices"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/reduce"
)

// sortPrefixes turns a stablehlo.sort whose results are read only through
// slices of a leading part of the sorted dimension into gojax.partial_sort,
// which keeps only that prefix; a sort with iota operands (argsort) becomes
// one too, so that the kernel writes positions instead of moving an iota
// materialized for the purpose. jax.lax.top_k reaches plugins this way:
// jaxlib legalizes chlo.top_k into a sort of (values, iota) followed by
// slices [0:k], and a full sort of a million elements to keep a hundred
// costs a hundred times XLA's top_k. The partial sort selects the prefix
// (O(n log k) for recognised comparators) and yields the sort's prefix bit
// for bit.
func sortPrefixes(st *passState) error {
	users := map[*ir.Value][]*ir.Op{}
	st.entry.Body.Walk(func(op *ir.Op) bool {
		for _, v := range op.Operands {
			users[v] = append(users[v], op)
		}
		return true
	})
	rewritten := map[*ir.Op][]*ir.Op{}
	repl := map[*ir.Value]*ir.Value{}
	st.entry.Body.Walk(func(op *ir.Op) bool {
		if op.Name != "stablehlo.sort" || len(op.Regions) != 1 || len(op.Results) == 0 {
			return true
		}
		dim, _ := op.Attrs.Int("dimension")
		t := op.Results[0].Tensor()
		if t == nil || t.Rank() == 0 {
			return true
		}
		if dim < 0 {
			dim += int64(t.Rank())
		}
		k, prefix := sortPrefixLength(op, users)
		if !prefix {
			k = t.Shape[dim]
		}
		operands, positions := dropPositionOperands(op, dim)
		if k == t.Shape[dim] && len(positions) == 0 {
			return true
		}
		types := make([]ir.Type, len(op.Results))
		for i, r := range op.Results {
			t := r.Tensor()
			shape := slices.Clone(t.Shape)
			shape[dim] = k
			types[i] = ir.Tensor(t.Elem, shape...)
		}
		attrs := ir.Attrs{}
		for name, a := range op.Attrs {
			attrs[name] = a
		}
		attrs["dimension"] = ir.IntAttr{Value: dim}
		attrs["k"] = ir.IntAttr{Value: k}
		if len(positions) > 0 {
			attrs["positions"] = ir.DenseI64Attr{Values: positions}
		}
		ps := ir.NewOp(reduce.PartialSortOp, operands, types, attrs)
		ps.Loc, ps.Block = op.Loc, op.Block
		region := op.Regions[0]
		op.Regions = nil
		ps.AddRegion(region)
		rewritten[op] = []*ir.Op{ps}
		for i, r := range op.Results {
			if !prefix {
				repl[r] = ps.Results[i] // same type: the whole slice is kept
				continue
			}
			for _, sl := range users[r] {
				if limits, _ := sl.Attrs["limit_indices"].(ir.DenseI64Attr); limits.Values[dim] == k {
					repl[sl.Results[0]] = ps.Results[i] // the slice is the whole prefix
					rewritten[sl] = nil
				} else {
					for j, v := range sl.Operands {
						if v == r {
							sl.Operands[j] = ps.Results[i]
						}
					}
				}
			}
		}
		return true
	})
	applyRewrites(st.entry.Body, rewritten, repl)
	return nil
}

// sortPrefixLength is the longest prefix along the sort dimension that
// the uses of sort's results read, when every use is a unit-stride slice
// starting at 0 that keeps the other dimensions whole and some prefix is
// shorter than the dimension.
func sortPrefixLength(sort *ir.Op, users map[*ir.Value][]*ir.Op) (int64, bool) {
	dim, ok := sort.Attrs.Int("dimension")
	t := sort.Results[0].Tensor()
	if !ok || t == nil || t.Rank() == 0 {
		return 0, false
	}
	if dim < 0 {
		dim += int64(t.Rank())
	}
	if dim < 0 || int(dim) >= t.Rank() {
		return 0, false
	}
	k, used := int64(0), false
	for _, r := range sort.Results {
		rt := r.Tensor()
		if rt == nil || !slices.Equal(rt.Shape, t.Shape) {
			return 0, false
		}
		for _, u := range users[r] {
			if u.Name != "stablehlo.slice" || len(u.Operands) != 1 || len(u.Results) != 1 {
				return 0, false
			}
			start, ok1 := u.Attrs["start_indices"].(ir.DenseI64Attr)
			limit, ok2 := u.Attrs["limit_indices"].(ir.DenseI64Attr)
			stride, ok3 := u.Attrs["strides"].(ir.DenseI64Attr)
			if !ok1 || !ok2 || !ok3 || len(start.Values) != rt.Rank() || len(limit.Values) != rt.Rank() ||
				len(stride.Values) != rt.Rank() {
				return 0, false
			}
			for d := range rt.Rank() {
				whole := start.Values[d] == 0 && stride.Values[d] == 1 && limit.Values[d] == rt.Shape[d]
				prefix := int64(d) == dim && start.Values[d] == 0 && stride.Values[d] == 1 && limit.Values[d] >= 0
				if !whole && !prefix {
					return 0, false
				}
			}
			k = max(k, limit.Values[dim])
			used = true
		}
	}
	return k, used && k < t.Shape[dim]
}

// dropPositionOperands returns sort's operands without those (after the
// first) that are an iota along dim of 32- or 64-bit integers, and the
// indices of the results they sort: the kernel writes sorted positions
// for those.
func dropPositionOperands(sort *ir.Op, dim int64) ([]*ir.Value, []int64) {
	var kept []*ir.Value
	var positions []int64
	for i, v := range sort.Operands {
		t := v.Tensor()
		if i > 0 && v.Def != nil && v.Def.Name == "stablehlo.iota" && t != nil && t.NumElements() > 0 {
			d, ok := v.Def.Attrs.Int("iota_dimension")
			switch t.Elem {
			case ir.S32, ir.S64, ir.U32, ir.U64:
				if ok && d == dim && t.Shape[dim] <= math.MaxInt32 {
					positions = append(positions, int64(i))
					continue
				}
			}
		}
		kept = append(kept, v)
	}
	return kept, positions
}
