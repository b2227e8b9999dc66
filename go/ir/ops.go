package ir

import "fmt"

// Value is an SSA value: an op result or a block argument.
type Value struct {
	Type  Type
	Def   *Op    // defining op; nil for block arguments
	Index int    // result index in Def, or argument index in Block
	Block *Block // owning block for block arguments
}

// Tensor returns the value's tensor type, or nil for tokens and tuples.
func (v *Value) Tensor() *TensorType {
	t, _ := v.Type.(*TensorType)
	return t
}

// MaxBufferBytes bounds one buffer (64 TiB): a dimension or byte size
// beyond it means an element count that has overflowed.
const MaxBufferBytes = 1 << 46

// StaticTensor returns the value's tensor type when every dimension is
// known and at most MaxBufferBytes, nil otherwise.
func (v *Value) StaticTensor() *TensorType {
	t := v.Tensor()
	if t == nil {
		return nil
	}
	for _, d := range t.Shape {
		if d < 0 || d > MaxBufferBytes {
			return nil
		}
	}
	return t
}

// Op is one operation. Name is the canonical StableHLO name whatever VHLO
// version it was read from: "stablehlo.add", "stablehlo.while", and for the
// func dialect "func.call" / "func.return"; region terminators of StableHLO ops
// are "stablehlo.return". Ops of other dialects keep their own names
// ("sdy.sharding_constraint", "builtin.unrealized_conversion_cast").
type Op struct {
	Name     string
	Operands []*Value
	Results  []*Value
	Attrs    Attrs // may be shared by ops with equal attributes: replace it, never mutate it
	Regions  []*Region
	Loc      *Location // nil when unknown; shared between ops, never mutate it
	Block    *Block    // the block that holds this op
}

// Region is a list of blocks; StableHLO regions have exactly one block.
type Region struct {
	Blocks []*Block
	Parent *Op // nil for a function body
}

// Block is a straight-line list of ops ending in a terminator.
type Block struct {
	Args   []*Value
	Ops    []*Op
	Region *Region
}

// Errorf formats an error that names the op and its source location, the form
// every gojax diagnostic takes.
func (o *Op) Errorf(format string, args ...any) error {
	return fmt.Errorf("%s at %s: %s", o.Name, o.Loc, fmt.Sprintf(format, args...))
}

// NewOp creates an op with results of the given types.
func NewOp(name string, operands []*Value, resultTypes []Type, attrs Attrs) *Op {
	op := &Op{Name: name, Operands: operands, Attrs: attrs}
	if op.Attrs == nil {
		op.Attrs = Attrs{}
	}
	op.Results = make([]*Value, len(resultTypes))
	for i, t := range resultTypes {
		op.Results[i] = &Value{Type: t, Def: op, Index: i}
	}
	return op
}

// Result returns the op's only result (panics if it has several: a programming error).
func (o *Op) Result() *Value {
	if len(o.Results) != 1 {
		panic(fmt.Sprintf("%s has %d results", o.Name, len(o.Results)))
	}
	return o.Results[0]
}

// NewBlock creates a block with arguments of the given types.
func NewBlock(argTypes ...Type) *Block {
	b := &Block{}
	if len(argTypes) == 0 {
		return b
	}
	// One allocation for the values and one for the pointers, however many.
	vals := make([]Value, len(argTypes))
	b.Args = make([]*Value, len(argTypes))
	for i, t := range argTypes {
		vals[i] = Value{Type: t, Index: i, Block: b}
		b.Args[i] = &vals[i]
	}
	return b
}

// Append adds an op at the end of the block.
func (b *Block) Append(op *Op) *Op {
	op.Block = b
	b.Ops = append(b.Ops, op)
	return op
}

// Terminator returns the block's last op.
func (b *Block) Terminator() *Op {
	if len(b.Ops) == 0 {
		return nil
	}
	return b.Ops[len(b.Ops)-1]
}

// NewRegion wraps blocks in a region.
func NewRegion(blocks ...*Block) *Region {
	r := &Region{Blocks: blocks}
	for _, b := range blocks {
		b.Region = r
	}
	return r
}

// AddRegion attaches a region to the op.
func (o *Op) AddRegion(r *Region) {
	r.Parent = o
	o.Regions = append(o.Regions, r)
}

// Walk visits every op in the region, nested regions included, in order.
// It stops early when fn returns false.
func (r *Region) Walk(fn func(*Op) bool) bool {
	for _, b := range r.Blocks {
		for _, op := range b.Ops {
			if !fn(op) {
				return false
			}
			for _, sub := range op.Regions {
				if !sub.Walk(fn) {
					return false
				}
			}
		}
	}
	return true
}
