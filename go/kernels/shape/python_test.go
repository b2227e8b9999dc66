package shape

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// venvPython locates /work/venv's interpreter (or $GOJAX_PYTHON). Tests that
// need JAX for expected values fail, not skip, when it is missing.
func venvPython(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("GOJAX_PYTHON"); p != "" {
		return p
	}
	p := filepath.Join("/work", "venv", "bin", "python")
	_, err := os.Stat(p)
	require.NoError(t, err, "python with jax is needed for expected values (set GOJAX_PYTHON)")
	return p
}

// runPython runs script and decodes its stdout (JSON) into out.
func runPython(t *testing.T, script string, out any) {
	t.Helper()
	cmd := exec.Command(venvPython(t), "-c", script)
	cmd.Env = append(os.Environ(), "JAX_PLATFORMS=cpu", "JAX_ENABLE_X64=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	require.NoError(t, err, "python failed: %s", stderr.String())
	require.NoError(t, json.Unmarshal(stdout, out), "python output: %s", stdout)
}
