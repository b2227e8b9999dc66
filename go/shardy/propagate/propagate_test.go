package propagate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	_ "github.com/gojax/gojax/go/kernels/all" // op traits (elementwise)
	"github.com/gojax/gojax/go/shardy"
)

// prog builds a one-function module over mesh "x"=4, "y"=2.
type prog struct {
	blk *ir.Block
	m   *ir.Module
	f   *ir.Func
}

const meshText = `#sdy.mesh<["x"=4, "y"=2]>`

func newProg(args ...string) (*prog, []*ir.Value) {
	p := &prog{m: &ir.Module{Attrs: ir.Attrs{}}}
	p.m.Globals = []*ir.Op{ir.NewOp("sdy.mesh", nil, nil, ir.Attrs{
		"sym_name": ir.StringAttr{Value: "mesh"},
		"mesh":     ir.OpaqueAttr{Dialect: "sdy", Text: meshText},
	})}
	var types []ir.Type
	var attrs []ir.Attrs
	for _, a := range args {
		// "8x16 [{"x"}, {}]": shape, then the sharding (optional).
		shapeText, sh, _ := strings.Cut(a, " ")
		types = append(types, tensor(shapeText))
		at := ir.Attrs{}
		if sh != "" {
			at["sdy.sharding"] = ir.OpaqueAttr{Dialect: "sdy", Text: "#sdy.sharding<@mesh, " + sh + ">"}
		}
		attrs = append(attrs, at)
	}
	p.blk = ir.NewBlock(types...)
	p.f = &ir.Func{Name: "main", ArgAttrs: attrs, Body: ir.NewRegion(p.blk)}
	p.m.Funcs = []*ir.Func{p.f}
	return p, p.blk.Args
}

func tensor(shape string) *ir.TensorType {
	var dims []int64
	if shape != "" {
		for _, s := range strings.Split(shape, "x") {
			var n int64
			for _, c := range s {
				n = n*10 + int64(c-'0')
			}
			dims = append(dims, n)
		}
	}
	return ir.Tensor(ir.F32, dims...)
}

func (p *prog) op(name string, ins []*ir.Value, out string, attrs ir.Attrs) *ir.Value {
	return p.blk.Append(ir.NewOp(name, ins, []ir.Type{tensor(out)}, attrs)).Result()
}

// ret returns vals; resAttrs[i], when not empty, annotates result i.
func (p *prog) ret(vals []*ir.Value, res ...string) {
	p.blk.Append(ir.NewOp("func.return", vals, nil, nil))
	p.f.ResAttrs = make([]ir.Attrs, len(vals))
	for i := range vals {
		p.f.ResAttrs[i] = ir.Attrs{}
		if i < len(res) && res[i] != "" {
			p.f.ResAttrs[i]["sdy.sharding"] = ir.OpaqueAttr{Dialect: "sdy", Text: "#sdy.sharding<@mesh, " + res[i] + ">"}
		}
	}
}

// spec prints a result sharding as Shardy writes its dimensions ("-": none).
func spec(s *shardy.Sharding) string {
	if s == nil {
		return "-"
	}
	var dims []string
	for _, axes := range s.Dims {
		var names []string
		for _, a := range axes {
			names = append(names, `"`+a.Name+`"`)
		}
		dims = append(dims, "{"+strings.Join(names, ", ")+"}")
	}
	return "[" + strings.Join(dims, ", ") + "]"
}

func dims(name string, v []int64) ir.Attrs { return ir.Attrs{name: ir.DenseI64Attr{Values: v}} }

func TestResults(t *testing.T) {
	cases := []struct {
		name  string
		build func() *prog
		want  []string
	}{
		{"elementwise merges two operands", func() *prog {
			p, a := newProg(`8x16 [{"x"}, {}]`, `8x16 [{}, {"y"}]`)
			p.ret([]*ir.Value{p.op("stablehlo.add", a, "8x16", nil)})
			return p
		}, []string{`[{"x"}, {"y"}]`}},
		{"conflicting axes leave the dimension unsharded", func() *prog {
			p, a := newProg(`8x16 [{"x"}, {}]`, `8x16 [{"y"}, {}]`)
			p.ret([]*ir.Value{p.op("stablehlo.multiply", a, "8x16", nil)})
			return p
		}, []string{`-`}},
		{"an axis goes to one factor of a tensor: the first on a tie", func() *prog {
			p, a := newProg(`8x16 [{"x"}, {}]`, `8x16 [{}, {"x"}]`)
			p.ret([]*ir.Value{p.op("stablehlo.add", a, "8x16", nil)})
			return p
		}, []string{`[{"x"}, {}]`}},
		{"an axis goes to the factor of the larger tensor", func() *prog {
			p, a := newProg(`16x8 [{"x"}, {}]`, `8x32 [{}, {"x"}]`)
			d := p.op("stablehlo.dot_general", a, "16x32", ir.Attrs{
				"lhs_contracting_dimensions": ir.DenseI64Attr{Values: []int64{1}},
				"rhs_contracting_dimensions": ir.DenseI64Attr{Values: []int64{0}},
			})
			p.ret([]*ir.Value{d})
			return p
		}, []string{`[{}, {"x"}]`}},
		{"megatron matmul keeps batch and output columns", func() *prog {
			p, a := newProg(`8x16 [{"x"}, {}]`, `16x4 [{}, {"y"}]`)
			d := p.op("stablehlo.dot_general", a, "8x4", ir.Attrs{
				"lhs_contracting_dimensions": ir.DenseI64Attr{Values: []int64{1}},
				"rhs_contracting_dimensions": ir.DenseI64Attr{Values: []int64{0}},
			})
			p.ret([]*ir.Value{d})
			return p
		}, []string{`[{"x"}, {"y"}]`}},
		{"reduced dimension loses its axes", func() *prog {
			p, a := newProg(`8x16 [{"y"}, {"x"}]`, ``)
			red := p.op("stablehlo.reduce", []*ir.Value{a[0], a[1]}, "16", dims("dimensions", []int64{0}))
			p.ret([]*ir.Value{red})
			return p
		}, []string{`[{"x"}]`}},
		{"transpose permutes", func() *prog {
			p, a := newProg(`8x16 [{"x"}, {"y"}]`)
			p.ret([]*ir.Value{p.op("stablehlo.transpose", a, "16x8", dims("permutation", []int64{1, 0}))})
			return p
		}, []string{`[{"y"}, {"x"}]`}},
		{"reshape merges and splits", func() *prog {
			p, a := newProg(`8x16 [{"x"}, {}]`)
			flat := p.op("stablehlo.reshape", a, "128", nil)
			split := p.op("stablehlo.reshape", a, "4x2x16", nil)
			minor := p.op("stablehlo.reshape", a, "2x64", nil)
			p.ret([]*ir.Value{flat, split, minor})
			return p
		}, []string{`[{"x"}]`, `[{"x"}, {}, {}]`, `-`}},
		{"broadcast keeps the operand's dimension", func() *prog {
			p, a := newProg(`16 [{"x"}]`)
			p.ret([]*ir.Value{p.op("stablehlo.broadcast_in_dim", a, "4x16", dims("broadcast_dimensions", []int64{1}))})
			return p
		}, []string{`[{}, {"x"}]`}},
		{"constraint sets the sharding after it", func() *prog {
			p, a := newProg(`8x16 [{"x"}, {}]`)
			c := p.op("sdy.sharding_constraint", []*ir.Value{p.op("stablehlo.negate", a, "8x16", nil)}, "8x16",
				ir.Attrs{"sharding": ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.sharding<@mesh, [{}, {"x"}]>`}})
			p.ret([]*ir.Value{c, p.op("stablehlo.exponential", []*ir.Value{c}, "8x16", nil)})
			return p
		}, []string{`[{}, {"x"}]`, `[{}, {"x"}]`}},
		{"an op without a rule is a barrier", func() *prog {
			p, a := newProg(`8x16 [{"x"}, {}]`)
			p.ret([]*ir.Value{p.op("stablehlo.custom_call", a, "8x16", ir.Attrs{"call_target_name": ir.StringAttr{Value: "unknown_target"}})})
			return p
		}, []string{`-`}},
		{"open result dimensions are refined, closed results left alone", func() *prog {
			p, a := newProg(`8x16 [{"x"}, {"y"}]`)
			n := p.op("stablehlo.negate", a, "8x16", nil)
			p.ret([]*ir.Value{n, n}, `[{?}, {}]`, `[{}, {}]`)
			return p
		}, []string{`[{"x"}, {}]`, `-`}},
		{"shardings reach through a while loop", func() *prog {
			p, a := newProg(`8x16 [{"x"}, {"y"}]`)
			w := ir.NewOp("stablehlo.while", a, []ir.Type{tensor("8x16")}, nil)
			cond := ir.NewBlock(tensor("8x16"))
			cond.Append(ir.NewOp("stablehlo.return", []*ir.Value{cond.Append(ir.NewOp("stablehlo.constant", nil, []ir.Type{ir.Tensor(ir.Pred)}, nil)).Result()}, nil, nil))
			body := ir.NewBlock(tensor("8x16"))
			body.Append(ir.NewOp("stablehlo.return", []*ir.Value{body.Append(ir.NewOp("stablehlo.tanh", body.Args, []ir.Type{tensor("8x16")}, nil)).Result()}, nil, nil))
			w.AddRegion(ir.NewRegion(cond))
			w.AddRegion(ir.NewRegion(body))
			p.blk.Append(w)
			p.ret([]*ir.Value{w.Results[0]})
			return p
		}, []string{`[{"x"}, {"y"}]`}},
		{"calls and composites are followed into the callee", func() *prog {
			p, a := newProg(`8x16 [{}, {"y"}]`)
			cb := ir.NewBlock(tensor("8x16"))
			cb.Append(ir.NewOp("func.return", []*ir.Value{cb.Append(ir.NewOp("stablehlo.negate", cb.Args, []ir.Type{tensor("8x16")}, nil)).Result()}, nil, nil))
			p.m.Funcs = append(p.m.Funcs, &ir.Func{Name: "callee", Visibility: "private", Body: ir.NewRegion(cb)})
			c := p.op("func.call", a, "8x16", ir.Attrs{"callee": ir.SymbolRefAttr{Name: "callee"}})
			comp := p.op("stablehlo.composite", []*ir.Value{c}, "8x16", ir.Attrs{"decomposition": ir.SymbolRefAttr{Name: "@callee"}})
			p.ret([]*ir.Value{c, comp})
			return p
		}, []string{`[{}, {"y"}]`, `[{}, {"y"}]`}},
		{"slice, concatenate and sort keep the axes of the dimension they change", func() *prog {
			p, a := newProg(`16x8 [{"x"}, {"y"}]`)
			sl := p.op("stablehlo.slice", a, "8x8", ir.Attrs{"start_indices": ir.DenseI64Attr{Values: []int64{4, 0}},
				"limit_indices": ir.DenseI64Attr{Values: []int64{12, 8}}, "strides": ir.DenseI64Attr{Values: []int64{1, 1}}})
			cat := p.op("stablehlo.concatenate", []*ir.Value{a[0], a[0]}, "32x8", ir.Attrs{"dimension": ir.IntAttr{Value: 0}})
			odd := p.op("stablehlo.slice", a, "6x8", ir.Attrs{"start_indices": ir.DenseI64Attr{Values: []int64{0, 0}},
				"limit_indices": ir.DenseI64Attr{Values: []int64{6, 8}}, "strides": ir.DenseI64Attr{Values: []int64{1, 1}}})
			p.ret([]*ir.Value{sl, cat, odd})
			return p
		}, []string{`[{"x"}, {"y"}]`, `[{"x"}, {"y"}]`, `[{}, {"y"}]`}},
		{"a dynamic_update_slice takes the updated array's sharding, not a narrower update's", func() *prog {
			p, a := newProg(`32x8 [{}, {}]`, `16x8 [{"x"}, {"y"}]`)
			i := p.op("stablehlo.constant", nil, "", nil)
			d := p.op("stablehlo.dynamic_update_slice", []*ir.Value{p.op("stablehlo.negate", a[:1], "32x8", nil), a[1], i, i}, "32x8", nil)
			p.ret([]*ir.Value{d})
			return p
		}, []string{`[{}, {"y"}]`}},
		{"a propagation barrier passes only its allowed direction", func() *prog {
			p, a := newProg(`8x16 [{"x"}, {}]`)
			barrier := func(dir string) *ir.Value {
				return p.op("sdy.propagation_barrier", a, "8x16", ir.Attrs{"allowed_direction": ir.OpaqueAttr{Dialect: "sdy", Text: "#sdy<propagation_direction " + dir + ">"}})
			}
			p.ret([]*ir.Value{barrier("BACKWARD"), barrier("FORWARD"), barrier("BOTH"), barrier("NONE")})
			return p
		}, []string{`-`, `[{"x"}, {}]`, `[{"x"}, {}]`, `-`}},
		{"a factor that the axes do not divide stays unsharded", func() *prog {
			p, a := newProg(`8x6 [{"x"}, {}]`, `8x6 [{}, {}]`)
			b := p.op("stablehlo.broadcast_in_dim", []*ir.Value{p.op("stablehlo.constant", nil, "", nil)}, "8x6", dims("broadcast_dimensions", nil))
			p.ret([]*ir.Value{p.op("stablehlo.add", []*ir.Value{a[0], b}, "8x6", nil)})
			return p
		}, []string{`[{"x"}, {}]`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.build()
			meshes, err := shardy.Meshes(p.m)
			require.NoError(t, err)
			res, err := Results(p.m, meshes, meshes["mesh"])
			require.NoError(t, err)
			var got []string
			for _, s := range res {
				got = append(got, spec(s))
			}
			require.Equal(t, c.want, got)
		})
	}
}

// BenchmarkChain: a 10,000-op chain of elementwise ops and transposes over
// a sharded argument (compile-time cost of propagation).
func BenchmarkChain(b *testing.B) {
	p, a := newProg(`64x64 [{"x"}, {"y"}]`)
	v := a[0]
	for i := 0; i < 10000; i++ {
		if i%10 == 9 {
			v = p.op("stablehlo.transpose", []*ir.Value{v}, "64x64", dims("permutation", []int64{1, 0}))
		} else {
			v = p.op("stablehlo.tanh", []*ir.Value{v}, "64x64", nil)
		}
	}
	p.ret([]*ir.Value{v})
	meshes, err := shardy.Meshes(p.m)
	require.NoError(b, err)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Results(p.m, meshes, meshes["mesh"])
		require.NoError(b, err)
		require.NotNil(b, res[0])
	}
}

// TestFillFindsTheMesh: a program whose arguments and results name no mesh
// (a shard_map of a constant) is propagated over the one mesh it declares
// for its partition count; its manual computation's out_shardings reach
// the result.
func TestFillFindsTheMesh(t *testing.T) {
	p, _ := newProg()
	c := p.op("stablehlo.constant", nil, "8", nil)
	mc := p.op("sdy.manual_computation", []*ir.Value{c}, "8", ir.Attrs{
		"in_shardings":  ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.sharding_per_value<[<@mesh, [{}]>]>`},
		"out_shardings": ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.sharding_per_value<[<@mesh, [{"x"}]>]>`},
		"manual_axes":   ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy<manual_axes{"x", "y"}>`},
	})
	p.ret([]*ir.Value{p.op("stablehlo.negate", []*ir.Value{mc}, "8", nil)})
	meshes, err := shardy.Meshes(p.m)
	require.NoError(t, err)
	outs := make([]*shardy.Sharding, 1)
	mesh, err := Fill(p.m, meshes, nil, 8, outs)
	require.NoError(t, err)
	require.Same(t, meshes["mesh"], mesh)
	require.Equal(t, `[{"x"}]`, spec(outs[0]))

	mesh, err = Fill(p.m, meshes, nil, 4, make([]*shardy.Sharding, 1))
	require.NoError(t, err)
	require.Nil(t, mesh, "no declared mesh has 4 devices")
}

// Values gives intermediate values their shardings too: the hidden
// activations of a column-parallel matmul stay split by columns through
// an elementwise op, and the replicated input stays nil.
func TestValues(t *testing.T) {
	p, a := newProg(`8x16`, `16x32 [{}, {"x"}]`)
	d := p.op("stablehlo.dot_general", a, "8x32", ir.Attrs{
		"lhs_contracting_dimensions": ir.DenseI64Attr{Values: []int64{1}},
		"rhs_contracting_dimensions": ir.DenseI64Attr{Values: []int64{0}},
	})
	h := p.op("stablehlo.tanh", []*ir.Value{d}, "8x32", nil)
	p.ret([]*ir.Value{h})
	meshes, err := shardy.Meshes(p.m)
	require.NoError(t, err)
	vals, err := Values(p.m, meshes, meshes["mesh"])
	require.NoError(t, err)
	require.Equal(t, `[{}, {"x"}]`, spec(vals[d]))
	require.Equal(t, `[{}, {"x"}]`, spec(vals[h]))
	require.Equal(t, `[{}, {"x"}]`, spec(vals[a[1]]))
	require.Nil(t, vals[a[0]])
	require.Same(t, meshes["mesh"], vals[d].Mesh)
}
