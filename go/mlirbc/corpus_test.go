package mlirbc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/internal/testenv"
)

// corpusFiles lists every .bc artifact of the conformance corpora in the
// repository's testdata.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	root := testenv.Data(t)
	var files []string
	for _, pat := range []string{"stablehlo/vhlo/*.bc", "jax-export/*.bc"} {
		m, err := filepath.Glob(filepath.Join(root, pat))
		require.NoError(t, err)
		files = append(files, m...)
	}
	require.GreaterOrEqual(t, len(files), 32+59, "conformance corpora missing under %s", root)
	return files
}

func countOps(ops []*Op) int {
	n := 0
	for _, op := range ops {
		n++
		for _, r := range op.Regions {
			for _, b := range r.Blocks {
				n += countOps(b.Ops)
			}
		}
	}
	return n
}

func TestParseCorpus(t *testing.T) {
	for _, path := range corpusFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			for _, lazy := range []bool{false, true} {
				f, err := Parse(data)
				require.NoError(t, err)
				top, err := f.TopLevel(lazy)
				require.NoError(t, err)
				require.Len(t, top, 1)
				require.Equal(t, "builtin.module", top[0].Name())
				require.NoError(t, LoadAll(top))
				require.Greater(t, countOps(top), 3)
			}
		})
	}
}
