package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// sharedArtifact finds a jax-export vector beside the repository.
func sharedArtifact(t *testing.T, name string) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test")
		}
		dir = parent
	}
	path := filepath.Join(filepath.Dir(dir), "shared", "conformance", "jax-export", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("corpus file not available: %v", err)
	}
	return path
}

func TestDump(t *testing.T) {
	path := sharedArtifact(t, "annotate_data_placement#0.bc")
	cases := []struct {
		name     string
		verify   bool
		locs     bool
		contains []string
	}{
		{"plain", false, false, []string{`"stablehlo.add"(%arg0, %arg1)`, `func.func public @main(`, `"func.return"`}},
		{"verify", true, false, []string{"// verify: ok"}},
		{"locations", false, true, []string{`-> tensor<1xf32> loc("jit(func)/jit(main)/add"("third_party/py/jax/tests/export_back_compat_test.py":878:13))`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			require.NoError(t, dump(&b, path, c.verify, c.locs))
			for _, s := range c.contains {
				require.Contains(t, b.String(), s)
			}
		})
	}
}

func TestDumpErrors(t *testing.T) {
	var b strings.Builder
	require.Error(t, dump(&b, filepath.Join(t.TempDir(), "missing.bc"), false, false))
	bad := filepath.Join(t.TempDir(), "bad.bc")
	require.NoError(t, os.WriteFile(bad, []byte("not bytecode"), 0o644))
	err := dump(&b, bad, true, false)
	require.ErrorContains(t, err, "read:")
}
