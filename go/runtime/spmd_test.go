package runtime

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
)

func TestParseMeshAndSharding(t *testing.T) {
	m, err := parseMesh(`#sdy.mesh<["a"=2, "b"=3]>`)
	require.NoError(t, err)
	require.Equal(t, 6, m.size())
	require.Equal(t, 1, m.coord(4, "a"))
	require.Equal(t, 1, m.coord(4, "b"))
	_, err = parseMesh(`#sdy.mesh<["a"=2], device_ids=[1, 0]>`)
	require.ErrorContains(t, err, "unsupported mesh")

	meshes := map[string]*mesh{"mesh": m}
	tests := []struct {
		text    string
		rank    int
		global  []int64
		p       int
		shape   []int64
		offset  []int64
		wantErr string
	}{
		{`#sdy.sharding<@mesh, [{"a"}, {}]>`, 2, []int64{4, 6}, 4, []int64{2, 6}, []int64{2, 0}, ""},
		{`#sdy.sharding<@mesh, [{}, {"b"}]>`, 2, []int64{4, 6}, 4, []int64{4, 2}, []int64{0, 2}, ""},
		{`#sdy.sharding<@mesh, [{"a", "b"}]>`, 1, []int64{12}, 4, []int64{2}, []int64{8}, ""},
		{`#sdy.sharding<@mesh, [{"b"}, {?}], replicated={"a"}>`, 2, []int64{3, 1}, 5, []int64{1, 1}, []int64{2, 0}, ""},
		{`#sdy.sharding<@mesh, [{"a"}]>`, 1, []int64{3}, 0, nil, nil, "does not split"},
		{`#sdy.sharding<@mesh, [{"a"}]>`, 2, nil, 0, nil, nil, "rank-2"},
		{`#sdy.sharding<@other, [{}]>`, 1, nil, 0, nil, nil, "unknown mesh"},
		{`#sdy.sharding<@mesh, [{"c"}]>`, 1, nil, 0, nil, nil, "unknown mesh axis"},
		{`#sdy.sharding<@mesh, [{"a":(1)2}]>`, 1, nil, 0, nil, nil, "unsupported dimension sharding"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			s, _, err := parseSharding(tt.text, meshes, tt.rank)
			if err == nil && tt.global != nil {
				var shape, off []int64
				shape, off, err = s.shardOf(m, tt.global, tt.p)
				if err == nil {
					require.Equal(t, tt.shape, shape)
					require.Equal(t, tt.offset, off)
				}
			}
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
		})
	}
}

func TestOpShardingEncoding(t *testing.T) {
	m, err := parseMesh(`#sdy.mesh<["a"=2, "b"=3]>`)
	require.NoError(t, err)
	s, _, err := parseSharding(`#sdy.sharding<@mesh, [{"a"}, {}]>`, map[string]*mesh{"mesh": m}, 2)
	require.NoError(t, err)
	// Bytes jaxlib's xla_client.OpSharding serializes for type=OTHER,
	// tile_assignment_dimensions=[2,1,3], devices=0..5, replicate_on_last_tile_dim.
	require.Equal(t, "08031a0302010322060001020304053001", hex.EncodeToString(opSharding(s, m)))
	require.Empty(t, opSharding(nil, m), "replicated is the empty message")
	s2, _, err := parseSharding(`#sdy.sharding<@mesh, [{"b"}, {"a"}]>`, map[string]*mesh{"mesh": m}, 2)
	require.NoError(t, err)
	// Tile (b, a) holds partition a*3+b: devices [0 3 1 4 2 5] over tiles [3, 2].
	require.Equal(t, "08031a0203022206000301040205", hex.EncodeToString(opSharding(s2, m)))
}

func TestCopyBlock(t *testing.T) {
	global := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11} // 3x4
	shard := make([]byte, 4)                               // 2x2 at (1, 2)
	copyBlock(global, shard, []int64{3, 4}, []int64{2, 2}, []int64{1, 2}, 1, false)
	require.Equal(t, []byte{6, 7, 10, 11}, shard)
	copyBlock(global, []byte{90, 91, 92, 93}, []int64{3, 4}, []int64{2, 2}, []int64{0, 0}, 1, true)
	require.Equal(t, []byte{90, 91, 2, 3, 92, 93, 6, 7, 8, 9, 10, 11}, global)
}

// spmdDouble doubles an f32[4] split over two partitions.
type spmdDouble struct{ outSharded bool }

func (p *spmdDouble) Name() string { return "double" }
func (p *spmdDouble) Module() *ir.Module {
	meshOp := ir.NewOp("sdy.mesh", nil, nil, ir.Attrs{
		"sym_name": ir.StringAttr{Value: "mesh"},
		"mesh":     ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.mesh<["i"=2]>`},
	})
	shard := ir.Attrs{"sdy.sharding": ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.sharding<@mesh, [{"i"}]>`}}
	f := &ir.Func{Name: "main", ArgAttrs: []ir.Attrs{shard}, ResAttrs: []ir.Attrs{{}}}
	if p.outSharded {
		f.ResAttrs[0] = shard
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
