package compiler

import "github.com/gojax/gojax/go/kernels/kernel"

// One-element elementwise steps call their loop directly: a loop's counter
// (add) and its condition (compare) on scalars cost more through a
// kernel's general step (operand views, size checks, dispatch) than the
// arithmetic itself, and a counted loop runs them once per iteration. The
// loop is the one the registry offers fusions (kernel.Traits.Loop), which
// comes from the same resolver as the op's kernel, so results are the
// kernel's. With a step observer installed the kernel step runs instead,
// so observers see every step as before.

// scalarInstr is a one-element elementwise step; k is the kernel step it
// replaces.
type scalarInstr struct {
	k     *kernelInstr
	f1    func(d, a []byte)
	f2    func(d, a, b []byte)
	f3    func(d, a, b, c []byte)
	ins   [3]ref
	out   ref
	arity int
	// observed: k is a step observers see (not inside a kernel region).
	observed bool
}

// newScalarInstr returns the direct form of k, or nil when its op is not an
// elementwise op on one-element operands with a registered loop.
func newScalarInstr(k *kernelInstr) *scalarInstr {
	op := k.op
	if len(op.Results) != 1 || len(k.pre) > 0 || len(op.Operands) == 0 || len(op.Operands) > 3 {
		return nil
	}
	tr := kernel.TraitsOf(op.Name)
	if !tr.Elementwise || tr.Loop == nil {
		return nil
	}
	for _, v := range append(op.Operands[:len(op.Operands):len(op.Operands)], op.Results[0]) {
		if t := v.StaticTensor(); t == nil || t.NumElements() != 1 {
			return nil
		}
	}
	l, ok := tr.Loop(op)
	if !ok {
		return nil
	}
	s := &scalarInstr{k: k, f1: l.F1, f2: l.F2, f3: l.F3, out: k.outs[0], arity: len(k.ins), observed: k.observed}
	copy(s.ins[:], k.ins)
	switch {
	case s.arity == 1 && s.f1 != nil, s.arity == 2 && s.f2 != nil, s.arity == 3 && s.f3 != nil:
		return s
	}
	return nil
}

func (s *scalarInstr) run(f *frame) error {
	if s.observed && observers.Load() != nil {
		return s.k.run(f)
	}
	d := f.bufs[s.out.slot][:s.out.size]
	a := f.bufs[s.ins[0].slot][:s.ins[0].size]
	switch s.arity {
	case 1:
		s.f1(d, a)
	case 2:
		s.f2(d, a, f.bufs[s.ins[1].slot][:s.ins[1].size])
	default:
		s.f3(d, a, f.bufs[s.ins[1].slot][:s.ins[1].size], f.bufs[s.ins[2].slot][:s.ins[2].size])
	}
	return nil
}
