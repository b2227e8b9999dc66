package engine

import (
	"encoding/binary"
	"encoding/hex"
	"maps"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/shardy"
)

func TestOpShardingEncoding(t *testing.T) {
	m, err := shardy.ParseMesh(`#sdy.mesh<["a"=2, "b"=3]>`)
	require.NoError(t, err)
	s, _, err := shardy.ParseSharding(`#sdy.sharding<@mesh, [{"a"}, {}]>`, map[string]*shardy.Mesh{"mesh": m}, 2)
	require.NoError(t, err)
	// Bytes jaxlib's xla_client.OpSharding serializes for type=OTHER,
	// tile_assignment_dimensions=[2,1,3], devices=0..5, replicate_on_last_tile_dim.
	require.Equal(t, "08031a0302010322060001020304053001", hex.EncodeToString(opSharding(s, m)))
	require.Empty(t, opSharding(nil, m), "replicated is the empty message")
	s2, _, err := shardy.ParseSharding(`#sdy.sharding<@mesh, [{"b"}, {"a"}]>`, map[string]*shardy.Mesh{"mesh": m}, 2)
	require.NoError(t, err)
	// Tile (b, a) holds partition a*3+b: devices [0 3 1 4 2 5] over tiles [3, 2].
	require.Equal(t, "08031a0203022206000301040205", hex.EncodeToString(opSharding(s2, m)))

	// The same shardings in GSPMD syntax report the same bytes, whatever
	// mesh they were read over.
	g, err := shardy.ParseHLOSharding("{devices=[2,1,3]<=[6] last_tile_dim_replicate}", 2)
	require.NoError(t, err)
	require.Equal(t, "08031a0302010322060001020304053001", hex.EncodeToString(opSharding(g, g.Mesh)))
	g, err = shardy.ParseHLOSharding("{devices=[3,2]<=[2,3]T(1,0)}", 2)
	require.NoError(t, err)
	require.Equal(t, "08031a0203022206000301040205", hex.EncodeToString(opSharding(g, g.Mesh)))
	g, err = shardy.ParseHLOSharding("{maximal device=1}", 2)
	require.NoError(t, err)
	require.Equal(t, "0801220101", hex.EncodeToString(opSharding(g, g.Mesh)), "type MAXIMAL, device 1")

	// A mesh in reverse device order: tile 0 of {"a"} is on positions 0-2,
	// partitions 5, 4, 3.
	rev, err := shardy.ParseMesh(`#sdy.mesh<["a"=2, "b"=3], device_ids=[5, 4, 3, 2, 1, 0]>`)
	require.NoError(t, err)
	s3, _, err := shardy.ParseSharding(`#sdy.sharding<@mesh, [{"a"}, {}]>`, map[string]*shardy.Mesh{"mesh": rev}, 2)
	require.NoError(t, err)
	require.Equal(t, "08031a0302010322060504030201003001", hex.EncodeToString(opSharding(s3, rev)))
}

// Unreduced shardings encode as XLA:CPU reports them (jaxlib's HloSharding
// of these bytes equals that of XLA:CPU's output sharding for the same
// program): unreduced mesh axes form a tile dimension before the replicated
// ones, with the reduction op in the metadata.
func TestOpShardingUnreduced(t *testing.T) {
	m, err := shardy.ParseMesh(`#sdy.mesh<["a"=2, "b"=3]>`)
	require.NoError(t, err)
	meshes := map[string]*shardy.Mesh{"mesh": m}
	const sum = "3a180a117364793a3a726564756374696f6e5f6f70120353554d" // metadata {op_type: "sdy::reduction_op", op_name: "SUM"}
	for _, c := range []struct{ text, hex string }{
		// {devices=[1,1,2,3]<=[6] last_tile_dims={unreduced, replicated}}
		{`<@mesh, [{}, {}], unreduced={"a"}>`, "08031a04010102032206000102030405" + sum + "42020600"},
		// {devices=[3,1,2]<=[2,3]T(1,0) last_tile_dims={unreduced}}
		{`<@mesh, [{"b"}, {}], unreduced={"a"}>`, "08031a030301022206000301040205" + sum + "420106"},
	} {
		s, _, err := shardy.ParseSharding(c.text, meshes, 2)
		require.NoError(t, err)
		require.Equal(t, c.hex, hex.EncodeToString(opSharding(s, m)), c.text)
	}
	m3, err := shardy.ParseMesh(`#sdy.mesh<["x"=2, "y"=2, "z"=2]>`)
	require.NoError(t, err)
	// {devices=[1,2,4]<=[2,2,2]T(1,0,2) last_tile_dims={unreduced}}
	s, _, err := shardy.ParseSharding(`<@mesh, [{}, {"y"}], unreduced={"z", "x"}>`, map[string]*shardy.Mesh{"mesh": m3}, 2)
	require.NoError(t, err)
	require.Equal(t, "08031a0301020422080001040502030607"+sum+"420106", hex.EncodeToString(opSharding(s, m3)))

	// unreduced=max: the same layout, reduction op MAX.
	s, _, err = shardy.ParseSharding(`<@mesh, [{}, {}], unreduced=max{"a"}>`, meshes, 2)
	require.NoError(t, err)
	require.Equal(t, "08031a04010102032206000102030405"+"3a180a117364793a3a726564756374696f6e5f6f7012034d4158"+"42020600", hex.EncodeToString(opSharding(s, m)))

	// XLA:CPU's own text of the first two reads back to the same bytes.
	for text, want := range map[string]string{
		"{devices=[1,1,2,3]<=[6] last_tile_dims={unreduced, replicated}}": "08031a04010102032206000102030405" + sum + "42020600",
		"{devices=[3,1,2]<=[2,3]T(1,0) last_tile_dims={unreduced}}":       "08031a030301022206000301040205" + sum + "420106",
	} {
		g, err := shardy.ParseHLOSharding(text, 2)
		require.NoError(t, err)
		require.Equal(t, want, hex.EncodeToString(opSharding(g, g.Mesh)), text)
	}
}

func TestPlanSPMDMeshes(t *testing.T) {
	mesh := func(name, text string) *ir.Op {
		return ir.NewOp("sdy.mesh", nil, nil, ir.Attrs{
			"sym_name": ir.StringAttr{Value: name},
			"mesh":     ir.OpaqueAttr{Dialect: "sdy", Text: text},
		})
	}
	sdy := func(text string) ir.Attrs {
		return ir.Attrs{"sdy.sharding": ir.OpaqueAttr{Dialect: "sdy", Text: text}}
	}
	f32x4 := ir.Tensor(ir.F32, 4)
	plan := func(globals []*ir.Op, args []ir.Attrs) (*spmdPlan, error) {
		f := &ir.Func{Name: "main", ArgAttrs: args}
		in := make([]ir.Type, len(args))
		for i := range in {
			in[i] = f32x4
		}
		return planSPMD(&ir.Module{Funcs: []*ir.Func{f}, Globals: globals}, 2, in, nil)
	}
	// A scalar on the empty mesh beside a value on a two-device mesh.
	p, err := plan([]*ir.Op{mesh("mesh", `#sdy.mesh<["x"=2]>`), mesh("empty_mesh", `#sdy.mesh<[]>`)},
		[]ir.Attrs{sdy(`#sdy.sharding<@mesh, [{"x"}]>`), sdy(`#sdy.sharding<@empty_mesh, [{}]>`)})
	require.NoError(t, err)
	require.NotNil(t, p.args[0])
	require.Nil(t, p.args[1], "the empty mesh replicates")
	require.Equal(t, 2, p.mesh.Size())
	// Two meshes over the same devices, in different orders, and GSPMD.
	p, err = plan([]*ir.Op{mesh("a", `#sdy.mesh<["x"=2]>`), mesh("b", `#sdy.mesh<["y"=2], device_ids=[1, 0]>`)},
		[]ir.Attrs{sdy(`#sdy.sharding<@a, [{"x"}]>`), sdy(`#sdy.sharding<@b, [{"y"}]>`),
			{"mhlo.sharding": ir.StringAttr{Value: "{devices=[2]1,0}"}}, sdy(`#sdy.sharding<mesh<[], device_ids=[1]>, [{}]>`)})
	require.NoError(t, err)
	for i, want := range [][2]int64{{0, 2}, {2, 0}, {2, 0}, {0, 0}} {
		for part := 0; part < 2; part++ {
			_, off, err := p.args[i].ShardOf(p.meshOf(p.args[i]), []int64{4}, part)
			require.NoError(t, err)
			require.Equal(t, want[part], off[0], "argument %d, partition %d", i, part)
		}
	}
	// A mesh of another size, or a device past the partitions, is an error.
	_, err = plan([]*ir.Op{mesh("m", `#sdy.mesh<["x"=4]>`)}, []ir.Attrs{sdy(`#sdy.sharding<@m, [{"x"}]>`)})
	require.ErrorContains(t, err, "has 4 devices but the program has 2 partitions")
	_, err = plan(nil, []ir.Attrs{{"mhlo.sharding": ir.StringAttr{Value: "{maximal device=2}"}}})
	require.ErrorContains(t, err, "device 2 of a program with 2 partitions")
}

// spmdDouble doubles an f32[4] split over two partitions.
type spmdDouble struct {
	outSharded bool
	outKind    string // mhlo.memory_kind of the result, when set
	donor      bool   // the argument is a jax.buffer_donor
}

func (p *spmdDouble) Name() string { return "double" }
func (p *spmdDouble) Module() *ir.Module {
	meshOp := ir.NewOp("sdy.mesh", nil, nil, ir.Attrs{
		"sym_name": ir.StringAttr{Value: "mesh"},
		"mesh":     ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.mesh<["i"=2]>`},
	})
	shard := ir.Attrs{"sdy.sharding": ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.sharding<@mesh, [{"i"}]>`}}
	f := &ir.Func{Name: "main", ArgAttrs: []ir.Attrs{shard}, ResAttrs: []ir.Attrs{{}}}
	if p.outSharded {
		f.ResAttrs[0] = maps.Clone(shard)
	}
	if p.donor {
		f.ArgAttrs[0] = maps.Clone(shard)
		f.ArgAttrs[0]["jax.buffer_donor"] = ir.BoolAttr{Value: true}
	}
	if p.outKind != "" {
		f.ResAttrs[0][memoryKindAttr] = ir.StringAttr{Value: p.outKind}
	}
	return &ir.Module{Funcs: []*ir.Func{f}, Globals: []*ir.Op{meshOp}}
}
func (p *spmdDouble) InputTypes() []ir.Type  { return []ir.Type{ir.Tensor(ir.F32, 4)} }
func (p *spmdDouble) OutputTypes() []ir.Type { return []ir.Type{ir.Tensor(ir.F32, 4)} }
func (p *spmdDouble) Fingerprint() string    { return "spmd" }
func (p *spmdDouble) NumReplicas() int       { return 1 }
func (p *spmdDouble) NumPartitions() int     { return 2 }
func (p *spmdDouble) Run(args [][]byte, donatable []bool) (*compiler.RunResult, error) {
	in := f32s(args[0])
	for i := range in {
		in[i] *= 2
	}
	out, err := devmem.Alloc(16)
	if err != nil {
		return nil, err
	}
	copy(out, f32Bytes(in...))
	return &compiler.RunResult{Outputs: [][]byte{out}, AliasOf: []int{-1}}, nil
}

func TestExecuteSPMD(t *testing.T) {
	for _, sharded := range []bool{false, true} {
		c := newTestClient(t, 2)
		da := &DeviceAssignment{Replicas: 1, Partitions: 2, IDs: [][]int{{1, 0}}}
		ebo := appendVarintField(nil, 5, 2)
		ebo = appendBytesField(ebo, 9, da.Marshal())
		e, err := NewExecutable(c, &spmdDouble{outSharded: sharded}, []byte("code"), appendBytesField(nil, 3, ebo))
		require.NoError(t, err)
		ps, ok := e.ParameterShardings()
		require.True(t, ok)
		require.NotEmpty(t, ps[0])
		// Device 1 holds partition 0 = elements 0..1.
		args := [][]*Buffer{{hostF32(t, c, 1, 2)}, {hostF32(t, c, 3, 4)}}
		outs, done, err := e.Execute(args, nil, ExecuteOptions{})
		require.NoError(t, err)
		for d := range outs {
			require.NoError(t, done[d].Wait())
		}
		if sharded {
			require.Equal(t, []float32{2, 4}, readF32(t, outs[0][0]))
			require.Equal(t, []float32{6, 8}, readF32(t, outs[1][0]))
		} else {
			require.Equal(t, []float32{2, 4, 6, 8}, readF32(t, outs[0][0]))
			require.Equal(t, []float32{2, 4, 6, 8}, readF32(t, outs[1][0]))
		}
		require.Equal(t, 1, outs[0][0].Device().ID)
		_, _, err = e.Execute([][]*Buffer{{hostF32(t, c, 1, 2, 3, 4)}, {hostF32(t, c, 1, 2, 3, 4)}}, nil, ExecuteOptions{})
		require.ErrorContains(t, err, "partition 0")
	}
}

// TestExecuteSPMDDonation: donated shards read as deleted once the call
// returns (as on XLA:CPU) and the run still reads them; those listed as
// non-donatable are not.
func TestExecuteSPMDDonation(t *testing.T) {
	c := newTestClient(t, 2)
	da := &DeviceAssignment{Replicas: 1, Partitions: 2, IDs: [][]int{{0, 1}}}
	ebo := appendVarintField(nil, 5, 2)
	ebo = appendBytesField(ebo, 9, da.Marshal())
	e, err := NewExecutable(c, &spmdDouble{outSharded: true, donor: true}, []byte("code"), appendBytesField(nil, 3, ebo))
	require.NoError(t, err)
	for _, keep := range []bool{false, true} {
		args := [][]*Buffer{{hostF32(t, c, 1, 2)}, {hostF32(t, c, 3, 4)}}
		var opts ExecuteOptions
		if keep {
			opts.NonDonatable = []int64{0}
		}
		outs, done, err := e.Execute(args, nil, opts)
		require.NoError(t, err)
		for d := range outs {
			require.NoError(t, done[d].Wait())
			require.Equal(t, !keep, args[d][0].IsDeleted())
		}
		require.Equal(t, []float32{2, 4}, readF32(t, outs[0][0]))
		require.Equal(t, []float32{6, 8}, readF32(t, outs[1][0]))
	}
}

// Unreduced arguments sum their shards: exactly for integers and floats, with
// bf16 rounded to nearest even; types without an adder are refused.
func TestAddIntoSumsPartials(t *testing.T) {
	le := binary.LittleEndian
	f := make([]byte, 8)
	g := make([]byte, 8)
	le.PutUint32(f, math.Float32bits(1.5))
	le.PutUint32(f[4:], math.Float32bits(-2))
	le.PutUint32(g, math.Float32bits(0.25))
	le.PutUint32(g[4:], math.Float32bits(2))
	require.NoError(t, addInto(f, g, ir.F32))
	require.Equal(t, float32(1.75), math.Float32frombits(le.Uint32(f)))
	require.Equal(t, float32(0), math.Float32frombits(le.Uint32(f[4:])))

	i := []byte{0xff, 0xff, 0xff, 0xff, 5, 0, 0, 0}
	require.NoError(t, addInto(i, []byte{2, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff}, ir.S32))
	require.Equal(t, []byte{1, 0, 0, 0, 3, 0, 0, 0}, i, "-1+2, 5-2")

	// bf16: 1 + 2^-8 is halfway between 1 and 1+2^-7; it rounds to even (1).
	b := []byte{0x80, 0x3f, 0x80, 0x3f} // 1.0, 1.0
	require.NoError(t, addInto(b, []byte{0x80, 0x3b, 0x80, 0x3f}, ir.BF16))
	require.Equal(t, []byte{0x80, 0x3f, 0x00, 0x40}, b, "1+2^-8 -> 1, 1+1 -> 2")

	require.ErrorContains(t, addInto(make([]byte, 2), make([]byte, 2), ir.F16), "not supported")
}

// Max and min unreduced arguments take the larger (smaller) element, signed
// or unsigned as the type says.
func TestCombineIntoMaxMin(t *testing.T) {
	a := []byte{0xff, 1} // s8: -1, 1
	require.NoError(t, combineInto(a, []byte{0, 0}, ir.S8, "max"))
	require.Equal(t, []byte{0, 1}, a)
	u := []byte{0xff, 1} // u8: 255, 1
	require.NoError(t, combineInto(u, []byte{0, 0}, ir.U8, "max"))
	require.Equal(t, []byte{0xff, 1}, u)
	f := binary.LittleEndian.AppendUint32(nil, math.Float32bits(2))
	require.NoError(t, combineInto(f, binary.LittleEndian.AppendUint32(nil, math.Float32bits(-3)), ir.F32, "min"))
	require.Equal(t, float32(-3), math.Float32frombits(binary.LittleEndian.Uint32(f)))
	require.ErrorContains(t, combineInto(make([]byte, 2), make([]byte, 2), ir.F16, "max"), "not supported")
}
