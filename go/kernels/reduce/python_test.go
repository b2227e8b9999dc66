package reduce

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/internal/testenv"
)

// runPython runs script and decodes its stdout (JSON) into out.
func runPython(t *testing.T, script string, out any) {
	t.Helper()
	cmd := exec.Command(testenv.Python(t), "-c", script)
	cmd.Env = append(os.Environ(), "JAX_PLATFORMS=cpu", "JAX_ENABLE_X64=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	require.NoError(t, err, "python failed: %s", stderr.String())
	require.NoError(t, json.Unmarshal(stdout, out), "python output: %s", stdout)
}
