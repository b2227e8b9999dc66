package compiler

import (
	"fmt"
	"math"

	"github.com/gojax/gojax/go/ir"
)

// Storage groups: which values must share one buffer (a loop's carried
// value in cond, body and results), and each value's byte size.

func (b *builder) newGroup(kind slotKind, size int) *group {
	g := &group{kind: kind, size: size, start: math.MaxInt, end: math.MinInt}
	b.groups = append(b.groups, g)
	return g
}

// byteSize is the buffer size of a value type; tuples have no buffer form.
func byteSize(t ir.Type) (int, error) {
	switch t := t.(type) {
	case *ir.TensorType:
		n := t.ByteSize()
		for _, d := range t.Shape {
			if d < 0 || d > ir.MaxBufferBytes {
				n = -1
			}
		}
		if n < 0 || n > ir.MaxBufferBytes {
			return 0, fmt.Errorf("tensor %s is too large", t)
		}
		return int(n), nil
	case *ir.TokenType:
		return 0, nil
	}
	return 0, fmt.Errorf("values of type %s are not supported", t)
}

func (b *builder) assignGroups() error {
	for i, a := range b.top.Args {
		n, err := byteSize(a.Type)
		if err != nil {
			return fmt.Errorf("argument %d: %w", i, err)
		}
		g := b.newGroup(slotParam, n)
		g.index, g.start = i, -1
		b.valGroup[a] = g
	}
	return b.groupsIn(b.top)
}

func (b *builder) groupsIn(blk *ir.Block) error {
	for _, op := range blk.Ops {
		switch op.Name {
		case "func.return", "stablehlo.return":
			continue
		case "stablehlo.constant":
			e, ok := op.Attrs.Elements("value")
			t := op.Results[0].Tensor()
			if !ok || t == nil || int64(len(e.Data)) != t.ByteSize() {
				return op.Errorf("constant value does not match its type %s", op.Results[0].Type)
			}
			g := b.newGroup(slotConst, len(e.Data))
			g.data = e.Data
			b.valGroup[op.Results[0]] = g
			continue
		case "stablehlo.while":
			if err := b.whileGroups(op); err != nil {
				return err
			}
			continue
		}
		for i, r := range op.Results {
			n, err := byteSize(r.Type)
			if err != nil {
				return op.Errorf("result %d: %v", i, err)
			}
			g := b.newGroup(slotInternal, n)
			g.kernelDef = isKernelOp(op)
			b.valGroup[r] = g
		}
		if isControlFlow(op) {
			for _, r := range op.Regions {
				if len(r.Blocks) != 1 {
					return op.Errorf("region must have exactly one block")
				}
				if err := b.groupsIn(r.Blocks[0]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// whileGroups makes one group per carried value shared by the cond and body
// arguments and the op's results.
func (b *builder) whileGroups(op *ir.Op) error {
	if len(op.Regions) != 2 || len(op.Regions[0].Blocks) != 1 || len(op.Regions[1].Blocks) != 1 {
		return op.Errorf("while needs a cond and a body region with one block each")
	}
	cond, body := op.Regions[0].Blocks[0], op.Regions[1].Blocks[0]
	n := len(op.Operands)
	if len(op.Results) != n || len(cond.Args) != n || len(body.Args) != n {
		return op.Errorf("while has %d operands, %d results, %d cond and %d body arguments", n, len(op.Results), len(cond.Args), len(body.Args))
	}
	for i := range n {
		t := op.Operands[i].Type
		if !ir.TypesEqual(t, op.Results[i].Type) || !ir.TypesEqual(t, cond.Args[i].Type) || !ir.TypesEqual(t, body.Args[i].Type) {
			return op.Errorf("carried value %d has inconsistent types", i)
		}
		sz, err := byteSize(t)
		if err != nil {
			return op.Errorf("carried value %d: %v", i, err)
		}
		g := b.newGroup(slotInternal, sz)
		b.valGroup[op.Results[i]] = g
		b.valGroup[cond.Args[i]] = g
		b.valGroup[body.Args[i]] = g
		// Carried values live across the whole loop.
		g.start, g.end = b.pre[op], b.post[op]
	}
	if err := b.groupsIn(cond); err != nil {
		return err
	}
	return b.groupsIn(body)
}

// group returns the storage of an operand; in a kernel region a value from
// the enclosing scope is accepted only when it is a constant.
func (b *builder) group(op *ir.Op, v *ir.Value) (*group, error) {
	if g, ok := b.valGroup[v]; ok {
		return g, nil
	}
	if e := constData(v); e != nil && b.regionMode {
		g := b.newGroup(slotConst, len(e.Data))
		g.data = e.Data
		b.valGroup[v] = g
		return g, nil
	}
	if b.regionMode {
		return nil, op.Errorf("region uses a non-constant value from the enclosing scope; not supported")
	}
	return nil, op.Errorf("operand is not defined in this function")
}
