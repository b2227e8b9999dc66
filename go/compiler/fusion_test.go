package compiler

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// Differential test of fusion: random elementwise DAGs (several element
// types, converts, compares, selects, clamps, broadcasts of scalars, rows,
// columns and transposed operands, values with several users, outputs taken
// from the middle of chains) are compiled with and without fusion; outputs
// must match bit for bit. Shapes span several fusion blocks, so block and
// row boundaries fall inside broadcast rows.

type fuseGen struct {
	r    *rand.Rand
	b    *blkB
	rows int64
	cols int64
	pool map[ir.ElemType][]*ir.Value // values of the full shape, by type
}

func (g *fuseGen) full(t ir.ElemType) *ir.TensorType { return ir.Tensor(t, g.rows, g.cols) }

func (g *fuseGen) pick(t ir.ElemType) *ir.Value {
	p := g.pool[t]
	// Favour recent values so chains grow long.
	i := len(p) - 1 - g.r.IntN(min(len(p), 4))
	if g.r.IntN(4) == 0 {
		i = g.r.IntN(len(p))
	}
	return p[i]
}

func (g *fuseGen) add(v *ir.Value) { g.pool[v.Tensor().Elem] = append(g.pool[v.Tensor().Elem], v) }

func (g *fuseGen) unary(name string, t ir.ElemType, x *ir.Value) *ir.Value {
	return g.b.v("stablehlo."+name, g.full(t), nil, x)
}

func (g *fuseGen) binary(name string, t ir.ElemType, x, y *ir.Value) *ir.Value {
	return g.b.v("stablehlo."+name, g.full(t), nil, x, y)
}

func (g *fuseGen) bcast(x *ir.Value, dims ...int64) *ir.Value {
	t := x.Tensor()
	return g.b.v("stablehlo.broadcast_in_dim", g.full(t.Elem), ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: dims}}, x)
}

var (
	fuseFloatUnary  = []string{"tanh", "exponential", "negate", "abs", "sqrt", "logistic", "floor", "sine", "log_plus_one"}
	fuseFloatBinary = []string{"add", "subtract", "multiply", "divide", "maximum", "minimum", "power"}
	fuseIntBinary   = []string{"add", "subtract", "multiply", "divide", "remainder", "and", "xor", "shift_left", "maximum"}
	fuseDirs        = []string{"EQ", "NE", "LT", "LE", "GT", "GE"}
)

// step adds one random op to the pool.
func (g *fuseGen) step(args []*ir.Value) {
	b := g.b
	floats := []ir.ElemType{ir.F32, ir.F32, ir.F64, ir.BF16}
	ft := floats[g.r.IntN(len(floats))]
	switch k := g.r.IntN(15); k {
	case 0, 1:
		g.add(g.unary(fuseFloatUnary[g.r.IntN(len(fuseFloatUnary))], ft, g.pick(ft)))
	case 2, 3, 4:
		g.add(g.binary(fuseFloatBinary[g.r.IntN(len(fuseFloatBinary))], ft, g.pick(ft), g.pick(ft)))
	case 5:
		g.add(g.binary(fuseIntBinary[g.r.IntN(len(fuseIntBinary))], ir.S32, g.pick(ir.S32), g.pick(ir.S32)))
	case 6:
		ts := []ir.ElemType{ir.F32, ir.F64, ir.BF16, ir.S32}
		from, to := ts[g.r.IntN(len(ts))], ts[g.r.IntN(len(ts))]
		g.add(g.b.v("stablehlo.convert", g.full(to), nil, g.pick(from)))
	case 7:
		t := []ir.ElemType{ir.F32, ir.S32, ir.BF16}[g.r.IntN(3)]
		g.add(b.cmp(fuseDirs[g.r.IntN(len(fuseDirs))], g.pick(t), g.pick(t)))
	case 8:
		t := []ir.ElemType{ir.F32, ir.S32, ir.F64}[g.r.IntN(3)]
		p := g.pick(ir.Pred)
		if g.r.IntN(3) == 0 {
			p = args[7] // rank-0 predicate
		}
		g.add(b.v("stablehlo.select", g.full(t), nil, p, g.pick(t), g.pick(t)))
	case 9:
		lo, hi := g.pick(ir.F32), g.pick(ir.F32)
		if g.r.IntN(2) == 0 {
			lo, hi = args[3], b.f32c(nil, 2)
		}
		g.add(b.v("stablehlo.clamp", g.full(ir.F32), nil, lo, g.pick(ir.F32), hi))
	case 10: // broadcasts of a scalar parameter or constant
		s := args[3]
		if g.r.IntN(2) == 0 {
			s = b.f32c(nil, float32(g.r.IntN(7))-3)
		}
		g.add(g.binary(fuseFloatBinary[g.r.IntN(3)], ir.F32, g.pick(ir.F32), g.bcast(s)))
	case 11: // a row vector, a column vector, a [1,C] operand
		var x *ir.Value
		switch g.r.IntN(3) {
		case 0:
			x = g.bcast(args[4], 1)
		case 1:
			x = g.bcast(args[5], 0)
		default:
			x = g.bcast(b.v("stablehlo.reshape", f32t(1, g.cols), nil, args[4]), 0, 1)
		}
		g.add(g.binary("multiply", ir.F32, x, g.pick(ir.F32)))
	case 12: // a transposed operand
		g.add(g.binary("add", ir.F32, g.pick(ir.F32), g.bcast(args[6], 1, 0)))
	case 14: // reshapes between elementwise ops (same element count)
		t := []ir.ElemType{ir.F32, ir.S32, ir.BF16}[g.r.IntN(3)]
		shape := ir.Tensor(t, g.cols, g.rows)
		if g.r.IntN(2) == 0 {
			shape = ir.Tensor(t, g.rows*g.cols)
		}
		x := b.v("stablehlo.reshape", shape, nil, g.pick(t))
		y := x
		if g.r.IntN(2) == 0 {
			y = b.v("stablehlo.reshape", shape, nil, g.pick(t))
		}
		v := b.v([]string{"stablehlo.add", "stablehlo.multiply", "stablehlo.maximum"}[g.r.IntN(3)], shape, nil, x, y)
		if g.r.IntN(2) == 0 {
			v = b.v("stablehlo.negate", shape, nil, v)
		}
		g.add(b.v("stablehlo.reshape", g.full(t), nil, v))
	case 13: // a non-fusible op in the middle: splits the trees
		x := g.pick(ir.F32)
		g.add(b.v("stablehlo.reverse", x.Type, ir.Attrs{"dimensions": ir.DenseI64Attr{Values: []int64{1}}}, x))
	}
}

func randomFusionModule(seed uint64) (*ir.Module, [][]byte) {
	r := rand.New(rand.NewPCG(seed, 11))
	rows, cols := int64(1+r.IntN(5)), int64(1+r.IntN(900))
	switch seed % 10 {
	case 0:
		rows, cols = 64, 1000 // enough blocks to run on the worker pool
	case 3, 6:
		rows, cols = 3, 1 // tiny: one partial block
	}
	g := &fuseGen{r: r, rows: rows, cols: cols, pool: map[ir.ElemType][]*ir.Value{}}
	ins := []ir.Type{
		g.full(ir.F32), g.full(ir.F32), g.full(ir.S32), f32t(), f32t(cols), f32t(rows), f32t(cols, rows),
		ir.Tensor(ir.Pred), g.full(ir.BF16), g.full(ir.F64),
	}
	nOut := 1 + r.IntN(5)
	outTypes := make([]ir.Type, nOut)
	var outs []*ir.Value
	mb := newMod()
	mb.fn("main", "public", ins, nil, func(b *blkB, a []*ir.Value) []*ir.Value {
		g.b = b
		g.add(a[0])
		g.add(a[1])
		g.add(a[2])
		g.add(a[8])
		g.add(a[9])
		g.add(b.cmp("LT", a[0], a[1]))
		for range 4 + r.IntN(20) {
			g.step(a)
		}
		for i := range nOut {
			ts := []ir.ElemType{ir.F32, ir.F32, ir.S32, ir.Pred, ir.BF16, ir.F64}
			outs = append(outs, g.pick(ts[r.IntN(len(ts))]))
			outTypes[i] = outs[i].Type
		}
		return outs
	})
	mb.m.Funcs[0].Type.Results = outTypes
	// Inputs: mixed magnitudes, signs, a few NaNs and infinities.
	args := make([][]byte, len(ins))
	for i, t := range ins {
		tt := t.(*ir.TensorType)
		n := int(tt.NumElements())
		switch tt.Elem {
		case ir.F32:
			v := make([]float32, n)
			for j := range v {
				v[j] = float32(r.NormFloat64() * 3)
				if r.IntN(50) == 0 {
					v[j] = float32([]float64{math.NaN(), math.Inf(1), math.Inf(-1), 0}[r.IntN(4)])
				}
			}
			args[i] = f32s(v...)
		case ir.S32:
			v := make([]int32, n)
			for j := range v {
				v[j] = int32(r.IntN(41)) - 20
			}
			args[i] = i32s(v...)
		default:
			buf := make([]byte, tt.ByteSize())
			for j := range buf {
				buf[j] = byte(r.Uint32())
			}
			if tt.Elem == ir.Pred {
				buf[0] &= 1
			}
			args[i] = buf
		}
	}
	return mb.m, args
}

func runCopy(t *testing.T, e *Executable, args [][]byte, donate []bool) [][]byte {
	t.Helper()
	in := make([][]byte, len(args))
	for i, a := range args {
		in[i] = append([]byte(nil), a...)
	}
	res, err := e.Run(in, donate)
	require.NoError(t, err)
	out := make([][]byte, len(res.Outputs))
	for i, o := range res.Outputs {
		out[i] = append([]byte(nil), o...)
		if res.AliasOf[i] < 0 {
			devmem.Free(o)
		}
	}
	return out
}

func TestFusionMatchesUnfused(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.tanh", "stablehlo.convert", "stablehlo.broadcast_in_dim",
		"stablehlo.select", "stablehlo.clamp", "stablehlo.compare", "stablehlo.reverse", "stablehlo.reshape")
	fusedOps, multi := 0, 0
	for seed := range uint64(300) {
		m, args := randomFusionModule(seed)
		donate := make([]bool, len(args))
		if seed%2 == 1 {
			for _, i := range []int{0, 1, 2, 8, 9} {
				m.Funcs[0].ArgAttrs[i]["jax.buffer_donor"] = ir.BoolAttr{Value: true}
				donate[i] = true
			}
		}
		ref, err := CompileModule(m, Options{NoFuse: true})
		require.NoError(t, err, "seed %d", seed)
		fused, err := CompileModule(m, Options{})
		require.NoError(t, err, "seed %d", seed)
		fusedOps += ref.Stats().KernelSteps - fused.Stats().KernelSteps
		for _, in := range fused.plan.body {
			if k, ok := in.(*kernelInstr); ok && k.op.Name == fusionOp && len(k.outs) > 1 {
				multi++
			}
		}
		want := runCopy(t, ref, args, donate)
		got := runCopy(t, fused, args, donate)
		require.Equal(t, want, got, "seed %d\n%s", seed, fused.PlanText())
	}
	require.Greater(t, fusedOps, 400, "fusion merges many ops in these programs")
	require.Greater(t, multi, 20, "fusions with several results occur")
	t.Logf("%d kernel steps fused away, %d multi-result fusions", fusedOps, multi)
}

// TestFusionShapes checks the fused plan shape of typical programs.
func TestFusionShapes(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.multiply", "stablehlo.tanh", "stablehlo.broadcast_in_dim")
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(4, 3000), f32t(4, 3000), f32t(3000)}, []ir.Type{f32t(4, 3000)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		two := b.v("stablehlo.broadcast_in_dim", f32t(4, 3000), ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}, b.f32c(nil, 2))
		row := b.v("stablehlo.broadcast_in_dim", f32t(4, 3000), ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: []int64{1}}}, a[2])
		x := b.hlo("add", b.hlo("multiply", a[0], two), row)
		return []*ir.Value{b.hlo("multiply", b.v("stablehlo.tanh", x.Type, nil, x), a[1])}
	})
	e := compile(t, mb.m)
	require.Equal(t, 1, e.Stats().KernelSteps, "tanh(x*2+row)*y is one loop")
	require.Equal(t, 0, e.Stats().Slots, "no intermediate buffers")
	x, y, row := make([]float32, 12000), make([]float32, 12000), make([]float32, 3000)
	for i := range x {
		x[i], y[i] = float32(i%97)/50-1, float32(i%13)-6
	}
	for i := range row {
		row[i] = float32(i%7) / 10
	}
	got := toF32(run(t, e, f32s(x...), f32s(y...), f32s(row...))[0])
	for i := range got {
		want := float32(math.Tanh(float64(x[i]*2+row[i%3000]))) * y[i]
		require.InDelta(t, want, got[i], 1e-6*math.Abs(float64(y[i]))+1e-7, "element %d", i)
	}
	require.Contains(t, fmt.Sprint(e.PlanText()), fusionOp)
}

func TestFusionDumpAndPlanText(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.multiply", "stablehlo.tanh", "stablehlo.broadcast_in_dim")
	dir := t.TempDir()
	e, err := CompileModule(chainModule(3000, true), Options{DumpDir: dir})
	require.NoError(t, err)
	require.Equal(t, 1, e.Stats().KernelSteps)
	files, err := filepath.Glob(filepath.Join(dir, "*optimized*"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	text, err := os.ReadFile(files[0])
	require.NoError(t, err)
	require.Contains(t, string(text), fusionOp)
	require.Contains(t, string(text), "stablehlo.tanh", "members are printed inside the fusion region")
	require.Contains(t, e.PlanText(), fusionOp)
}

// TestFusionInLoopUpdatesCarryInPlace: a fused update of a loop-carried
// value writes straight into the carried buffer (no swap or staging copy).
func TestFusionInLoopUpdatesCarryInPlace(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.multiply", "stablehlo.compare", "stablehlo.tanh")
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(2000)}, []ir.Type{f32t(2000)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		r := b.while([]*ir.Value{b.i32c(0), a[0]},
			func(rb *blkB, c []*ir.Value) *ir.Value { return rb.cmp("LT", c[0], rb.i32c(3)) },
			func(rb *blkB, c []*ir.Value) []*ir.Value {
				x := rb.v("stablehlo.tanh", c[1].Type, nil, rb.hlo("multiply", c[1], c[1]))
				return []*ir.Value{rb.hlo("add", c[0], rb.i32c(1)), rb.hlo("add", x, c[1])}
			})
		return []*ir.Value{r[1]}
	})
	fused := compile(t, mb.m)
	w := fused.plan.body[0].(*whileInstr)
	require.Empty(t, w.swaps)
	require.Empty(t, w.stage)
	ref, err := CompileModule(mb.m, Options{NoFuse: true})
	require.NoError(t, err)
	x := make([]float32, 2000)
	for i := range x {
		x[i] = float32(i)/1000 - 1
	}
	require.Equal(t, run(t, ref, f32s(x...)), run(t, fused, f32s(x...)))
}

func TestDonationFusedInPlace(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.multiply", "stablehlo.tanh", "stablehlo.broadcast_in_dim")
	build := func(transposed bool) *ir.Module {
		mb := newMod()
		f := mb.fn("main", "public", []ir.Type{f32t(2, 2), f32t(2, 2)}, []ir.Type{f32t(2, 2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			x := a[0]
			if transposed { // the fusion reads x through an index map: no in-place
				x = b.v("stablehlo.broadcast_in_dim", x.Type, ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: []int64{1, 0}}}, x)
			}
			return []*ir.Value{b.hlo("add", b.v("stablehlo.tanh", x.Type, nil, b.hlo("multiply", x, a[1])), x)}
		})
		f.ArgAttrs[0]["tf.aliasing_output"] = ir.IntAttr{Value: 0, Type: ir.S32}
		return mb.m
	}
	for _, transposed := range []bool{false, true} {
		e := compile(t, build(transposed))
		require.Equal(t, 1, e.Stats().KernelSteps)
		want := []int{0}
		if transposed {
			want = []int{-1}
		}
		require.Equal(t, want, e.OutputAliases(), "transposed %v", transposed)
		a0 := f32s(1, 2, 3, 4)
		res, err := e.Run([][]byte{a0, f32s(0.5, 0.25, -1, 2)}, []bool{true, false})
		require.NoError(t, err)
		x := []float32{1, 2, 3, 4}
		if transposed {
			x = []float32{1, 3, 2, 4}
		}
		y := []float32{0.5, 0.25, -1, 2}
		got := toF32(res.Outputs[0])
		for i := range got {
			require.InDelta(t, math.Tanh(float64(x[i]*y[i]))+float64(x[i]), got[i], 1e-6)
		}
		if !transposed {
			require.Equal(t, []int{0}, res.AliasOf)
			require.Equal(t, got, toF32(a0))
		} else {
			devmem.Free(res.Outputs[0])
		}
	}
}

// TestFusionConcurrentRuns runs a parallel fused step from several
// goroutines at once (pooled scratch, run state and jobs must not mix).
func TestFusionConcurrentRuns(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.multiply", "stablehlo.tanh", "stablehlo.broadcast_in_dim")
	const n = 1 << 17
	fused := compile(t, chainModule(n, true))
	ref, err := CompileModule(chainModule(n, true), Options{NoFuse: true})
	require.NoError(t, err)
	inputs := make([][][]byte, 4)
	for g := range inputs {
		x, y := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = float32((i*(g+3))%1000)/500-1, float32(g+1)
		}
		inputs[g] = [][]byte{f32s(x...), f32s(y...)}
	}
	done := make(chan error, len(inputs))
	for g := range inputs {
		want := runCopy(t, ref, inputs[g], nil)
		go func() {
			for range 5 {
				res, err := fused.Run(inputs[g], nil)
				if err != nil {
					done <- err
					return
				}
				same := bytes.Equal(want[0], res.Outputs[0])
				freeAll(res)
				if !same {
					done <- fmt.Errorf("goroutine %d: fused result differs", g)
					return
				}
			}
			done <- nil
		}()
	}
	for range inputs {
		require.NoError(t, <-done)
	}
}
