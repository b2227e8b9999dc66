package engine

import (
	"encoding/hex"
	"maps"
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
