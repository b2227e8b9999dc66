package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/gojax/gojax/go/vhlo"
)

// Locating the corpora (testdata/ at the repository root, through
// testenv), the Python that serializes the text corpora, and the artifact
// cache.

// CacheDir holds serialized artifacts, outside the repository:
// $GOJAX_CONFORMANCE_CACHE, else the user cache dir.
func CacheDir() (string, error) {
	if d := os.Getenv("GOJAX_CONFORMANCE_CACHE"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "gojax-conformance"), nil
	}
	return filepath.Join(base, "gojax", "conformance"), nil
}

// Python returns the oracle interpreter with jax installed, as every test
// finds it: $GOJAX_PYTHON, else the repository's .venv (testenv.PythonPath).
// When it is missing, running it fails and callers report ErrNoPython.
func Python() string {
	p, _ := testenv.PythonPath()
	return p
}

// TargetVersion is the StableHLO version gojax advertises (vhlo.MaxVersion);
// serialize.py caps it at jaxlib's current version, as PJRT clients do.
func TargetVersion() string {
	v := vhlo.MaxVersion
	return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2])
}

// ErrNoPython means the serializer could not start (no python or no jax);
// tests end through testenv.Unavailable (a failure in CI, else a skip).
var ErrNoPython = errors.New("conformance: python with jax is not available")

// Manifest is what serialize.py writes for one corpus.
type Manifest struct {
	Corpus        string         `json:"corpus"`
	Target        string         `json:"target"`
	JaxlibCurrent string         `json:"jaxlib_current"`
	Cases         []ManifestCase `json:"cases"`
	dir           string
}

// ManifestCase is one test program.
type ManifestCase struct {
	Name     string `json:"name"`
	File     string `json:"file"`
	Index    int    `json:"index"`
	Entry    string `json:"entry"`
	Artifact string `json:"artifact"` // relative to the cache dir
	Skip     string `json:"skip"`
	Error    string `json:"error"`  // why it could not be serialized
	Checks   int    `json:"checks"` // check.* custom calls in the program
	Note     string `json:"note"`   // e.g. upstream disabled it for the reference interpreter
	// Parallel describes an interpreter.run_parallel test: Artifact is then
	// its checks, taking the programs' results as arguments.
	Parallel *ParallelSpec `json:"parallel"`
}

// ParallelSpec is an interpreter.run_parallel test as serialize.py splits it.
type ParallelSpec struct {
	// Grid[r][p] names the function process (replica r, partition p) runs.
	Grid [][]string `json:"grid"`
	// Inputs computes run_parallel's operands: each process takes as many
	// as its function has parameters, in process order (replica-major).
	Inputs string `json:"inputs"`
	// Programs holds each function's artifact (it is their entry).
	Programs map[string]string `json:"programs"`
}

// Serialize runs serialize.py for a corpus ("testdata" or "interpret") and
// loads its manifest. Artifacts already in the cache are reused.
func Serialize(root, corpus string) (*Manifest, error) {
	cache, err := CacheDir()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, err
	}
	py := Python()
	if out, err := exec.Command(py, "-c", "import jax, jaxlib.mlir.ir").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v %s", ErrNoPython, py, err, strings.TrimSpace(string(out)))
	}
	data, err := testenv.DataDir()
	if err != nil {
		return nil, err
	}
	src := filepath.Join(data, "stablehlo", corpus)
	if _, err := os.Stat(src); err != nil {
		return nil, fmt.Errorf("conformance: corpus %s: %w", corpus, err)
	}
	// A manifest of our own: other checkouts may serialize into the same
	// cache at the same time (artifacts are per script version, see
	// serialize.py, but the default manifest path is shared).
	mf, err := os.CreateTemp(cache, corpus+"-manifest-*.json")
	if err != nil {
		return nil, err
	}
	mf.Close()
	defer os.Remove(mf.Name())
	cmd := exec.Command(py, filepath.Join(root, "go", "conformance", "serialize.py"),
		"--corpus", corpus, "--src", src, "--out", cache, "--target", TargetVersion(), "--manifest", mf.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("conformance: serialize.py %s: %v\n%s", corpus, err, out)
	}
	return loadManifestFile(cache, mf.Name(), corpus)
}

// LoadManifest reads <cache>/<corpus>-manifest.json.
func LoadManifest(cache, corpus string) (*Manifest, error) {
	return loadManifestFile(cache, filepath.Join(cache, corpus+"-manifest.json"), corpus)
}

func loadManifestFile(cache, path, corpus string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := &Manifest{dir: cache}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("conformance: manifest %s: %w", corpus, err)
	}
	return m, nil
}

// ArtifactPath is where a case's artifact lies.
func (m *Manifest) ArtifactPath(c ManifestCase) string { return filepath.Join(m.dir, c.Artifact) }
