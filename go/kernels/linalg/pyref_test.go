package linalg

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/internal/testenv"
)

// pyRef runs the oracle interpreter (numpy, scipy, jax CPU; testenv.Python)
// on script with in as JSON on stdin and decodes its JSON stdout into out.
func pyRef(t *testing.T, script string, in, out any) {
	t.Helper()
	data, err := json.Marshal(in)
	require.NoError(t, err)
	cmd := exec.Command(testenv.Python(t), "-c", script)
	cmd.Stdin = bytes.NewReader(data)
	cmd.Env = append(os.Environ(), "JAX_PLATFORMS=cpu", "JAX_ENABLE_X64=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "python reference failed: %s", stderr.String())
	require.NoError(t, json.Unmarshal(stdout.Bytes(), out))
}
