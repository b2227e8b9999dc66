package compiler

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// passState is what every pass sees: the module copy being rewritten, its
// entry function and the compile context (kernels for folding).
type passState struct {
	module *ir.Module
	entry  *ir.Func
	opts   Options
	ctx    *compileCtx
}

// pass is one rewrite over the module.
type pass struct {
	name string
	fn   func(*passState) error
}

// passes run in order; checkInvariants runs on their input and output (and
// after each one under go test or after a failure, see runPasses) so a
// broken rewrite is reported by the pass that broke it, not by the planner.
var passes = []pass{
	{"composite", lowerComposites},       // stablehlo.composite → func.call of its decomposition
	{"called", attachCalledComputations}, // custom_call called_computations → regions of the op
	{"inline", inlineCalls},              // func.call → callee body; drop functions other than the entry
	{"async", rewriteAsyncCollectives},   // JAX's <collective>-start/-done custom calls → the synchronous collective
	{"passthrough", removePassThrough},   // sdy.*, unrealized casts, optimization_barrier, tuples
	{"quant", lowerQuantized},            // !quant.uniform ops → storage integer and float ops (pass_quant.go)
	{"legacy", rewriteLegacyOps},         // einsum, unary_einsum, torch_index_select → reduce/dot_general/transpose, gather
	{"mixedtypes", widenIntegerOperands}, // integer operands of a dot/convolution with a float result → converted first
	{"fold", foldConstants},              // ops whose operands are all constants → constants
	{"splats", foldSplats},               // elementwise ops on splats → a broadcast of the folded scalar; select on a splat predicate → the operand it picks
	{"counters", narrowCounters},         // jax.random's u64 iota counters → u32 iotas and zeros (exact by range)
	{"divshift", unsignedDivShifts},      // unsigned x / 2^k → shift_right_logical by k (exact)
	{"totalorder", totalOrderKeys},       // TOTALORDER f32 compare of arrays → SIGNED compare of order keys (exact)
	{"powers", rewritePowers},            // x**1, x**2, x**3, x**-1 → multiplies/divide, as XLA does
	{"dottranspose", foldDotTranspose},   // transpose(dot_general(a, b)) → dot_general(b, a)
	{"partialsort", sortPrefixes},        // sort read only through prefix slices (top_k) → gojax.partial_sort
	{"threefry", rollThreefry},           // JAX's threefry2x32 while loop → gojax.threefry_rounds
	{"unitreduce", dropUnitReduces},      // reduce over size-1 dimensions with an identity init → reshape
	{"slicepush", pushSlices},            // slice(pad(x)), slice(concatenate(…)) → pad(slice(x)), concatenate(slices)
	{"gatherindex", implicitIndexes},     // gather/scatter operands JAX spells out (i[:, None], its wrap and fill mask, splat updates) → attributes
	{"dce", eliminateDeadCode},           // ops whose results are unused and that have no effects
	{"rowfuse", fuseRows},                // row reductions + their elementwise neighbours → gojax.rowfusion (pass_rowfuse.go)
	{"fuse", fuseElementwise},            // elementwise trees → gojax.fusion ops (pass_fuse.go)
	{"schedule", scheduleForDonation},    // read donated arguments before outputs overwrite them
	{"planable", checkPlanable},          // every op left is one the planner or a kernel handles
}

// checkEachPass makes every compile check the IR after every pass (on under
// go test).
var checkEachPass = testing.Testing()

// runPasses runs the pass table. The IR invariants are checked on the input
// and after the last pass; with checkEach (go test, or a second run after
// any failure, see Compile), after every pass as well, so that a broken
// rewrite is reported by the pass that broke it. Checking after every pass
// on every compile was a fifth of the compile time of large programs.
func runPasses(st *passState, checkEach bool) error {
	if err := checkInvariants(st.module); err != nil {
		return fmt.Errorf("compiler: input IR: %w", err)
	}
	for i, p := range passes {
		if err := p.fn(st); err != nil {
			return err
		}
		if st.entry = st.module.Main(); st.entry == nil {
			return fmt.Errorf("compiler: pass %s removed the entry function", p.name)
		}
		if !checkEach && i < len(passes)-1 {
			continue
		}
		if err := checkInvariants(st.module); err != nil {
			if !checkEach {
				return fmt.Errorf("compiler: internal error: IR invariant broken by the passes: %w", err)
			}
			return fmt.Errorf("compiler: internal error: IR invariant broken after pass %s: %w", p.name, err)
		}
	}
	return nil
}

// checkInvariants verifies the structural invariants the passes and the
// planner rely on: back-pointers are consistent, every operand is defined
// before use in an enclosing scope, blocks end in their terminator. It is
// linear in the IR size; production compiles run it on the input and on
// the output of the passes (runPasses).
func checkInvariants(m *ir.Module) error {
	for _, f := range m.Funcs {
		if f.Body == nil || len(f.Body.Blocks) != 1 {
			return fmt.Errorf("func @%s: body must have exactly one block", f.Name)
		}
		visible := visibleSets.Get().(map[*ir.Value]bool)
		err := invChecker{visible: visible}.region(f.Body, nil, "func.return")
		clear(visible)
		visibleSets.Put(visible)
		if err != nil {
			return fmt.Errorf("func @%s: %w", f.Name, err)
		}
		b := f.Entry()
		if len(b.Args) != len(f.Type.Inputs) {
			return fmt.Errorf("func @%s: %d block arguments for %d inputs", f.Name, len(b.Args), len(f.Type.Inputs))
		}
		if t := b.Terminator(); len(t.Operands) != len(f.Type.Results) {
			return t.Errorf("returns %d values, function has %d results", len(t.Operands), len(f.Type.Results))
		}
	}
	return nil
}

// visibleSets recycles the checker's value sets: it runs after every pass,
// and a cleared map keeps its capacity, so only the first check of a
// compile grows one (growing it each time was most of the checker's cost).
var visibleSets = sync.Pool{New: func() any { return map[*ir.Value]bool{} }}

type invChecker struct{ visible map[*ir.Value]bool }

func (c invChecker) region(r *ir.Region, parent *ir.Op, term string) error {
	if r.Parent != parent {
		return fmt.Errorf("region has a wrong parent pointer")
	}
	for _, b := range r.Blocks {
		if b.Region != r {
			return fmt.Errorf("block has a wrong region pointer")
		}
		if err := c.block(b, term); err != nil {
			return err
		}
	}
	return nil
}

func (c invChecker) block(b *ir.Block, term string) error {
	var added []*ir.Value
	defer func() {
		for _, v := range added {
			delete(c.visible, v)
		}
	}()
	for i, a := range b.Args {
		if a.Block != b || a.Index != i || a.Def != nil {
			return fmt.Errorf("block argument %d has wrong back-pointers", i)
		}
		c.visible[a] = true
		added = append(added, a)
	}
	if len(b.Ops) == 0 {
		return fmt.Errorf("block has no terminator")
	}
	for i, op := range b.Ops {
		if op.Block != b {
			return op.Errorf("op has a wrong block pointer")
		}
		last := i == len(b.Ops)-1
		isTerm := op.Name == "func.return" || op.Name == "stablehlo.return" || op.Name == "sdy.return"
		if last && term != "" && op.Name != term && !(term == "stablehlo.return" && op.Name == "sdy.return") {
			return op.Errorf("block ends with %s, want %s", op.Name, term)
		}
		if !last && isTerm {
			return op.Errorf("terminator in the middle of a block")
		}
		for j, v := range op.Operands {
			if v == nil {
				return op.Errorf("operand %d is nil", j)
			}
			if !c.visible[v] {
				return op.Errorf("operand %d is not defined before its use", j)
			}
		}
		for _, r := range op.Regions {
			if err := c.region(r, op, "stablehlo.return"); err != nil {
				return err
			}
		}
		for j, v := range op.Results {
			if v.Def != op || v.Index != j {
				return op.Errorf("result %d has wrong back-pointers", j)
			}
			c.visible[v] = true
			added = append(added, v)
		}
	}
	return nil
}

// checkPlanable reports, before any lowering, the first op that neither the
// planner nor a registered kernel handles, with its location.
func checkPlanable(st *passState) error {
	var err error
	st.entry.Body.Walk(func(op *ir.Op) bool {
		err = planable(op)
		return err == nil
	})
	return err
}

func planable(op *ir.Op) error {
	switch op.Name {
	case "stablehlo.custom_call":
		target, _ := op.Attrs.Str("call_target_name")
		if _, ok := kernel.LookupCustomCall(target); !ok {
			return op.Errorf("unknown custom call target %q", target)
		}
		return nil
	case "stablehlo.tuple", "stablehlo.get_tuple_element":
		return op.Errorf("tuple values are not supported")
	case "func.call":
		return op.Errorf("call was not inlined")
	}
	if compilerOps[op.Name] || op.Name == "sdy.return" {
		return nil
	}
	if _, ok := kernel.Lookup(op.Name); !ok {
		return op.Errorf("no kernel for this op")
	}
	return nil
}
