package shardy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// offsets lists each partition's block offsets of an array of dims global.
func offsets(t *testing.T, s *Sharding, global []int64, n int) [][]int64 {
	t.Helper()
	out := make([][]int64, n)
	for p := range out {
		_, off, err := s.ShardOf(s.Mesh, global, p)
		require.NoError(t, err)
		out[p] = off
	}
	return out
}

func TestParseHLOSharding(t *testing.T) {
	for _, text := range []string{"{replicated}", "{}", `{replicated metadata={op_name="x"}}`} {
		s, err := ParseHLOSharding(text, 2)
		require.NoError(t, err, text)
		require.Nil(t, s, text)
	}

	s, err := ParseHLOSharding("{devices=[2,1]<=[2]}", 2)
	require.NoError(t, err)
	require.Equal(t, [][]int64{{0, 0}, {2, 0}}, offsets(t, s, []int64{4, 3}, 2))

	// Explicit device list: tile 0 on device 1, tile 1 on device 0.
	s, err = ParseHLOSharding("{devices=[2]1,0}", 1)
	require.NoError(t, err)
	require.Equal(t, [][]int64{{2}, {0}}, offsets(t, s, []int64{4}, 2))

	// Iota reshaped to [2,2] and transposed: tiles (0,0),(0,1),(1,0),(1,1)
	// on devices 0, 2, 1, 3.
	s, err = ParseHLOSharding("{devices=[2,2]<=[2,2]T(1,0)}", 2)
	require.NoError(t, err)
	require.Equal(t, []int{0, 2, 1, 3}, s.Mesh.DeviceIDs)
	require.Equal(t, [][]int64{{0, 0}, {2, 0}, {0, 3}, {2, 3}}, offsets(t, s, []int64{4, 6}, 4))

	// The last tile dimension replicates: devices 0,1 hold rows 0-1, 2,3 rows 2-3.
	for _, text := range []string{"{devices=[2,1,2]<=[4] last_tile_dim_replicate}", "{devices=[2,1,2]<=[4] last_tile_dims={replicated}}"} {
		s, err = ParseHLOSharding(text, 2)
		require.NoError(t, err, text)
		require.Equal(t, [][]int64{{0, 0}, {0, 0}, {2, 0}, {2, 0}}, offsets(t, s, []int64{4, 5}, 4), text)
	}

	s, err = ParseHLOSharding("{maximal device=3}", 2)
	require.NoError(t, err)
	d, ok := s.Mesh.Maximal()
	require.True(t, ok)
	require.Equal(t, 3, d)
	require.Equal(t, [][]int64{{0, 0}}, offsets(t, s, []int64{4, 5}, 1))

	for text, want := range map[string]string{
		"{manual}": "manual",
		"{devices=[2,1,2]<=[4] last_tile_dims={manual}}": "manual",
		"{devices=[2,2]<=[4]}":                           "2 tile dimensions for a rank-1",
		"{devices=[2]0,0}":                               "not a permutation",
		"{devices=[2]0,1,2}":                             "does not match",
		"{devices=[4]<=[3]}":                             "iota of 3 devices",
		"{devices=[2,2]<=[2,2]T(0,0)}":                   "bad transpose",
		"{{replicated}, {maximal device=0}}":             "tuple",
		"devices=[2]0,1":                                 "unsupported",
	} {
		_, err := ParseHLOSharding(text, 1)
		require.ErrorContains(t, err, want, text)
	}
}
