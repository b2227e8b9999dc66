package compiler

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// Differential test of the planner: random programs of test adds and
// multiplies nested in while loops and cases are run by the compiler and by
// a direct interpreter of the IR; results must match bit for bit. Slot
// sharing, in-place updates, carry swaps and branch coalescing all have to
// be right for these to agree.

type progGen struct {
	real  bool // use stablehlo.add/multiply/compare (in-place capable) instead of test custom calls
	r     *rand.Rand
	b     *blkB
	n     *ir.Value // i32 parameter in [0, 3]
	depth int
}

func (g *progGen) pick(pool []*ir.Value) *ir.Value { return pool[g.r.IntN(len(pool))] }

func (g *progGen) add(b *blkB, x, y *ir.Value) *ir.Value {
	if g.real {
		return b.hlo("add", x, y)
	}
	return b.add(x, y)
}

func (g *progGen) mul(b *blkB, x, y *ir.Value) *ir.Value {
	if g.real {
		return b.hlo("multiply", x, y)
	}
	return b.mul(x, y)
}

func (g *progGen) lt(b *blkB, x, y *ir.Value) *ir.Value {
	if g.real {
		return b.cmp("LT", x, y)
	}
	return b.lt(x, y)
}

// stmts appends random statements to g.b and returns the grown pool of f32
// values visible at the end.
func (g *progGen) stmts(pool []*ir.Value, count int) []*ir.Value {
	for range count {
		switch k := g.r.IntN(10); {
		case k < 5 || g.depth >= 2:
			x, y := g.pick(pool), g.pick(pool)
			if g.r.IntN(2) == 0 {
				pool = append(pool, g.add(g.b, x, y))
			} else {
				pool = append(pool, g.mul(g.b, x, g.b.f32c([]int64{4}, 0.5, -1, 0.25, 2)))
			}
		case k < 6:
			pool = append(pool, g.b.f32c([]int64{4}, float32(g.r.IntN(5)), 1, -2, 3))
		case k < 8:
			pool = append(pool, g.while(pool)...)
		default:
			pool = append(pool, g.caseOp(pool)...)
		}
	}
	return pool
}

func (g *progGen) while(pool []*ir.Value) []*ir.Value {
	nc := 1 + g.r.IntN(3)
	init := []*ir.Value{g.b.i32c(0)}
	for range nc {
		init = append(init, g.pick(pool))
	}
	var bound *ir.Value
	if g.r.IntN(2) == 0 {
		bound = g.n
	} else {
		bound = g.b.i32c(int32(g.r.IntN(4)))
	}
	outer := g.b
	res := outer.while(init,
		func(rb *blkB, c []*ir.Value) *ir.Value { return g.lt(rb, c[0], bound) },
		func(rb *blkB, c []*ir.Value) []*ir.Value {
			g.b, g.depth = rb, g.depth+1
			inner := append(append([]*ir.Value{}, pool...), c[1:]...)
			inner = g.stmts(inner, 1+g.r.IntN(4))
			out := []*ir.Value{g.add(rb, c[0], rb.i32c(1))}
			for i := range nc {
				switch g.r.IntN(4) {
				case 0:
					out = append(out, c[1+i]) // unchanged
				case 1:
					out = append(out, c[1+g.r.IntN(nc)]) // permuted
				default:
					out = append(out, g.pick(inner))
				}
			}
			g.b, g.depth = outer, g.depth-1
			return out
		})
	return res[1:]
}

func (g *progGen) caseOp(pool []*ir.Value) []*ir.Value {
	nr := 1 + g.r.IntN(2)
	types := make([]ir.Type, nr)
	for i := range types {
		types[i] = f32t(4)
	}
	var branches []func(rb *blkB) []*ir.Value
	for range 1 + g.r.IntN(3) {
		branches = append(branches, func(rb *blkB) []*ir.Value {
			outer := g.b
			g.b, g.depth = rb, g.depth+1
			inner := g.stmts(append([]*ir.Value{}, pool...), g.r.IntN(3))
			var out []*ir.Value
			for range nr {
				out = append(out, g.pick(inner))
			}
			g.b, g.depth = outer, g.depth-1
			return out
		})
	}
	return g.b.caseOp(g.n, types, branches...)
}

func randomModule(seed uint64, real bool) *ir.Module {
	g := &progGen{r: rand.New(rand.NewPCG(seed, 7)), real: real}
	mb := newMod()
	nOut := 1 + g.r.IntN(3)
	outs := make([]ir.Type, nOut)
	for i := range outs {
		outs[i] = f32t(4)
	}
	mb.fn("main", "public", []ir.Type{i32t(), f32t(4), f32t(4)}, outs, func(b *blkB, a []*ir.Value) []*ir.Value {
		g.b, g.n = b, a[0]
		pool := g.stmts([]*ir.Value{a[1], a[2]}, 3+g.r.IntN(8))
		var res []*ir.Value
		for range nOut {
			res = append(res, g.pick(pool))
		}
		return res
	})
	return mb.m
}

// interp evaluates the test IR directly.
type interp struct{ vals map[*ir.Value][]byte }

func (in *interp) block(b *ir.Block) [][]byte {
	for _, op := range b.Ops {
		switch op.Name {
		case "func.return", "stablehlo.return":
			var out [][]byte
			for _, v := range op.Operands {
				out = append(out, in.vals[v])
			}
			return out
		case "stablehlo.constant":
			e, _ := op.Attrs.Elements("value")
			in.vals[op.Results[0]] = e.Data
		case "stablehlo.while":
			cur := make([][]byte, len(op.Operands))
			for i, v := range op.Operands {
				cur[i] = in.vals[v]
			}
			cond, body := op.Regions[0].Blocks[0], op.Regions[1].Blocks[0]
			for {
				for i, a := range cond.Args {
					in.vals[a] = cur[i]
				}
				if in.block(cond)[0][0] == 0 {
					break
				}
				for i, a := range body.Args {
					in.vals[a] = cur[i]
				}
				cur = in.block(body)
			}
			for i, r := range op.Results {
				in.vals[r] = cur[i]
			}
		case "stablehlo.case":
			idx := int32(binary.LittleEndian.Uint32(in.vals[op.Operands[0]]))
			br := int(idx)
			if idx < 0 || br >= len(op.Regions) {
				br = len(op.Regions) - 1
			}
			for i, v := range in.block(op.Regions[br].Blocks[0]) {
				in.vals[op.Results[i]] = v
			}
		case "stablehlo.custom_call", "stablehlo.add", "stablehlo.multiply", "stablehlo.compare":
			target, _ := op.Attrs.Str("call_target_name")
			switch op.Name {
			case "stablehlo.add":
				target = "gojax.test.add"
			case "stablehlo.multiply":
				target = "gojax.test.mul"
			case "stablehlo.compare":
				target = "gojax.test.lt"
			}
			x, y := in.vals[op.Operands[0]], in.vals[op.Operands[1]]
			out := make([]byte, len(x))
			isF := op.Operands[0].Tensor().Elem == ir.F32
			for i := 0; i < len(x); i += 4 {
				a, b := binary.LittleEndian.Uint32(x[i:]), binary.LittleEndian.Uint32(y[i:])
				fa, fb := math.Float32frombits(a), math.Float32frombits(b)
				switch {
				case target == "gojax.test.add" && isF:
					binary.LittleEndian.PutUint32(out[i:], math.Float32bits(fa+fb))
				case target == "gojax.test.mul" && isF:
					binary.LittleEndian.PutUint32(out[i:], math.Float32bits(fa*fb))
				case target == "gojax.test.add":
					binary.LittleEndian.PutUint32(out[i:], uint32(int32(a)+int32(b)))
				case target == "gojax.test.lt":
					out = out[:1]
					out[0] = 0
					if int32(a) < int32(b) {
						out[0] = 1
					}
				default:
					panic("interp: unsupported " + target)
				}
			}
			in.vals[op.Results[0]] = out
		default:
			panic("interp: unsupported " + op.Name)
		}
	}
	panic("interp: block without terminator")
}

func TestRandomProgramsMatchInterpreter(t *testing.T) {
	t.Run("custom calls", func(t *testing.T) { testRandomPrograms(t, false) })
	t.Run("real ops", func(t *testing.T) {
		needOps(t, "stablehlo.add", "stablehlo.multiply", "stablehlo.compare")
		testRandomPrograms(t, true)
	})
}

func testRandomPrograms(t *testing.T, real bool) {
	aliased := 0
	for seed := range uint64(300) {
		m := randomModule(seed, real)
		donate := seed%2 == 1
		if donate {
			// Both f32 arguments may be reused for any output of their type;
			// the scheduler and the donation check must keep results intact.
			for _, i := range []int{1, 2} {
				m.Funcs[0].ArgAttrs[i]["jax.buffer_donor"] = ir.BoolAttr{Value: true}
			}
		}
		for _, noFold := range []bool{false, true} {
			e, err := CompileModule(m, Options{NoFold: noFold})
			require.NoError(t, err, "seed %d", seed)
			for n := range int32(4) {
				x, y := f32s(1, 2, 3, 4), f32s(-1, 0.5, 2, 8)
				in := &interp{vals: map[*ir.Value][]byte{}}
				main := m.Funcs[0]
				in.vals[main.Entry().Args[0]] = i32s(n)
				in.vals[main.Entry().Args[1]] = append([]byte(nil), x...)
				in.vals[main.Entry().Args[2]] = append([]byte(nil), y...)
				want := in.block(main.Entry())

				res, err := e.Run([][]byte{i32s(n), x, y}, []bool{false, donate, donate})
				require.NoError(t, err, "seed %d", seed)
				got := make([][]byte, len(res.Outputs))
				for i, o := range res.Outputs {
					got[i] = append([]byte(nil), o...)
					if res.AliasOf[i] < 0 {
						devmem.Free(o)
					} else {
						aliased++
					}
				}
				require.Equal(t, want, got, "seed %d n %d noFold %v\n%s", seed, n, noFold, e.PlanText())
			}
		}
	}
	require.Greater(t, aliased, 100, "donation happens in the random programs")
}
