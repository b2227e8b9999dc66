package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Shape refinement. JAX never hands a PJRT plugin a shape-polymorphic
// program: before compiling it refines the module against the concrete
// argument shapes (jax.export's call path, XlaCallModule). gojax IR is
// static, so the runner does the same for polymorphic jax-export vectors with
// go/vhlo/testdata/refine_polymorphic.py (jaxlib's refine_polymorphic_shapes),
// caching the refined artifact like the serialized text corpora.

// refineScript is the refinement script, relative to the repository root.
const refineScript = "go/vhlo/testdata/refine_polymorphic.py"

// RefineExport returns the path of e's program refined to the shapes of its
// inputs, serializing it on a cache miss.
func RefineExport(root, dir string, e ExportEntry) (string, error) {
	script := filepath.Join(root, refineScript)
	src, err := os.ReadFile(script)
	if err != nil {
		return "", err
	}
	in := filepath.Join(dir, e.Name+".bc")
	code, err := os.ReadFile(in)
	if err != nil {
		return "", err
	}
	shapes := make([]string, len(e.Inputs))
	for i, s := range e.Inputs {
		dims := make([]string, len(s.Shape))
		for j, d := range s.Shape {
			dims[j] = fmt.Sprint(d)
		}
		shapes[i] = strings.Join(dims, "x")
	}
	h := sha256.New()
	for _, part := range [][]byte{src, code, []byte(strings.Join(shapes, ","))} {
		fmt.Fprintf(h, "%d\x00", len(part))
		h.Write(part)
	}
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	outDir := filepath.Join(cache, "jax-export")
	out := filepath.Join(outDir, hex.EncodeToString(h.Sum(nil))+".bc")
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(outDir, "refine-*.tmp")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	// Empty strings are scalar shapes; exec passes them as empty arguments.
	args := append([]string{script, in, tmp.Name()}, shapes...)
	if msg, err := exec.Command(Python(), args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s %s: %v\n%s", refineScript, e.Name, err, lastLines(string(msg), 5))
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return "", err
	}
	return out, nil
}

// lastLines keeps the tail of a Python traceback (the error itself).
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
