package linalg

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// pythonPath is the shared venv interpreter (numpy, scipy, jax CPU), used to
// produce reference values at test time. Tests fail when it is missing.
func pythonPath(t *testing.T) string {
	t.Helper()
	p := os.Getenv("GOJAX_PYTHON")
	if p == "" {
		p = "/work/venv/bin/python"
	}
	_, err := os.Stat(p)
	require.NoError(t, err, "reference interpreter %s is required (set GOJAX_PYTHON)", p)
	return p
}

// pyRef runs script with in as JSON on stdin and decodes its JSON stdout into out.
func pyRef(t *testing.T, script string, in, out any) {
	t.Helper()
	data, err := json.Marshal(in)
	require.NoError(t, err)
	cmd := exec.Command(pythonPath(t), "-c", script)
	cmd.Stdin = bytes.NewReader(data)
	cmd.Env = append(os.Environ(), "JAX_PLATFORMS=cpu", "JAX_ENABLE_X64=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "python reference failed: %s", stderr.String())
	require.NoError(t, json.Unmarshal(stdout.Bytes(), out))
}
