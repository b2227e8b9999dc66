package vhlo

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

func glob(t testing.TB, pattern string, atLeast int) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(testenv.Data(t), pattern))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(m), atLeast, "corpus %s missing or incomplete", pattern)
	sort.Strings(m)
	return m
}

// knownFailures reads testdata/known_failures.txt: "<file name> <reason>" per
// line, # comments.
func knownFailures(t testing.TB) map[string]string {
	t.Helper()
	f, err := os.Open("testdata/known_failures.txt")
	require.NoError(t, err)
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, _ := strings.Cut(line, " ")
		out[name] = strings.TrimSpace(reason)
	}
	require.NoError(t, sc.Err())
	return out
}

// checkReadable reads path; a failure must be listed (with a substring of its
// error as the reason) in known_failures.txt, and a listed file must fail.
func checkReadable(t *testing.T, path string, known map[string]string) *ir.Module {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	m, err := Read(data)
	name := filepath.Base(path)
	if reason, listed := known[name]; listed {
		require.Error(t, err, "%s is listed in known_failures.txt but now reads fine: remove it", name)
		require.Contains(t, err.Error(), reason)
		return nil
	}
	require.NoError(t, err)
	require.NotNil(t, m.Main(), "no entry function")
	requireCanonical(t, m)
	return m
}

// requireCanonical checks that no VHLO op name and no undecoded property
// blob is left in a module.
func requireCanonical(t *testing.T, m *ir.Module) {
	t.Helper()
	check := func(op *ir.Op) bool {
		require.False(t, strings.HasPrefix(op.Name, "vhlo."), "op %s not mapped", op.Name)
		_, raw := op.Attrs["properties"]
		require.False(t, raw, "%s has undecoded properties", op.Name)
		return true
	}
	for _, g := range m.Globals {
		check(g)
	}
	for _, f := range m.Funcs {
		f.Body.Walk(check)
	}
}

func TestJAXExportCorpus(t *testing.T) {
	known := knownFailures(t)
	for _, path := range glob(t, "jax-export/*.bc", 59) {
		t.Run(filepath.Base(path), func(t *testing.T) { checkReadable(t, path, known) })
	}
}

// TestVHLOCorpus decodes each stablehlo_legalize_to_vhlo.<version>.mlir.bc and
// checks every function against the CHECK lines of the .mlir beside it.
// Functions gojax cannot represent (dynamic shapes, quantized types, async
// futures, buffers) must be listed in known_failures.txt as func:<name>.
func TestVHLOCorpus(t *testing.T) {
	known := knownFailures(t)
	// A func: entry must fail in every file that has the function; one that
	// reads fine somewhere is stale.
	readFine := map[string]string{}
	defer func() {
		for name := range known {
			if fn, ok := strings.CutPrefix(name, "func:"); ok && readFine[fn] != "" {
				t.Errorf("function @%s is listed in known_failures.txt but reads fine in %s: remove it", fn, readFine[fn])
			}
		}
		t.Logf("checked %d ops, %d result type lists, %d attribute values", checkStats.ops, checkStats.results, checkStats.attrs)
		require.Greater(t, checkStats.ops, 6000)
		require.Greater(t, checkStats.results, 4000)
		require.Greater(t, checkStats.attrs, 7000)
	}()
	for _, path := range glob(t, "stablehlo/vhlo/*.mlir.bc", 32) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			m, funcErrs, err := read(data, readOptions{allFuncs: true, lenient: true})
			require.NoError(t, err)
			requireCanonical(t, m)
			checks, err := parseChecks(strings.TrimSuffix(path, ".bc"))
			require.NoError(t, err)
			require.NotEmpty(t, checks)
			for name, ferr := range funcErrs {
				reason, listed := known["func:"+name]
				if !listed {
					t.Errorf("function @%s failed and is not in known_failures.txt: %v", name, ferr)
					continue
				}
				require.Contains(t, ferr.Error(), reason, "function @%s", name)
			}
			for _, f := range m.Funcs {
				readFine[f.Name] = filepath.Base(path)
			}
			matched := 0
			for _, cf := range checks {
				fn := m.Func(cf.label)
				if fn == nil {
					_, failed := funcErrs[cf.label]
					require.True(t, failed, "CHECK-LABEL %q names no function", cf.label)
					continue
				}
				if err := matchFunc(fn, expectedOps(cf)); err != nil {
					t.Errorf("@%s: %v", cf.label, err)
				}
				matched++
			}
			require.Greater(t, matched, 100)
		})
	}
}
