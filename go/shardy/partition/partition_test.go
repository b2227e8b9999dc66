package partition

import (
	"encoding/binary"
	"math"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/gojax/gojax/go/shardy"
)

// The oracle of these tests is the global program run as one process: each
// partition's program, run on its shards with the others, must produce the
// shards of the global results.

type prog struct {
	blk  *ir.Block
	f    *ir.Func
	mesh *shardy.Mesh
	args []*shardy.Sharding
	outs []*shardy.Sharding
}

func f32(shape ...int64) *ir.TensorType { return ir.Tensor(ir.F32, shape...) }

func newProg(mesh *shardy.Mesh, types []*ir.TensorType, args []*shardy.Sharding) *prog {
	in := make([]ir.Type, len(types))
	for i, t := range types {
		in[i] = t
	}
	blk := ir.NewBlock(in...)
	return &prog{blk: blk, mesh: mesh, args: args, f: &ir.Func{Name: "main", Type: ir.FuncType{Inputs: in}}}
}

func (p *prog) op(name string, ins []*ir.Value, out *ir.TensorType, attrs ir.Attrs) *ir.Value {
	return p.blk.Append(ir.NewOp(name, ins, []ir.Type{out}, attrs)).Result()
}

func (p *prog) constant(v float32) *ir.Value {
	data := binary.LittleEndian.AppendUint32(nil, math.Float32bits(v))
	return p.op("stablehlo.constant", nil, f32(), ir.Attrs{"value": &ir.ElementsAttr{Type: f32(), Data: data}})
}

func (p *prog) sum(v *ir.Value, dims []int64, out *ir.TensorType) *ir.Value {
	op := ir.NewOp("stablehlo.reduce", []*ir.Value{v, p.constant(0)}, []ir.Type{out}, ir.Attrs{"dimensions": ir.DenseI64Attr{Values: dims}})
	op.AddRegion(addRegion(ir.F32))
	return p.blk.Append(op).Result()
}

func (p *prog) dot(a, b *ir.Value, lc, rc int64, out *ir.TensorType) *ir.Value {
	return p.op("stablehlo.dot_general", []*ir.Value{a, b}, out, ir.Attrs{
		"lhs_contracting_dimensions": ir.DenseI64Attr{Values: []int64{lc}},
		"rhs_contracting_dimensions": ir.DenseI64Attr{Values: []int64{rc}},
	})
}

func (p *prog) ret(outs []*shardy.Sharding, vals ...*ir.Value) *ir.Module {
	p.blk.Append(ir.NewOp("func.return", vals, nil, nil))
	for _, v := range vals {
		p.f.Type.Results = append(p.f.Type.Results, v.Type)
	}
	p.outs = outs
	p.f.Body = ir.NewRegion(p.blk)
	// Propagation reads the argument shardings from their annotations.
	for _, s := range p.args {
		p.f.ArgAttrs = append(p.f.ArgAttrs, ir.Attrs{"sdy.sharding": ir.OpaqueAttr{Dialect: "sdy", Text: sdyText(s, len(p.f.ArgAttrs), p)}})
	}
	return &ir.Module{Funcs: []*ir.Func{p.f}}
}

// sdyText writes argument i's sharding as a Shardy attribute over @mesh.
func sdyText(s *shardy.Sharding, i int, p *prog) string {
	rank := p.f.Type.Inputs[i].(*ir.TensorType).Rank()
	var dims []string
	for d := 0; d < rank; d++ {
		var axes []string
		if s != nil {
			for _, a := range s.Dims[d] {
				axes = append(axes, `"`+a.Name+`"`)
			}
		}
		dims = append(dims, "{"+strings.Join(axes, ", ")+"}")
	}
	return "#sdy.sharding<@mesh, [" + strings.Join(dims, ", ") + "]>"
}

func mesh1(n int) *shardy.Mesh { return &shardy.Mesh{Axes: []shardy.Axis{{Name: "x", Size: n}}} }

// sh shards dimension dim over mesh axes (nil: replicated).
func sh(m *shardy.Mesh, rank int, dims map[int][]string) *shardy.Sharding {
	s := &shardy.Sharding{Dims: make([][]shardy.Axis, rank), Mesh: m}
	for d, names := range dims {
		for _, n := range names {
			a, _ := m.Axis(n)
			s.Dims[d] = append(s.Dims[d], a)
		}
	}
	return s
}

func randBytes(r *rand.Rand, t *ir.TensorType) []byte {
	out := make([]byte, 0, t.ByteSize())
	for i := int64(0); i < t.NumElements(); i++ {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(float32(r.NormFloat64())))
	}
	return out
}

func floats(b []byte) []float64 {
	out := make([]float64, len(b)/4)
	for i := range out {
		out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return out
}

// check partitions m and compares every partition's results with the
// shards of the global run; it returns the partitioned program.
func check(t *testing.T, p *prog, m *ir.Module) *Program {
	t.Helper()
	pr, err := Build(Input{Module: m, Meshes: map[string]*shardy.Mesh{"mesh": p.mesh}, Mesh: p.mesh, Args: p.args, Outs: p.outs})
	require.NoError(t, err)
	global, err := compiler.CompileModule(m, compiler.Options{})
	require.NoError(t, err)
	r := rand.New(rand.NewSource(1))
	var args [][]byte
	for _, ty := range p.f.Type.Inputs {
		args = append(args, randBytes(r, ty.(*ir.TensorType)))
	}
	want, err := global.Run(args, nil)
	require.NoError(t, err)
	n := p.mesh.Size()
	meet := kernel.NewRendezvous(n)
	got := make([]*compiler.RunResult, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for q := 0; q < n; q++ {
		exe, err := compiler.CompileModule(pr.Parts[q], compiler.Options{Partition: &kernel.Partition{Self: q, Count: n, Meet: meet}})
		require.NoError(t, err, "partition %d", q)
		var local [][]byte
		for i, ty := range p.f.Type.Inputs {
			local = append(local, shard(t, p.args[i], p.mesh, ty.(*ir.TensorType), args[i], q))
		}
		wg.Add(1)
		go func(q int) {
			defer wg.Done()
			if got[q], errs[q] = exe.Run(local, nil); errs[q] != nil {
				meet.Abort()
			}
		}(q)
	}
	wg.Wait()
	for q := 0; q < n; q++ {
		require.NoError(t, errs[q], "partition %d", q)
		for i, ty := range p.f.Type.Results {
			w := floats(shard(t, p.outs[i], p.mesh, ty.(*ir.TensorType), want.Outputs[i], q))
			g := floats(got[q].Outputs[i])
			require.Len(t, g, len(w), "partition %d result %d", q, i)
			for k := range w {
				require.InDelta(t, w[k], g[k], 1e-4*(1+math.Abs(w[k])), "partition %d result %d element %d", q, i, k)
			}
			devmem.Free(got[q].Outputs[i])
		}
	}
	return pr
}

func shard(t *testing.T, s *shardy.Sharding, m *shardy.Mesh, ty *ir.TensorType, global []byte, q int) []byte {
	shape, off, err := s.ShardOf(m, ty.Shape, q)
	require.NoError(t, err)
	out := make([]byte, ir.Tensor(ty.Elem, shape...).ByteSize())
	shardy.CopyBlock(global, out, ty.Shape, shape, off, 4, false)
	return out
}

func TestDataParallel(t *testing.T) {
	m := mesh1(4)
	p := newProg(m, []*ir.TensorType{f32(8, 16), f32(16, 8)}, []*shardy.Sharding{sh(m, 2, map[int][]string{0: {"x"}}), nil})
	y := p.op("stablehlo.tanh", []*ir.Value{p.dot(p.blk.Args[0], p.blk.Args[1], 1, 0, f32(8, 8))}, f32(8, 8), nil)
	sq := p.op("stablehlo.multiply", []*ir.Value{y, y}, f32(8, 8), nil)
	s := p.sum(sq, []int64{0, 1}, f32())
	mod := p.ret([]*shardy.Sharding{sh(m, 2, map[int][]string{0: {"x"}}), nil}, y, s)
	pr := check(t, p, mod)
	require.Zero(t, pr.Fallback)
	require.Equal(t, 1, pr.Collectives, "one all_reduce of the loss")
}

func TestTensorParallel(t *testing.T) {
	m := mesh1(4)
	p := newProg(m, []*ir.TensorType{f32(8, 16), f32(16, 32), f32(32, 16)},
		[]*shardy.Sharding{nil, sh(m, 2, map[int][]string{1: {"x"}}), sh(m, 2, map[int][]string{0: {"x"}})})
	h := p.op("stablehlo.tanh", []*ir.Value{p.dot(p.blk.Args[0], p.blk.Args[1], 1, 0, f32(8, 32))}, f32(8, 32), nil)
	o := p.dot(h, p.blk.Args[2], 1, 0, f32(8, 16))
	// A transposed result sharded along another dimension: resharded.
	tr := p.op("stablehlo.transpose", []*ir.Value{o}, f32(16, 8), ir.Attrs{"permutation": ir.DenseI64Attr{Values: []int64{1, 0}}})
	mod := p.ret([]*shardy.Sharding{nil, sh(m, 2, map[int][]string{1: {"x"}})}, o, tr)
	pr := check(t, p, mod)
	require.Positive(t, pr.Collectives)
}

func TestFallbackAndBroadcast(t *testing.T) {
	m := &shardy.Mesh{Axes: []shardy.Axis{{Name: "x", Size: 2}, {Name: "y", Size: 2}}}
	p := newProg(m, []*ir.TensorType{f32(4, 8), f32(8)}, []*shardy.Sharding{sh(m, 2, map[int][]string{0: {"x"}, 1: {"y"}}), sh(m, 1, map[int][]string{0: {"y"}})})
	b := p.op("stablehlo.broadcast_in_dim", []*ir.Value{p.blk.Args[1]}, f32(4, 8), ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: []int64{1}}})
	a := p.op("stablehlo.add", []*ir.Value{p.blk.Args[0], b}, f32(4, 8), nil)
	// map has no rule: it runs on the whole value.
	body := ir.NewBlock(f32())
	neg := body.Append(ir.NewOp("stablehlo.negate", []*ir.Value{body.Args[0]}, []ir.Type{f32()}, nil)).Result()
	body.Append(ir.NewOp("stablehlo.return", []*ir.Value{neg}, nil, nil))
	mp := ir.NewOp("stablehlo.map", []*ir.Value{a}, []ir.Type{f32(4, 8)}, ir.Attrs{"dimensions": ir.DenseI64Attr{Values: []int64{0, 1}}})
	mp.AddRegion(ir.NewRegion(body))
	rv := p.blk.Append(mp).Result()
	r := p.op("stablehlo.reshape", []*ir.Value{rv}, f32(2, 16), nil)
	mx := p.op("stablehlo.maximum", []*ir.Value{r, r}, f32(2, 16), nil)
	rows := p.sum(a, []int64{1}, f32(4))
	mod := p.ret([]*shardy.Sharding{sh(m, 2, map[int][]string{1: {"x", "y"}}), sh(m, 1, map[int][]string{0: {"y"}})}, mx, rows)
	pr := check(t, p, mod)
	require.Equal(t, map[string]int{"stablehlo.map": 1}, pr.FallbackOps)
}

func TestReshape(t *testing.T) {
	m := &shardy.Mesh{Axes: []shardy.Axis{{Name: "x", Size: 2}, {Name: "y", Size: 2}}}
	p := newProg(m, []*ir.TensorType{f32(8, 6, 4)}, []*shardy.Sharding{sh(m, 3, map[int][]string{0: {"x"}, 2: {"y"}})})
	// Merge the sharded leading dims, split them again, and a reshape
	// whose result is sharded on a minor dim of a group (the fallback).
	merged := p.op("stablehlo.reshape", []*ir.Value{p.blk.Args[0]}, f32(48, 4), nil)
	split := p.op("stablehlo.reshape", []*ir.Value{merged}, f32(4, 2, 6, 4), nil)
	minor := p.op("stablehlo.reshape", []*ir.Value{merged}, f32(8, 24), nil)
	mod := p.ret([]*shardy.Sharding{
		sh(m, 2, map[int][]string{0: {"x"}, 1: {"y"}}),
		sh(m, 4, map[int][]string{0: {"x"}, 3: {"y"}}),
		sh(m, 2, map[int][]string{1: {"x"}}),
	}, merged, split, minor)
	check(t, p, mod)
}

func TestRefusesEffects(t *testing.T) {
	m := mesh1(2)
	p := newProg(m, []*ir.TensorType{f32(4)}, []*shardy.Sharding{nil})
	c := p.op("stablehlo.custom_call", []*ir.Value{p.blk.Args[0]}, f32(4), ir.Attrs{"call_target_name": ir.StringAttr{Value: "x"}})
	mod := p.ret([]*shardy.Sharding{nil}, c)
	_, err := Build(Input{Module: mod, Mesh: m, Args: p.args, Outs: p.outs})
	require.ErrorIs(t, err, ErrUnsupported)
	// Uneven shards are refused too.
	p = newProg(m, []*ir.TensorType{f32(3)}, []*shardy.Sharding{sh(m, 1, map[int][]string{0: {"x"}})})
	mod = p.ret([]*shardy.Sharding{nil}, p.blk.Args[0])
	_, err = Build(Input{Module: mod, Mesh: m, Args: p.args, Outs: p.outs})
	require.ErrorIs(t, err, ErrUnsupported)
}

func TestReshardByAllToAll(t *testing.T) {
	m := mesh1(4)
	p := newProg(m, []*ir.TensorType{f32(8, 12)}, []*shardy.Sharding{sh(m, 2, map[int][]string{0: {"x"}})})
	e := p.op("stablehlo.exponential", []*ir.Value{p.blk.Args[0]}, f32(8, 12), nil)
	mod := p.ret([]*shardy.Sharding{sh(m, 2, map[int][]string{1: {"x"}})}, e)
	pr := check(t, p, mod)
	var ops []string
	for _, op := range pr.Parts[0].Main().Entry().Ops {
		ops = append(ops, op.Name)
	}
	require.Contains(t, ops, "stablehlo.all_to_all")
	require.NotContains(t, ops, "stablehlo.all_gather")
}

func TestSliceAndConcatenate(t *testing.T) {
	m := &shardy.Mesh{Axes: []shardy.Axis{{Name: "x", Size: 2}, {Name: "y", Size: 2}}}
	p := newProg(m, []*ir.TensorType{f32(8, 12)}, []*shardy.Sharding{sh(m, 2, map[int][]string{0: {"x"}, 1: {"y"}})})
	sl := func(lo, hi int64) *ir.Value {
		return p.op("stablehlo.slice", []*ir.Value{p.blk.Args[0]}, f32(8, hi-lo), ir.Attrs{
			"start_indices": ir.DenseI64Attr{Values: []int64{0, lo}}, "limit_indices": ir.DenseI64Attr{Values: []int64{8, hi}},
			"strides": ir.DenseI64Attr{Values: []int64{1, 1}},
		})
	}
	a, c := sl(0, 4), sl(4, 12)
	cat := p.op("stablehlo.concatenate", []*ir.Value{c, a}, f32(8, 12), ir.Attrs{"dimension": ir.IntAttr{Value: 1, Type: ir.S64}})
	e := p.op("stablehlo.exponential", []*ir.Value{cat}, f32(8, 12), nil)
	mod := p.ret([]*shardy.Sharding{sh(m, 2, map[int][]string{0: {"x"}}), sh(m, 2, map[int][]string{0: {"x", "y"}})}, a, e)
	pr := check(t, p, mod)
	require.Empty(t, pr.FallbackOps)
}
