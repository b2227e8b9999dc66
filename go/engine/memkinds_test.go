package engine

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

func TestDeviceMemoryKinds(t *testing.T) {
	c := newTestClient(t, 2)
	require.Len(t, c.Memories(), 6)
	names := []struct{ short, long string }{
		{"CPU_DEVICE", "CpuDeviceMemory"}, {"PINNED_HOST", "PinnedHostMemory"}, {"UNPINNED_HOST", "UnpinnedHostMemorySpace"},
	}
	for _, d := range c.Devices() {
		require.Equal(t, d.Memories()[0], d.DefaultMemory())
		require.Equal(t, "device", d.DefaultMemory().Kind())
		for k, m := range d.Memories() {
			require.Equal(t, c.Memories()[m.ID], m, "client memories are indexed by id")
			require.Equal(t, 3*d.ID+k, m.ID)
			require.Equal(t, []string{"device", "pinned_host", "unpinned_host"}[k], m.Kind())
			require.Equal(t, d, m.Device())
			require.Equal(t, []*Device{d}, m.Devices())
			require.Equal(t, fmt.Sprintf("%s_%d", names[k].short, m.ID), m.String())
			require.Equal(t, fmt.Sprintf("%s(id=%d, process_index=0, client=cpu)", names[k].long, m.ID), m.DebugString())
			got, err := d.Memory(m.Kind())
			require.NoError(t, err)
			require.Equal(t, m, got)
		}
		got, err := d.Memory("")
		require.NoError(t, err)
		require.Equal(t, d.DefaultMemory(), got)
		_, err = d.Memory("hbm")
		require.ErrorContains(t, err, `no memory of kind "hbm"`)
	}
}

// TestKindID checks the kind ids against FarmHash Fingerprint32 values
// computed independently (the farmhash Python bindings), covering each
// length range the short-input cases handle.
func TestKindID(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want uint32
	}{
		{"", 3696677242},
		{"a", 1016544589},
		{"abcd", 2562006677},
		{"device", 42097224},
		{"pinned_host", 1756073601},
		{"unpinned_host", 4022908727},
		{"abcdefghijklmnopqrstuvwx", 222712484},
	} {
		require.Equal(t, tt.want, uint32(kindID(tt.s)), tt.s)
	}
	require.Equal(t, []int{42097224, 1756073601, int(int32(-272058569))}, MemoryKindIDs())
}

// kindProg is fakeProg with mhlo.memory_kind on its parameter and result.
type kindProg struct {
	fakeProg
	in, out string
}

func (p *kindProg) Module() *ir.Module {
	m := p.fakeProg.Module()
	f := m.Main()
	f.ResAttrs = []ir.Attrs{{}}
	if p.in != "" {
		f.ArgAttrs[0][memoryKindAttr] = ir.StringAttr{Value: p.in}
	}
	if p.out != "" {
		f.ResAttrs[0][memoryKindAttr] = ir.StringAttr{Value: p.out}
	}
	return m
}

func TestExecutableMemoryKinds(t *testing.T) {
	c := newTestClient(t, 1)
	d := c.Devices()[0]
	for _, tt := range []struct{ in, out, wantIn, wantOut string }{
		{"", "", "device", "device"},
		{"pinned_host", "pinned_host", "pinned_host", "pinned_host"},
		{"device", "unpinned_host", "device", "unpinned_host"},
		{"unpinned_host", "device", "unpinned_host", "device"},
	} {
		e, err := NewExecutable(c, &kindProg{fakeProg: fakeProg{n: 2}, in: tt.in, out: tt.out}, []byte("code"), nil)
		require.NoError(t, err)
		require.Equal(t, []string{tt.wantIn}, e.ParameterMemoryKinds())
		require.Equal(t, []string{tt.wantOut}, e.OutputMemoryKinds())
		inMem, err := d.Memory(tt.wantIn)
		require.NoError(t, err)
		x := hostF32(t, c, 1, 2)
		x2, err := x.CopyToMemory(inMem)
		require.NoError(t, err)
		require.Equal(t, inMem, x2.Memory())
		outs, done, err := e.Execute([][]*Buffer{{x2}}, nil, ExecuteOptions{})
		require.NoError(t, err)
		require.NoError(t, done[0].Wait())
		require.Equal(t, tt.wantOut, outs[0][0].Memory().Kind())
		require.Equal(t, d, outs[0][0].Device())
		require.Equal(t, []float32{2, 3}, readF32(t, outs[0][0]))
	}
	_, err := NewExecutable(c, &kindProg{fakeProg: fakeProg{n: 2}, out: "hbm"}, []byte("code"), nil)
	require.ErrorContains(t, err, `result 0 has memory kind "hbm"`)
}

func TestExecuteSPMDMemoryKind(t *testing.T) {
	c := newTestClient(t, 2)
	da := &DeviceAssignment{Replicas: 1, Partitions: 2, IDs: [][]int{{0, 1}}}
	ebo := appendVarintField(nil, 5, 2)
	ebo = appendBytesField(ebo, 9, da.Marshal())
	e, err := NewExecutable(c, &spmdDouble{outSharded: true, outKind: "pinned_host"}, []byte("code"), appendBytesField(nil, 3, ebo))
	require.NoError(t, err)
	outs, done, err := e.Execute([][]*Buffer{{hostF32(t, c, 1, 2)}, {hostF32(t, c, 3, 4)}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	for d := range outs {
		require.NoError(t, done[d].Wait())
		require.Equal(t, c.Devices()[d], outs[d][0].Device())
		require.Equal(t, "pinned_host", outs[d][0].Memory().Kind())
	}
	require.Equal(t, []float32{6, 8}, readF32(t, outs[1][0]))
}

// TestSPMDPassedParameterKeepsSharding: a parameter returned unchanged, or
// only moved to another memory kind, keeps its sharding; a result computed
// from it gets the sharding propagation gives (elementwise: the same).
func TestSPMDPassedParameterKeepsSharding(t *testing.T) {
	f32x4 := ir.Tensor(ir.F32, 4)
	meshOp := ir.NewOp("sdy.mesh", nil, nil, ir.Attrs{
		"sym_name": ir.StringAttr{Value: "mesh"},
		"mesh":     ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.mesh<["i"=2]>`},
	})
	shard := ir.Attrs{"sdy.sharding": ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.sharding<@mesh, [{"i"}]>`}}
	body := ir.NewBlock(f32x4)
	moved := body.Append(ir.NewOp("stablehlo.custom_call", []*ir.Value{body.Args[0]}, []ir.Type{f32x4},
		ir.Attrs{"call_target_name": ir.StringAttr{Value: "annotate_device_placement"}}))
	neg := body.Append(ir.NewOp("stablehlo.negate", []*ir.Value{body.Args[0]}, []ir.Type{f32x4}, nil))
	body.Append(ir.NewOp("func.return", []*ir.Value{body.Args[0], moved.Result(), neg.Result()}, nil, nil))
	kind := ir.Attrs{memoryKindAttr: ir.StringAttr{Value: "pinned_host"}}
	f := &ir.Func{Name: "main", Type: ir.FuncType{Inputs: []ir.Type{f32x4}, Results: []ir.Type{f32x4, f32x4, f32x4}},
		ArgAttrs: []ir.Attrs{shard}, ResAttrs: []ir.Attrs{{}, kind, kind}, Body: ir.NewRegion(body)}
	m := &ir.Module{Funcs: []*ir.Func{f}, Globals: []*ir.Op{meshOp}}
	plan, err := planSPMD(m, 2, f.Type.Inputs, f.Type.Results)
	require.NoError(t, err)
	require.NotNil(t, plan.args[0])
	require.Same(t, plan.args[0], plan.outs[0])
	require.Same(t, plan.args[0], plan.outs[1])
	require.NotNil(t, plan.outs[2], "negate(x) is cut as x is, as XLA's propagation gives it")
	require.Equal(t, plan.args[0].Dims, plan.outs[2].Dims)
}
