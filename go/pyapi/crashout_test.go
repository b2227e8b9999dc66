package pyapi

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A panic nobody recovers (here in a goroutine of a child test process)
// reaches the crash output file as well as stderr.
func TestCrashOutputGetsTheReport(t *testing.T) {
	if path := os.Getenv("GOJAX_TEST_CRASH_INTO"); path != "" {
		require.NoError(t, setCrashOutput(path))
		done := make(chan struct{})
		go func() {
			defer close(done)
			panic("deliberate crash for TestCrashOutputGetsTheReport")
		}()
		<-done
		return
	}
	path := filepath.Join(t.TempDir(), "crash.txt")
	require.NoError(t, os.WriteFile(path, []byte("earlier\n"), 0o644))
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashOutputGetsTheReport$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GOJAX_TEST_CRASH_INTO="+path)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the child must crash")
	require.Contains(t, string(out), "deliberate crash")
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(got), "earlier\npanic: deliberate crash for TestCrashOutputGetsTheReport", "appended")
	require.Contains(t, string(got), "goroutine ", "with the stacks")
}
