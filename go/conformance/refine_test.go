package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/vhlo"
)

// TestRefineExport refines a shape-polymorphic vector to the shapes of its
// inputs: the result reads as a static module, and a second call reuses the
// cached artifact.
func TestRefineExport(t *testing.T) {
	root := testenv.RepoRoot(t)
	dir := testenv.Data(t, "jax-export")
	entries, err := LoadExportIndex(dir)
	require.NoError(t, err)
	if err := exec.Command(testenv.Python(t), "-c", "import jax").Run(); err != nil {
		testenv.Unavailable(t, "no python with jax: %v", err)
	}
	t.Setenv("GOJAX_CONFORMANCE_CACHE", t.TempDir())
	var e ExportEntry
	for _, x := range entries {
		if x.Name == "stablehlo_dynamic_top_k#0" {
			e = x
		}
	}
	require.True(t, e.ShapePolymorphic, "corpus lacks stablehlo_dynamic_top_k#0")

	raw, err := os.ReadFile(filepath.Join(dir, e.Name+".bc"))
	require.NoError(t, err)
	_, err = vhlo.Read(raw)
	require.ErrorContains(t, err, "dynamic", "the original artifact is polymorphic")

	path, err := RefineExport(root, dir, e)
	require.NoError(t, err)
	code, err := os.ReadFile(path)
	require.NoError(t, err)
	m, err := vhlo.Read(code)
	require.NoError(t, err)
	in := m.Main().Type.Inputs[0].(*ir.TensorType)
	require.Equal(t, []int64{4, 3}, in.Shape)

	st, err := os.Stat(path)
	require.NoError(t, err)
	again, err := RefineExport(root, dir, e)
	require.NoError(t, err)
	require.Equal(t, path, again)
	st2, err := os.Stat(again)
	require.NoError(t, err)
	require.Equal(t, st.ModTime(), st2.ModTime(), "second call must hit the cache")

	// Shapes that do not fit the program fail with the script's error.
	e.Inputs = []ExportSpec{{Dtype: "float32", Shape: []int64{5, 3}}}
	_, err = RefineExport(root, dir, e)
	require.Error(t, err)
}
