package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLayout(t *testing.T) {
	root := RepoRoot(t)
	require.FileExists(t, filepath.Join(root, "go.mod"))
	for _, rel := range [][]string{
		{"README.md"}, {"LICENSE"}, {"NOTICE"},
		{"pjrt", "pjrt-abi-0.114.txt"},
		{"jax-export", "index.json"},
		{"stablehlo", "vhlo", "stablehlo_legalize_to_vhlo.1_20_0.mlir.bc"},
		{"stablehlo", "vhlo", "stablehlo_legalize_to_vhlo.1_20_0.mlir"},
		{"stablehlo", "testdata"},
		{"stablehlo", "interpret"},
	} {
		p := Data(t, rel...)
		require.True(t, strings.HasPrefix(p, filepath.Join(root, DataDirName)+string(filepath.Separator)), p)
	}
}

func TestPythonPath(t *testing.T) {
	t.Setenv("GOJAX_PYTHON", "")
	p, _ := PythonPath()
	require.Equal(t, filepath.Join(RepoRoot(t), ".venv", "bin", "python"), p, "the default is the repository's own venv")

	missing := filepath.Join(t.TempDir(), "python")
	t.Setenv("GOJAX_PYTHON", missing)
	p, err := PythonPath()
	require.Error(t, err)
	require.Equal(t, missing, p, "GOJAX_PYTHON wins, and the error names it")

	exe, err := os.Executable()
	require.NoError(t, err)
	t.Setenv("GOJAX_PYTHON", exe)
	p, err = PythonPath()
	require.NoError(t, err)
	require.Equal(t, exe, p)
}

// policyTB records how Unavailable ends a test instead of ending it.
type policyTB struct {
	testing.TB
	failed, skipped string
}

func (p *policyTB) Helper()                           {}
func (p *policyTB) Fatalf(format string, args ...any) { p.failed = fmt.Sprintf(format, args...) }
func (p *policyTB) Skipf(format string, args ...any)  { p.skipped = fmt.Sprintf(format, args...) }

func TestUnavailablePolicy(t *testing.T) {
	t.Setenv("GOJAX_PYTHON", filepath.Join(t.TempDir(), "python"))

	t.Setenv("CI", "")
	tb := &policyTB{TB: t}
	Python(tb)
	require.Empty(t, tb.failed)
	require.Contains(t, tb.skipped, "bash .ci/setup", "outside CI it skips, saying how to get the interpreter")

	t.Setenv("CI", "true")
	tb = &policyTB{TB: t}
	Python(tb)
	require.Empty(t, tb.skipped)
	require.Contains(t, tb.failed, "CI is set", "in CI a missing interpreter fails the test")
}
