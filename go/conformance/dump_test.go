package conformance

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/internal/testenv"
)

// TestDumpOutputs writes the outputs gojax computes for self-checking
// cases, for offline numerics analysis (verdicts.py compares them and
// XLA's expected values with an extended-precision reference):
//
//	GOJAX_CONFORMANCE_DUMP=/tmp/dump go test ./go/conformance -run TestDumpOutputs -case fft_float32
//
// Each output is written raw (gojax storage layout) as <dir>/<case>.out<i>.
// Without the variable the test is skipped.
func TestDumpOutputs(t *testing.T) {
	dir := os.Getenv("GOJAX_CONFORMANCE_DUMP")
	if dir == "" || *caseFilter == "" {
		t.Skip("set GOJAX_CONFORMANCE_DUMP and -case to dump case outputs")
	}
	m, err := Serialize(testenv.RepoRoot(t), "testdata")
	if errors.Is(err, ErrNoPython) {
		testenv.Unavailable(t, "%v", err)
	}
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	n := 0
	for _, c := range m.Cases {
		if !strings.Contains(c.Name, *caseFilter) || c.Artifact == "" {
			continue
		}
		code, err := os.ReadFile(m.ArtifactPath(c))
		require.NoError(t, err)
		exe, err := compiler.Compile(code, compiler.Options{})
		require.NoError(t, err, c.Name)
		startRecording() // check calls record into it; the verdict is not needed here
		res, err := exe.Run(nil, nil)
		stopRecording()
		require.NoError(t, err, c.Name)
		for i, o := range res.Outputs {
			p := filepath.Join(dir, fmt.Sprintf("%s.out%d", c.Name, i))
			require.NoError(t, os.WriteFile(p, o, 0o644))
			t.Logf("%s: %s", p, exe.OutputTypes()[i])
		}
		freeOutputs(res)
		n++
	}
	require.Positive(t, n, "no case matches -case %q", *caseFilter)
}
