package kernel

import "github.com/gojax/gojax/go/ir"

// Work is what one op computes, counted as XLA's cost analysis counts it so
// that JAX's Compiled.cost_analysis() reads the same quantities on gojax as
// on XLA: one flop per element of an elementwise result, two per
// multiply-add of a dot or convolution, one transcendental per element of
// exp, log, tanh and the like (Traits.Transcendental). Data movement
// (broadcast, transpose, slice, gather, …) has no flops.
type Work struct {
	Flops, Transcendentals int64
	// Read, when set, is the bytes the op reads of each operand, for an
	// op that reads part of one (slice, gather) or none of it (the array
	// dynamic_update_slice writes into); nil: every operand whole.
	Read []int64
	// Write, when set, is the bytes the op writes of each result, for an
	// op that writes part of one in place (dynamic_update_slice); nil:
	// every result whole.
	Write []int64
}

// WorkOf returns op's work from its registered traits: Traits.Cost when
// set, else one flop or transcendental per result element of an
// elementwise op, else none. Ops without traits (custom calls, ops of
// other dialects) count as no work, reading and writing their buffers
// whole.
func WorkOf(op *ir.Op) Work {
	tr := TraitsOf(op.Name)
	if tr.Cost != nil {
		return tr.Cost(op)
	}
	var w Work
	if tr.Elementwise && len(op.Results) == 1 {
		n := Elements(op.Results[0])
		if tr.Transcendental {
			w.Transcendentals = n
		} else {
			w.Flops = n
		}
	}
	return w
}

// RegionWork sums the work of the ops of a region (a reduce body, a
// comparator, a fusion's members), each applied once.
func RegionWork(r *ir.Region) Work {
	var w Work
	for _, b := range r.Blocks {
		for _, op := range b.Ops {
			o := WorkOf(op)
			w.Flops += o.Flops
			w.Transcendentals += o.Transcendentals
		}
	}
	return w
}

// Scaled is w applied n times (flops and transcendentals only).
func (w Work) Scaled(n int64) Work {
	return Work{Flops: w.Flops * n, Transcendentals: w.Transcendentals * n}
}

// Elements is the element count of a static tensor value, 0 otherwise.
func Elements(v *ir.Value) int64 {
	if t := v.StaticTensor(); t != nil {
		return t.NumElements()
	}
	return 0
}

// Bytes is the byte size of a static tensor value in gojax storage, 0
// otherwise.
func Bytes(v *ir.Value) int64 {
	if t := v.StaticTensor(); t != nil {
		return t.ByteSize()
	}
	return 0
}
