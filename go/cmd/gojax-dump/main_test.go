package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/internal/testenv"
)

func TestDump(t *testing.T) {
	path := testenv.Data(t, "jax-export", "annotate_data_placement#0.bc")
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
