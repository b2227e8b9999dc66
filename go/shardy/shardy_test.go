package shardy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseMeshAndSharding(t *testing.T) {
	m, err := ParseMesh(`#sdy.mesh<["a"=2, "b"=3]>`)
	require.NoError(t, err)
	require.Equal(t, 6, m.Size())
	require.Equal(t, 1, m.Coord(4, "a"))
	require.Equal(t, 1, m.Coord(4, "b"))
	_, err = ParseMesh(`#sdy.mesh<["a"=2], device_ids=[1, 1]>`)
	require.ErrorContains(t, err, "not a permutation")
	_, err = ParseMesh(`#sdy.mesh<["a"=2], device_ids=[1, 0, 2]>`)
	require.ErrorContains(t, err, "3 device ids for 2 devices")
	_, err = ParseMesh(`#sdy.mesh<[], device_ids=[1, 0]>`)
	require.ErrorContains(t, err, "maximal mesh names one")

	meshes := map[string]*Mesh{"mesh": m}
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
		{`#sdy.sharding<@mesh, [{"a":(1)3}]>`, 1, nil, 0, nil, nil, "does not divide"},
		{`#sdy.sharding<@mesh, [{"a"=2}]>`, 1, nil, 0, nil, nil, "unsupported dimension sharding"},
		// Priorities and open dimensions do not move data.
		{`#sdy.sharding<@mesh, [{"a"}p0, {"b", ?}p2]>`, 2, []int64{4, 6}, 4, []int64{2, 2}, []int64{2, 2}, ""},
		// An inline mesh in place of a symbol.
		{`#sdy.sharding<mesh<["a"=2, "b"=3]>, [{}, {"b"}]>`, 2, []int64{4, 6}, 4, []int64{4, 2}, []int64{0, 2}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			s, _, err := ParseSharding(tt.text, meshes, tt.rank)
			if err == nil && tt.global != nil {
				var shape, off []int64
				shape, off, err = s.ShardOf(m, tt.global, tt.p)
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

func TestCopyBlock(t *testing.T) {
	global := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11} // 3x4
	shard := make([]byte, 4)                               // 2x2 at (1, 2)
	CopyBlock(global, shard, []int64{3, 4}, []int64{2, 2}, []int64{1, 2}, 1, false)
	require.Equal(t, []byte{6, 7, 10, 11}, shard)
	CopyBlock(global, []byte{90, 91, 92, 93}, []int64{3, 4}, []int64{2, 2}, []int64{0, 0}, 1, true)
	require.Equal(t, []byte{90, 91, 2, 3, 92, 93, 6, 7, 8, 9, 10, 11}, global)
}

func TestSplitPerValueAndManualAxes(t *testing.T) {
	parts, err := SplitPerValue(`#sdy.sharding_per_value<[<@mesh, [{"a"}, {}]>, <@mesh, [{}, {"b", "a"}]>]>`)
	require.NoError(t, err)
	require.Equal(t, []string{`<@mesh, [{"a"}, {}]>`, `<@mesh, [{}, {"b", "a"}]>`}, parts)
	m, err := ParseMesh(`#sdy.mesh<["a"=2, "b"=3]>`)
	require.NoError(t, err)
	s, _, err := ParseSharding(parts[1], map[string]*Mesh{"mesh": m}, 2)
	require.NoError(t, err)
	require.True(t, s.Uses("a"))
	// Partition 4 is (a=1, b=1); counting only "b", dimension 1 splits in 3.
	shape, off, err := s.BlockOf(m, []int64{2, 12}, 4, func(n string) bool { return n == "b" })
	require.NoError(t, err)
	require.Equal(t, []int64{2, 4}, shape)
	require.Equal(t, []int64{0, 4}, off)
	axes, err := ParseManualAxes(`#sdy<manual_axes{"a", "b"}>`)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, axes)
	_, err = SplitPerValue(`#sdy.sharding<@mesh, []>`)
	require.Error(t, err)
}

func TestMeshGroups(t *testing.T) {
	m, err := ParseMesh(`#sdy.mesh<["a"=2, "b"=3]>`)
	require.NoError(t, err)
	require.Equal(t, `#sdy.mesh<["a"=2, "b"=3]>`, m.String())
	g, err := m.Groups([]string{"a"})
	require.NoError(t, err)
	require.Equal(t, [][]int64{{0, 3}, {1, 4}, {2, 5}}, g)
	g, err = m.Groups([]string{"b"})
	require.NoError(t, err)
	require.Equal(t, [][]int64{{0, 1, 2}, {3, 4, 5}}, g)
	g, err = m.Groups([]string{"b", "a"})
	require.NoError(t, err)
	require.Equal(t, [][]int64{{0, 3, 1, 4, 2, 5}}, g)
	_, err = m.Groups([]string{"c"})
	require.ErrorContains(t, err, "no axis")
}

func TestParseShardingOpenDimensions(t *testing.T) {
	m, err := ParseMesh(`#sdy.mesh<["a"=2, "b"=3]>`)
	require.NoError(t, err)
	s, _, err := ParseSharding(`#sdy.sharding<@mesh, [{"a", ?}, {?}, {}, {"b"}]>`, map[string]*Mesh{"mesh": m}, 4)
	require.NoError(t, err)
	require.Equal(t, []bool{true, true, false, false}, s.Open)
	require.Equal(t, [][]Axis{{{Name: "a", Size: 2}}, nil, nil, {{Name: "b", Size: 3}}}, s.Dims)
}

func TestMeshDeviceOrders(t *testing.T) {
	// Position i of the mesh holds device DeviceIDs[i]: partition 0 sits at
	// position 3, coordinates (1, 1).
	m, err := ParseMesh(`#sdy.mesh<["a"=2, "b"=2], device_ids=[3, 2, 1, 0]>`)
	require.NoError(t, err)
	require.Equal(t, []int{3, 2, 1, 0}, m.DeviceIDs)
	require.Equal(t, 1, m.Coord(0, "a"))
	require.Equal(t, 1, m.Coord(0, "b"))
	require.Equal(t, 0, m.Coord(2, "a"))
	require.Equal(t, 1, m.Coord(2, "b"))
	back, err := ParseMesh(m.String())
	require.NoError(t, err)
	require.Equal(t, m, back)
	s, _, err := ParseSharding(`#sdy.sharding<@m, [{"a"}]>`, map[string]*Mesh{"m": m}, 1)
	require.NoError(t, err)
	require.Same(t, m, s.Mesh)
	_, off, err := s.ShardOf(m, []int64{8}, 0)
	require.NoError(t, err)
	require.Equal(t, []int64{4}, off)
	// Groups name devices, in mesh order along the axis.
	g, err := m.Groups([]string{"a"})
	require.NoError(t, err)
	require.Equal(t, [][]int64{{3, 1}, {2, 0}}, g)

	e, err := ParseMesh(`#sdy.mesh<[]>`)
	require.NoError(t, err)
	require.True(t, e.Empty())
	_, maximal := e.Maximal()
	require.False(t, maximal)
	x, err := ParseMesh(`#sdy.mesh<[], device_ids=[5]>`)
	require.NoError(t, err)
	require.False(t, x.Empty())
	d, maximal := x.Maximal()
	require.True(t, maximal)
	require.Equal(t, 5, d)
	require.Equal(t, `#sdy.mesh<[], device_ids=[5]>`, x.String())
}

func TestSubAxes(t *testing.T) {
	// On an axis of size 4, "a":(2)2 is its major half (coordinate a/2)
	// and "a":(1)2 its minor half (a%2).
	m, err := ParseMesh(`#sdy.mesh<["a"=4]>`)
	require.NoError(t, err)
	meshes := map[string]*Mesh{"m": m}
	major, _, err := ParseSharding(`#sdy.sharding<@m, [{"a":(2)2}]>`, meshes, 1)
	require.NoError(t, err)
	minor, _, err := ParseSharding(`#sdy.sharding<@m, [{"a":(1)2}]>`, meshes, 1)
	require.NoError(t, err)
	for p, want := range [][2]int64{{0, 0}, {0, 2}, {2, 0}, {2, 2}} {
		_, off, err := major.ShardOf(m, []int64{4}, p)
		require.NoError(t, err)
		require.Equal(t, want[0], off[0], "major, partition %d", p)
		_, off, err = minor.ShardOf(m, []int64{4}, p)
		require.NoError(t, err)
		require.Equal(t, want[1], off[0], "minor, partition %d", p)
	}
}

func TestParseShardingUnreducedAndReduced(t *testing.T) {
	m, err := ParseMesh(`#sdy.mesh<["a"=2, "b"=3]>`)
	require.NoError(t, err)
	meshes := map[string]*Mesh{"mesh": m}
	s, _, err := ParseSharding(`#sdy.sharding<@mesh, [{"b"}, {}], unreduced={"a"}>`, meshes, 2)
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, s.Unreduced)
	require.Empty(t, s.Reduced)
	// Partitions at coordinate 0 of "a" hold the value, the others zeros.
	for p := 0; p < 6; p++ {
		require.Equal(t, m.Coord(p, "a") == 0, s.Holder(m, p), p)
	}
	s, _, err = ParseSharding(`<@mesh, [{}], reduced={"b"}>`, meshes, 1)
	require.NoError(t, err)
	require.Equal(t, []string{"b"}, s.Reduced)
	require.True(t, s.Holder(m, 5), "reduced values are laid out replicated")
	s, _, err = ParseSharding(`<@mesh, [{}], unreduced=sum{"a", "b"}>`, meshes, 1)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, s.Unreduced)

	require.Equal(t, "sum", s.Reduction)
	s, _, err = ParseSharding(`<@mesh, [{}], unreduced=max{"a"}>`, meshes, 1)
	require.NoError(t, err)
	require.Equal(t, "max", s.Reduction)
	s, _, err = ParseSharding(`<@mesh, [{}], unreduced={"a"}, reduction=min>`, meshes, 1)
	require.NoError(t, err)
	require.Equal(t, "min", s.Reduction, "as the bytecode reader writes it")
	_, _, err = ParseSharding(`<@mesh, [{}], unreduced=prod{"a"}>`, meshes, 1)
	require.ErrorContains(t, err, "combined with prod")
	_, _, err = ParseSharding(`<@mesh, [{"a"}], unreduced={"a"}>`, meshes, 1)
	require.ErrorContains(t, err, "both splits")
	_, _, err = ParseSharding(`<@mesh, [{}], unreduced={"c"}>`, meshes, 1)
	require.ErrorContains(t, err, "unknown mesh axis")
}

func TestParseOpShardingRule(t *testing.T) {
	r, err := ParseOpShardingRule("#sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i]) {i=8, j=4, k=4, l=4, m=4}, custom>")
	require.NoError(t, err)
	require.Equal(t, [][][]string{{{"i"}, {"j"}, {"k"}}}, r.Operands)
	require.Equal(t, [][][]string{{{"i"}, {"l"}, {"m"}}, {{"i"}}}, r.Results)
	require.Equal(t, int64(8), r.Sizes["i"])
	require.Empty(t, r.Special)

	r, err = ParseOpShardingRule("#sdy.op_sharding_rule<([ij, k], [])->([k_1]) {i=2, j=3, k=4, k_1=5} reduction={k} need_replication={i, j}>")
	require.NoError(t, err)
	require.Equal(t, [][][]string{{{"i", "j"}, {"k"}}, nil}, r.Operands)
	require.Equal(t, [][][]string{{{"k_1"}}}, r.Results)
	require.Equal(t, map[string]bool{"k": true, "i": true, "j": true}, r.Special)

	for _, bad := range []string{"", "#sdy.op_sharding_rule<([i])->([i])>", "#sdy.op_sharding_rule<([i])->([x]) {i=2}>",
		"#sdy.op_sharding_rule<([i]->([i]) {i=2}>", "#sdy.op_sharding_rule<([I])->([I]) {I=2}>"} {
		_, err := ParseOpShardingRule(bad)
		require.Error(t, err, bad)
	}
}
