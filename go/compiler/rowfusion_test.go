package compiler

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gojax/gojax/go/internal/racedetect"
	"github.com/gojax/gojax/go/internal/workers"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/fused"
	"github.com/stretchr/testify/require"
)

// Row fusion must give the unfused plan's bits (and the elementwise-only
// plan's) for softmax, log_softmax and layer-norm shaped programs, with any
// worker count, and leave programs it cannot run per row to the other paths.

// rowB builds row programs over x of shape lead+tail (tail reduced).
type rowB struct {
	*blkB
	et         ir.ElemType
	lead, tail []int64
}

func (r rowB) full() *ir.TensorType {
	return ir.Tensor(r.et, append(append([]int64{}, r.lead...), r.tail...)...)
}
func (r rowB) rows() *ir.TensorType { return ir.Tensor(r.et, r.lead...) }

// keep is the per-row shape with the reduced dims kept as 1.
func (r rowB) keep() *ir.TensorType {
	s := append([]int64{}, r.lead...)
	for range r.tail {
		s = append(s, 1)
	}
	return ir.Tensor(r.et, s...)
}

func (r rowB) scalar(v float64) *ir.Value {
	b := make([]byte, r.et.ByteSize())
	if r.et == ir.F64 {
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
	} else {
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	}
	return r.constant(ir.Tensor(r.et), b)
}

func iota64(lo, hi int) []int64 {
	var d []int64
	for i := lo; i < hi; i++ {
		d = append(d, int64(i))
	}
	return d
}

func (r rowB) reduce(body string, x *ir.Value, init float64) *ir.Value {
	st := ir.Tensor(r.et)
	op := r.op("stablehlo.reduce", []*ir.Value{x, r.scalar(init)}, []ir.Type{r.rows()},
		ir.Attrs{"dimensions": ir.DenseI64Attr{Values: iota64(len(r.lead), len(r.lead)+len(r.tail))}})
	op.AddRegion(r.region([]ir.Type{st, st}, func(rb *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{rb.v(body, st, nil, a[0], a[1])}
	}))
	return op.Result()
}

// spread broadcasts a per-row value along the rows, through the keepdims
// shape as jax does.
func (r rowB) spread(v *ir.Value) *ir.Value {
	k := r.v("stablehlo.broadcast_in_dim", r.keep(), ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: iota64(0, len(r.lead))}}, v)
	return r.v("stablehlo.broadcast_in_dim", r.full(), ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: iota64(0, len(r.lead)+len(r.tail))}}, k)
}

func (r rowB) bin(name string, x, y *ir.Value) *ir.Value {
	return r.v("stablehlo."+name, x.Type, nil, x, y)
}

func (r rowB) un(name string, x *ir.Value) *ir.Value { return r.v("stablehlo."+name, x.Type, nil, x) }

// rowProgram returns a module computing kind over x (and gamma, beta of the
// tail shape for layer norm).
func rowProgram(kind string, et ir.ElemType, lead, tail []int64) *ir.Module {
	rb := rowB{et: et, lead: lead, tail: tail}
	ins := []ir.Type{rb.full(), ir.Tensor(et, tail...), ir.Tensor(et, tail...)}
	var outs []ir.Type
	mb := newMod()
	mb.fn("main", "public", ins, nil, func(b *blkB, a []*ir.Value) []*ir.Value {
		rb.blkB = b
		x := a[0]
		n := 1.0
		for _, d := range tail {
			n *= float64(d)
		}
		var res []*ir.Value
		switch kind {
		case "softmax":
			m := rb.reduce("stablehlo.maximum", x, math.Inf(-1))
			lo := rb.v("stablehlo.broadcast_in_dim", rb.rows(), ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}, rb.scalar(math.Inf(-1)))
			m = rb.bin("maximum", lo, m)
			e := rb.un("exponential", rb.bin("subtract", x, rb.spread(m)))
			res = []*ir.Value{rb.bin("divide", e, rb.spread(rb.reduce("stablehlo.add", e, 0)))}
		case "logsoftmax":
			sh := rb.bin("subtract", x, rb.spread(rb.reduce("stablehlo.maximum", x, math.Inf(-1))))
			lse := rb.un("log", rb.reduce("stablehlo.add", rb.un("exponential", sh), 0))
			res = []*ir.Value{rb.bin("subtract", sh, rb.spread(lse))}
		case "layernorm":
			// The mean and the centred rows are results too.
			inv := func(v *ir.Value) *ir.Value {
				c := rb.v("stablehlo.broadcast_in_dim", rb.rows(), ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}, rb.scalar(n))
				return rb.bin("divide", v, c)
			}
			mean := inv(rb.reduce("stablehlo.add", x, 0))
			xc := rb.bin("subtract", x, rb.spread(mean))
			vr := inv(rb.reduce("stablehlo.add", rb.bin("multiply", xc, xc), 0))
			eps := rb.v("stablehlo.broadcast_in_dim", rb.rows(), ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}, rb.scalar(1e-5))
			rs := rb.un("rsqrt", rb.bin("add", vr, eps))
			tailDims := ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: iota64(len(lead), len(lead)+len(tail))}}
			g := rb.v("stablehlo.broadcast_in_dim", rb.full(), tailDims, a[1])
			be := rb.v("stablehlo.broadcast_in_dim", rb.full(), tailDims, a[2])
			y := rb.bin("add", rb.bin("multiply", rb.bin("multiply", xc, rb.spread(rs)), g), be)
			res = []*ir.Value{y, mean, xc}
		case "scaled":
			// Elementwise producers before the first reduce (a scale by a
			// broadcast scalar, then an added mask) join the group.
			c := rb.v("stablehlo.broadcast_in_dim", rb.full(), ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}, rb.scalar(0.125))
			tailDims := ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: iota64(len(lead), len(lead)+len(tail))}}
			y := rb.bin("add", rb.bin("multiply", x, c), rb.v("stablehlo.broadcast_in_dim", rb.full(), tailDims, a[1]))
			e := rb.un("exponential", rb.bin("subtract", y, rb.spread(rb.reduce("stablehlo.maximum", y, math.Inf(-1)))))
			res = []*ir.Value{rb.bin("divide", e, rb.spread(rb.reduce("stablehlo.add", e, 0)))}
		case "tainted":
			// An outsider reads a member and a later op reads it: it moves
			// after the fusion; sum then feeds both.
			s := rb.reduce("stablehlo.add", x, 0)
			rev := rb.v("stablehlo.reverse", rb.rows(), ir.Attrs{"dimensions": ir.DenseI64Attr{Values: []int64{0}}}, s)
			d := rb.bin("divide", x, rb.spread(s))
			res = []*ir.Value{rb.bin("multiply", d, rb.spread(rev)), rb.un("negate", d)}
		case "axis0", "nospread":
			// Not row-local (a reduce over the leading dim) or no per-row
			// value flows back: left to the other paths.
			st := ir.Tensor(et)
			dims := []int64{0}
			rt := ir.Tensor(et, append(append([]int64{}, lead[1:]...), tail...)...)
			if kind == "nospread" {
				dims, rt = iota64(len(lead), len(lead)+len(tail)), rb.rows()
			}
			op := b.op("stablehlo.reduce", []*ir.Value{rb.un("exponential", x), rb.scalar(0)}, []ir.Type{rt}, ir.Attrs{"dimensions": ir.DenseI64Attr{Values: dims}})
			op.AddRegion(b.region([]ir.Type{st, st}, func(r *blkB, a []*ir.Value) []*ir.Value {
				return []*ir.Value{r.v("stablehlo.add", st, nil, a[0], a[1])}
			}))
			res = []*ir.Value{rb.un("negate", op.Result())}
		}
		for _, v := range res {
			outs = append(outs, v.Type)
		}
		return res
	})
	mb.m.Funcs[0].Type.Results = outs
	return mb.m
}

// rowInputs: normal values with a few infinities and NaNs in x.
func rowInputs(m *ir.Module, seed uint64) [][]byte {
	r := rand.New(rand.NewPCG(seed, 3))
	var args [][]byte
	for i, t := range m.Funcs[0].Type.Inputs {
		tt := t.(*ir.TensorType)
		buf := make([]byte, tt.ByteSize())
		for j := range int(tt.NumElements()) {
			v := r.NormFloat64() * 3
			if i == 0 && r.IntN(300) == 0 {
				v = []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[r.IntN(3)]
			}
			if tt.Elem == ir.F64 {
				binary.LittleEndian.PutUint64(buf[8*j:], math.Float64bits(v))
			} else {
				binary.LittleEndian.PutUint32(buf[4*j:], math.Float32bits(float32(v)))
			}
		}
		args = append(args, buf)
	}
	return args
}

func countOps(e *Executable, name string) int {
	n := 0
	for _, in := range e.plan.body {
		if k, ok := in.(*kernelInstr); ok && k.op.Name == name {
			n++
		}
	}
	return n
}

func compileRowless(t *testing.T, m *ir.Module) *Executable {
	t.Helper()
	rowFusion = false
	defer func() { rowFusion = true }()
	e, err := CompileModule(m, Options{})
	require.NoError(t, err)
	return e
}

func TestRowFusionMatchesUnfused(t *testing.T) {
	needOps(t, "stablehlo.reduce", "stablehlo.exponential", "stablehlo.broadcast_in_dim", "stablehlo.reverse", "stablehlo.rsqrt")
	defer workers.Set(0)
	// {300, 1000}: several claimed units of blocks, so workers share them.
	shapes := [][2][]int64{{{37}, {1000}}, {{3, 5}, {300}}, {{64}, {1024}}, {{5}, {3000}}, {{9}, {4, 7}}, {{2}, {2}}, {{300}, {1000}}}
	for _, kind := range []string{"softmax", "logsoftmax", "layernorm", "tainted", "scaled"} {
		for _, et := range []ir.ElemType{ir.F32, ir.F64} {
			for si, sh := range shapes {
				name := fmt.Sprintf("%s/%s/%v", kind, et, sh)
				m := rowProgram(kind, et, sh[0], sh[1])
				args := rowInputs(m, uint64(si))
				ref, err := CompileModule(m, Options{NoFuse: true})
				require.NoError(t, err, name)
				want := runCopy(t, ref, args, nil)
				require.Equal(t, want, runCopy(t, compileRowless(t, m), args, nil), name)
				// Results written in place, then streamed out of scratch.
				for _, streamAll := range []bool{false, true} {
					var fe *Executable
					if streamAll {
						saved := fused.SetStreamMin(0)
						fe = compile(t, m)
						fused.SetStreamMin(saved)
					} else {
						fe = compile(t, m)
					}
					require.Equal(t, 1, countOps(fe, rowFusionOp), "%s\n%s", name, fe.PlanText())
					for _, w := range []int{1, 2, 3} {
						workers.Set(w)
						require.Equal(t, want, runCopy(t, fe, args, nil), "%s, %d workers, stream all %v\n%s", name, w, streamAll, fe.PlanText())
					}
					workers.Set(0)
				}
			}
		}
	}
}

func TestRowFusionSoftmaxIsOneStep(t *testing.T) {
	needOps(t, "stablehlo.reduce", "stablehlo.exponential", "stablehlo.broadcast_in_dim")
	e := compile(t, rowProgram("softmax", ir.F32, []int64{64}, []int64{1024}))
	require.Equal(t, 1, e.Stats().KernelSteps, e.PlanText())
	require.Equal(t, 0, e.Stats().Slots, "no intermediate arrays")
	out := toF32(run(t, e, rowInputs(rowProgram("softmax", ir.F32, []int64{64}, []int64{1024}), 9)...)[0])
	for r := range 64 {
		s := 0.0
		for _, v := range out[r*1024 : (r+1)*1024] {
			s += float64(v)
		}
		if s == s { // rows holding a NaN or +Inf give NaN
			require.InDelta(t, 1, s, 1e-4, "row %d", r)
		}
	}
}

func TestRowFusionTakesProducers(t *testing.T) {
	needOps(t, "stablehlo.reduce", "stablehlo.exponential", "stablehlo.broadcast_in_dim")
	e := compile(t, rowProgram("scaled", ir.F32, []int64{8}, []int64{512}))
	require.Equal(t, 1, e.Stats().KernelSteps, e.PlanText())
	require.Equal(t, 0, e.Stats().Slots, "no intermediate arrays")
}

func TestRowFusionFallback(t *testing.T) {
	needOps(t, "stablehlo.reduce", "stablehlo.exponential", "stablehlo.broadcast_in_dim")
	for _, kind := range []string{"axis0", "nospread"} {
		m := rowProgram(kind, ir.F32, []int64{6}, []int64{500})
		e := compile(t, m)
		require.Zero(t, countOps(e, rowFusionOp), "%s\n%s", kind, e.PlanText())
		ref, err := CompileModule(m, Options{NoFuse: true})
		require.NoError(t, err)
		args := rowInputs(m, 1)
		require.Equal(t, runCopy(t, ref, args, nil), runCopy(t, e, args, nil), kind)
	}
	// A one-element row is not worth it; a reduce with no fast path neither.
	m := rowProgram("softmax", ir.F32, []int64{6}, []int64{1})
	require.Zero(t, countOps(compile(t, m), rowFusionOp))
}

// A row group inside a loop body is fused there too.
func TestRowFusionInLoop(t *testing.T) {
	needOps(t, "stablehlo.reduce", "stablehlo.exponential", "stablehlo.broadcast_in_dim", "stablehlo.compare")
	rb := rowB{et: ir.F32, lead: []int64{16}, tail: []int64{300}}
	mb := newMod()
	mb.fn("main", "public", []ir.Type{rb.full()}, []ir.Type{rb.full()}, func(b *blkB, a []*ir.Value) []*ir.Value {
		r := b.while([]*ir.Value{b.i32c(0), a[0]},
			func(wb *blkB, c []*ir.Value) *ir.Value { return wb.cmp("LT", c[0], wb.i32c(3)) },
			func(wb *blkB, c []*ir.Value) []*ir.Value {
				rb.blkB = wb
				x := c[1]
				e := rb.un("exponential", rb.bin("subtract", x, rb.spread(rb.reduce("stablehlo.maximum", x, math.Inf(-1)))))
				y := rb.bin("divide", e, rb.spread(rb.reduce("stablehlo.add", e, 0)))
				return []*ir.Value{wb.hlo("add", c[0], wb.i32c(1)), rb.bin("add", y, x)}
			})
		return []*ir.Value{r[1]}
	})
	args := rowInputs(mb.m, 4)
	ref, err := CompileModule(mb.m, Options{NoFuse: true})
	require.NoError(t, err)
	e := compile(t, mb.m)
	require.Contains(t, e.PlanText(), rowFusionOp)
	require.Equal(t, runCopy(t, ref, args, nil), runCopy(t, e, args, nil))
}

// A row fusion step allocates nothing once warm (one worker: the pool's
// own bookkeeping is not counted).
func TestRowFusionStepAllocations(t *testing.T) {
	needOps(t, "stablehlo.reduce", "stablehlo.exponential", "stablehlo.broadcast_in_dim")
	defer workers.Set(0)
	workers.Set(1)
	m := rowProgram("softmax", ir.F32, []int64{16}, []int64{1000})
	e := compile(t, m)
	var k *kernelInstr
	for _, in := range e.plan.body {
		if ki, ok := in.(*kernelInstr); ok && ki.op.Name == rowFusionOp {
			k = ki
		}
	}
	require.NotNil(t, k)
	var ins [][]byte // zeros: only the allocations matter here
	for _, v := range k.op.Operands {
		n, err := byteSize(v.Type)
		require.NoError(t, err)
		ins = append(ins, make([]byte, n))
	}
	outs := [][]byte{make([]byte, 16*1000*4)}
	require.NoError(t, k.step(ins, outs))
	if !racedetect.Enabled {
		require.Zero(t, testing.AllocsPerRun(20, func() { _ = k.step(ins, outs) }))
	}
}
