package testenv

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// outsideRefs are ways code has reached corpora or interpreters outside the
// repository: the sibling shared/ and venv/ folders and absolute machine
// paths. Written as patterns so this file does not match itself.
var outsideRefs = []*regexp.Regexp{
	regexp.MustCompile(`\.\./(shared|venv)\b`),
	regexp.MustCompile(`["']\.\.["'],\s*["'](shared|venv)["']`),
	regexp.MustCompile(`,\s*["'](shared|venv)["']\s*[,)]`),
	regexp.MustCompile(`/work/(shared|venv)\b`),
	regexp.MustCompile(`["']/work["']`),
}

// TestNoOutsideCorpora fails when any Go, Python or shell file of the
// repository (outside testdata/ and docs/) refers to test data or a Python
// outside it: tests must run from a plain clone.
func TestNoOutsideCorpora(t *testing.T) {
	root := RepoRoot(t)
	skipDirs := map[string]bool{
		filepath.Join(root, DataDirName): true,
		filepath.Join(root, "docs"):      true,
		filepath.Join(root, "build"):     true,
		filepath.Join(root, "dist"):      true,
	}
	scanned := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			// Hidden folders are git's and the venvs, except .ci (CI scripts).
			if path != root && (skipDirs[path] || name == "__pycache__" ||
				(strings.HasPrefix(name, ".") && name != ".ci")) {
				return filepath.SkipDir
			}
			return nil
		}
		inCI := filepath.Base(filepath.Dir(path)) == ".ci"
		switch filepath.Ext(name) {
		case ".go", ".py", ".sh":
		default:
			if !inCI {
				return nil
			}
		}
		scanned++
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for n := 1; sc.Scan(); n++ {
			for _, re := range outsideRefs {
				if m := re.FindString(sc.Text()); m != "" {
					rel, _ := filepath.Rel(root, path)
					t.Errorf("%s:%d refers outside the repository (%q): test data belongs under testdata/ (testenv.Data), the interpreter is testenv.Python", rel, n, m)
					break
				}
			}
		}
		return sc.Err()
	})
	require.NoError(t, err)
	require.Greater(t, scanned, 100, "the scan found too few files")
}
