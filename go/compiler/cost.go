package compiler

import (
	"fmt"

	"github.com/gojax/gojax/go/kernels/kernel"
)

// Cost is the compiled plan's cost analysis, counted step by step as
// XLA's HloCostAnalysis counts instructions, so that JAX's
// Compiled.cost_analysis() means the same on gojax as on XLA: each step's
// work comes from its op's registered traits (kernel.WorkOf), each step
// reads its operands and writes its results (whole unless its traits say
// otherwise), a while loop counts its condition and body once (the trip
// count is not known), a case or if counts the largest of its branches
// per quantity, and the copies the plan makes (results not computed in
// place) count as steps that read and write their bytes.
type Cost struct {
	Flops, Transcendentals float64
	// Bytes is every byte read and written by every step.
	Bytes float64
	// OperandBytes[i] and OperandUtilization[i] sum, over the steps, the
	// bytes each reads of its operand i and the fraction of it they are.
	OperandBytes, OperandUtilization []float64
	// OutBytes sums the bytes written by the steps.
	OutBytes float64
}

// Property is one named value of a cost analysis.
type Property struct {
	Name  string
	Value float64
}

// Properties lists the cost under the names XLA's cost analysis gives
// them ("flops", "bytes accessed0{}", …; "{}" is the shape index of an
// array operand), the names JAX's users read.
func (c Cost) Properties() []Property {
	ps := []Property{{"flops", c.Flops}, {"transcendentals", c.Transcendentals}, {"bytes accessed", c.Bytes}}
	for i, b := range c.OperandBytes {
		ps = append(ps, Property{fmt.Sprintf("bytes accessed%d{}", i), b}, Property{fmt.Sprintf("utilization%d{}", i), c.OperandUtilization[i]})
	}
	return append(ps, Property{"bytes accessedout{}", c.OutBytes})
}

// Cost returns the cost analysis of the compiled plan.
func (e *Executable) Cost() Cost {
	c := instrsCost(e.plan.body)
	for _, cp := range e.plan.final {
		c.add(copyCost(cp))
	}
	return c
}

func instrsCost(body []instr) Cost {
	var c Cost
	for _, in := range body {
		switch in := in.(type) {
		case *kernelInstr:
			c.add(stepCost(in))
		case *scalarInstr:
			c.add(stepCost(in.k))
		case *sliceInstr:
			if in.relabel != nil {
				c.add(stepCost(in.relabel))
			}
			c.add(stepCost(in.k))
		case *whileInstr:
			for _, cp := range in.init {
				c.add(copyCost(cp))
			}
			if in.scalarCond != nil {
				c.add(stepCost(in.scalarCond.k))
			} else {
				c.add(instrsCost(in.cond))
			}
			c.add(instrsCost(in.body))
			for _, cp := range in.stage {
				c.add(copyCost(cp))
			}
		case *caseInstr:
			var most Cost
			for b, br := range in.branches {
				bc := instrsCost(br)
				for _, cp := range in.copies[b] {
					bc.add(copyCost(cp))
				}
				most.maxWith(bc)
			}
			c.add(most)
		}
	}
	return c
}

func stepCost(k *kernelInstr) Cost {
	var c Cost
	for _, cp := range k.pre {
		c.add(copyCost(cp))
	}
	w := kernel.WorkOf(k.op)
	s := Cost{Flops: float64(w.Flops), Transcendentals: float64(w.Transcendentals)}
	s.OperandBytes = make([]float64, len(k.ins))
	s.OperandUtilization = make([]float64, len(k.ins))
	for i, r := range k.ins {
		read := int64(r.size)
		if w.Read != nil && i < len(w.Read) {
			read = w.Read[i]
		}
		s.OperandBytes[i] = float64(read)
		if r.size > 0 {
			s.OperandUtilization[i] = float64(read) / float64(r.size)
		}
		s.Bytes += float64(read)
	}
	for i, r := range k.outs {
		written := int64(r.size)
		if w.Write != nil && i < len(w.Write) {
			written = w.Write[i]
		}
		s.OutBytes += float64(written)
	}
	s.Bytes += s.OutBytes
	c.add(s)
	return c
}

func copyCost(cp copyPair) Cost {
	n := float64(cp.src.size)
	return Cost{Bytes: 2 * n, OperandBytes: []float64{n}, OperandUtilization: []float64{1}, OutBytes: n}
}

func (c *Cost) add(o Cost) {
	c.Flops += o.Flops
	c.Transcendentals += o.Transcendentals
	c.Bytes += o.Bytes
	c.OutBytes += o.OutBytes
	c.grow(len(o.OperandBytes))
	for i := range o.OperandBytes {
		c.OperandBytes[i] += o.OperandBytes[i]
		c.OperandUtilization[i] += o.OperandUtilization[i]
	}
}

func (c *Cost) maxWith(o Cost) {
	c.Flops = max(c.Flops, o.Flops)
	c.Transcendentals = max(c.Transcendentals, o.Transcendentals)
	c.Bytes = max(c.Bytes, o.Bytes)
	c.OutBytes = max(c.OutBytes, o.OutBytes)
	c.grow(len(o.OperandBytes))
	for i := range o.OperandBytes {
		c.OperandBytes[i] = max(c.OperandBytes[i], o.OperandBytes[i])
		c.OperandUtilization[i] = max(c.OperandUtilization[i], o.OperandUtilization[i])
	}
}

func (c *Cost) grow(n int) {
	for len(c.OperandBytes) < n {
		c.OperandBytes = append(c.OperandBytes, 0)
		c.OperandUtilization = append(c.OperandUtilization, 0)
	}
}
