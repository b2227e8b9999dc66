package main

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/gojax/gojax/go/ir"
)

// copyArtifact puts the artifact in a temp dir so a sidecar can sit beside it.
func copyArtifact(t *testing.T, src string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	dst := filepath.Join(t.TempDir(), "prog.bc")
	require.NoError(t, os.WriteFile(dst, data, 0o644))
	return dst
}

func TestRunWithProfile(t *testing.T) {
	art := copyArtifact(t, testenv.Data(t, "jax-export", "annotate_data_placement#8.bc")) // f32[2] + f32[2]
	cases := []struct {
		name    string
		sidecar string // written beside the artifact; "" for none
		wantErr string
	}{
		{"no sidecar", "", ""},
		{"matching sidecar", `{"inputs":[{"dtype":"float32","shape":[2]},{"dtype":"float32","shape":[2]}]}`, ""},
		{"wrong shape", `{"inputs":[{"dtype":"float32","shape":[3]},{"dtype":"float32","shape":[2]}]}`, "input 0 is float32 [3]"},
		{"wrong dtype", `{"inputs":[{"dtype":"float32","shape":[2]},{"dtype":"int32","shape":[2]}]}`, "input 1 is int32"},
		{"wrong count", `{"inputs":[{"dtype":"float32","shape":[2]}]}`, "lists 1 inputs, the artifact takes 2"},
		{"bad json", `{"inputs":`, "sidecar"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			side := strings.TrimSuffix(art, ".bc") + ".json"
			os.Remove(side)
			if c.sidecar != "" {
				require.NoError(t, os.WriteFile(side, []byte(c.sidecar), 0o644))
			}
			prof := filepath.Join(t.TempDir(), "cpu.pprof")
			r, err := run(config{artifact: art, runs: 3, warmup: 1, cpuProfile: prof})
			if c.wantErr != "" {
				require.ErrorContains(t, err, c.wantErr)
				return
			}
			require.NoError(t, err)
			require.Len(t, r.Runs, 3)
			require.Positive(t, r.Compile)
			st, err := os.Stat(prof)
			require.NoError(t, err)
			require.Positive(t, st.Size(), "profile written")
			var b strings.Builder
			r.print(&b, config{artifact: art, cpuProfile: prof})
			require.Contains(t, b.String(), "3 runs: min")
		})
	}
}

func TestRunErrors(t *testing.T) {
	_, err := run(config{artifact: filepath.Join(t.TempDir(), "missing.bc"), runs: 1})
	require.Error(t, err)
	bad := filepath.Join(t.TempDir(), "bad.bc")
	require.NoError(t, os.WriteFile(bad, []byte("not bytecode"), 0o644))
	_, err = run(config{artifact: bad, runs: 1})
	require.ErrorContains(t, err, "compile")
	_, err = run(config{artifact: bad, runs: 0})
	require.ErrorContains(t, err, "-n must be at least 1")
}

func TestFillRejectsUnknownTypes(t *testing.T) {
	buf := make([]byte, 8)
	require.Error(t, fill(buf, 0, func() float64 { return 0.5 }))
}

func TestF16Bits(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want uint16
	}{{1, 0x3c00}, {-1, 0xbc00}, {0.5, 0x3800}, {0.75, 0x3a00}, {0, 0}, {-0.0, 0}, {1e-6, 0}, {0.099975586, 0x2e66}} {
		require.Equal(t, c.want, f16Bits(c.x), "%v", c.x)
	}
}

// Complex inputs fill both parts; -diag shifts only the diagonal of square
// matrices (per batch item), and leaves other shapes alone.
func TestFillComplexAndDiag(t *testing.T) {
	next := func() float64 { return 0.75 }
	tt := &ir.TensorType{Shape: []int64{2, 3, 3}, Elem: ir.C64}
	buf := make([]byte, tt.ByteSize())
	require.NoError(t, fill(buf, ir.C64, next))
	addDiag(buf, tt, 10)
	le := binary.LittleEndian
	for k := 0; k < 18; k++ {
		re := math.Float32frombits(le.Uint32(buf[8*k:]))
		im := math.Float32frombits(le.Uint32(buf[8*k+4:]))
		want := float32(0.5)
		if i, j := k%9/3, k%3; i == j {
			want = 10.5
		}
		require.Equal(t, want, re, "element %d", k)
		require.Equal(t, float32(0.5), im, "element %d", k)
	}
	t128 := &ir.TensorType{Shape: []int64{2, 2}, Elem: ir.C128}
	b128 := make([]byte, t128.ByteSize())
	require.NoError(t, fill(b128, ir.C128, next))
	addDiag(b128, t128, -1)
	require.Equal(t, -0.5, math.Float64frombits(le.Uint64(b128[0:])))
	require.Equal(t, 0.5, math.Float64frombits(le.Uint64(b128[8:])))
	require.Equal(t, 0.5, math.Float64frombits(le.Uint64(b128[16:])))
	wide := &ir.TensorType{Shape: []int64{2, 3}, Elem: ir.F32}
	bw := make([]byte, wide.ByteSize())
	require.NoError(t, fill(bw, ir.F32, next))
	addDiag(bw, wide, 10)
	require.Equal(t, float32(0.5), math.Float32frombits(le.Uint32(bw)))
}
