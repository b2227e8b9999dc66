package compiler

import (
	"fmt"

	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// foldLimit bounds the bytes a folded op may produce beyond its inputs:
// folding a broadcast into a huge constant trades a cheap step for memory.
const foldLimit = 64 << 10

// compilerOps are handled by the planner itself, never by a kernel.
var compilerOps = map[string]bool{
	"stablehlo.constant":          true,
	"stablehlo.while":             true,
	"stablehlo.case":              true,
	"stablehlo.if":                true,
	"stablehlo.return":            true,
	"func.return":                 true,
	"func.call":                   true,
	"stablehlo.custom_call":       true,
	"stablehlo.after_all":         true,
	"stablehlo.create_token":      true,
	"stablehlo.tuple":             true,
	"stablehlo.get_tuple_element": true,
}

// effectOps have effects beyond their results (I/O, communication), so they
// are never folded or removed.
var effectOps = map[string]bool{
	"stablehlo.infeed":               true,
	"stablehlo.outfeed":              true,
	"stablehlo.send":                 true,
	"stablehlo.recv":                 true,
	"stablehlo.all_reduce":           true,
	"stablehlo.all_gather":           true,
	"stablehlo.all_to_all":           true,
	"stablehlo.reduce_scatter":       true,
	"stablehlo.collective_permute":   true,
	"stablehlo.collective_broadcast": true,
	"stablehlo.rng":                  true,
	"stablehlo.rng_bit_generator":    true,
	// Their value depends on the partition running the code, not on operands.
	"stablehlo.partition_id": true,
	"stablehlo.replica_id":   true,
}

// hasEffects reports whether removing or folding op could lose an effect.
// A custom call is effectful when it says so or when it has no results (a
// check or a callback run for its effect).
func hasEffects(op *ir.Op) bool {
	if ownEffects(op) {
		return true
	}
	// Walk visits every nested op, so each is checked for its own effects
	// only: checking their regions again made nested conds cost 2^depth.
	for _, r := range op.Regions {
		eff := false
		r.Walk(func(o *ir.Op) bool {
			if o.Name != "stablehlo.return" && ownEffects(o) {
				eff = true
				return false
			}
			return true
		})
		if eff {
			return true
		}
	}
	return false
}

// ownEffects: hasEffects for op alone, not the ops in its regions.
func ownEffects(op *ir.Op) bool {
	if effectOps[op.Name] {
		return true
	}
	if op.Name == "stablehlo.custom_call" {
		if se, ok := op.Attrs.Bool("has_side_effect"); ok && se {
			return true
		}
		return len(op.Results) == 0
	}
	return op.Name == "stablehlo.return" || op.Name == "func.return" || op.Name == "sdy.return"
}

// foldConstants evaluates ops whose operands are all constants by running
// their kernels at compile time, replacing them with stablehlo.constant.
func foldConstants(st *passState) error {
	if st.opts.NoFold {
		return nil
	}
	repl := map[*ir.Value]*ir.Value{}
	folded := map[*ir.Op][]*ir.Op{}
	st.entry.Body.Walk(func(op *ir.Op) bool {
		consts, ok := tryFold(st.ctx, op, repl)
		if !ok {
			return true
		}
		for i, c := range consts {
			c.Block = op.Block
			repl[op.Results[i]] = c.Results[0]
		}
		folded[op] = consts
		return true
	})
	if len(folded) == 0 {
		return nil
	}
	// Splice the constants in.
	spliceOps(st.entry.Body, folded)
	replaceUses(st.entry.Body, repl)
	return nil
}

// tryFold returns one constant op per result when op can be evaluated now.
func tryFold(ctx *compileCtx, op *ir.Op, repl map[*ir.Value]*ir.Value) ([]*ir.Op, bool) {
	if compilerOps[op.Name] || hasEffects(op) || len(op.Results) == 0 {
		return nil, false
	}
	lower, ok := kernel.Lookup(op.Name)
	if !ok {
		return nil, false
	}
	ins := make([][]byte, len(op.Operands))
	inBytes := 0
	for i, v := range op.Operands {
		c := constData(resolve(repl, v))
		if c == nil {
			return nil, false
		}
		ins[i] = c.Data
		inBytes += len(c.Data)
	}
	// Check the size before allocating: most rejected folds are broadcasts
	// of a scalar to a large shape, and allocating (and zeroing) their
	// result only to drop it dominated compile time.
	outBytes := int64(0)
	for _, r := range op.Results {
		t := r.Tensor()
		if t == nil {
			return nil, false
		}
		outBytes += t.ByteSize()
	}
	if outBytes > foldLimit && outBytes > int64(inBytes) {
		return nil, false
	}
	// A folded constant lives on the Go heap with the executable: one the
	// memory limit or the host has no room for stays an op, whose result
	// the arena check then accounts for.
	if devmem.CheckHostBytes(outBytes) != nil {
		return nil, false
	}
	outs := make([][]byte, len(op.Results))
	for i, r := range op.Results {
		outs[i] = make([]byte, r.Tensor().ByteSize())
	}
	// Operands are read through their constant values; the kernel sees the op
	// as it is (its operand values still carry the types it needs).
	if err := safeFold(ctx, lower, op, ins, outs); err != nil {
		return nil, false // the planner lowers it again and reports any error with its location
	}
	consts := make([]*ir.Op, len(op.Results))
	for i, r := range op.Results {
		t := r.Tensor()
		c := ir.NewOp("stablehlo.constant", nil, []ir.Type{t}, ir.Attrs{"value": &ir.ElementsAttr{Type: t, Data: outs[i]}})
		c.Loc = op.Loc
		consts[i] = c
	}
	return consts, true
}

// safeFold lowers and runs one op, turning a kernel panic into "do not fold".
func safeFold(ctx *compileCtx, lower kernel.Lower, op *ir.Op, ins, outs [][]byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("kernel panic: %v", r)
		}
	}()
	step, err := lower(ctx, op)
	if err != nil {
		return err
	}
	return step(ins, outs)
}

// constData returns the data of a value defined by stablehlo.constant, or nil.
func constData(v *ir.Value) *ir.ElementsAttr {
	if v.Def == nil || v.Def.Name != "stablehlo.constant" {
		return nil
	}
	e, ok := v.Def.Attrs.Elements("value")
	if !ok || e.Type == nil {
		return nil
	}
	t := v.Tensor()
	if t == nil || int64(len(e.Data)) != t.ByteSize() {
		return nil
	}
	return e
}

// eliminateDeadCode removes effect-free ops whose results are unused,
// innermost first, in one backward sweep per block.
func eliminateDeadCode(st *passState) error {
	uses := useCounts(st.entry.Body)
	var sweep func(b *ir.Block)
	sweep = func(b *ir.Block) {
		keep := make([]*ir.Op, 0, len(b.Ops))
		for i := len(b.Ops) - 1; i >= 0; i-- {
			op := b.Ops[i]
			dead := !hasEffects(op)
			for _, r := range op.Results {
				if uses[r] > 0 {
					dead = false
				}
			}
			if !dead {
				for _, r := range op.Regions {
					for _, rb := range r.Blocks {
						sweep(rb)
					}
				}
				keep = append(keep, op)
				continue
			}
			for _, v := range op.Operands {
				uses[v]--
			}
			for _, r := range op.Regions {
				r.Walk(func(o *ir.Op) bool {
					for _, v := range o.Operands {
						uses[v]--
					}
					return true
				})
			}
		}
		for l, r := 0, len(keep)-1; l < r; l, r = l+1, r-1 {
			keep[l], keep[r] = keep[r], keep[l]
		}
		b.Ops = keep
	}
	for _, b := range st.entry.Body.Blocks {
		sweep(b)
	}
	return nil
}
