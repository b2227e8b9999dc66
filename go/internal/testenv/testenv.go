// Package testenv locates what gojax's tests need, all of it inside the
// repository: its root (the directory holding go.mod), the test corpora
// under testdata/ at the root, and the Python interpreter that computes
// reference values (the oracle).
//
// The oracle is found one way only: $GOJAX_PYTHON when set, else
// <root>/.venv/bin/python, the venv that `bash .ci/setup` creates. A test
// that needs it and finds none fails when $CI is non-empty, so a CI run
// never passes by skipping, and skips elsewhere with a hint.
//
// Code that cannot take a testing.TB (the conformance runner, the C header
// generator) uses Root, DataDir and PythonPath, which the TB helpers wrap.
package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// DataDirName is the repository's one test-data folder, at its root.
const DataDirName = "testdata"

// setupHint says how to get the oracle interpreter.
const setupHint = "run `bash .ci/setup` to create .venv, or set GOJAX_PYTHON to a python with jax, numpy and scipy"

// Root walks up from the working directory to the directory holding go.mod.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testenv: no go.mod above the working directory")
		}
		dir = parent
	}
}

// DataDir is <root>/testdata; an error if the repository has none.
func DataDir() (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, DataDirName)
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("testenv: test data folder: %w", err)
	}
	return dir, nil
}

// PythonPath returns the oracle interpreter: $GOJAX_PYTHON if set, else
// <root>/.venv/bin/python. The path it looked for comes back with the error
// when there is no such file.
func PythonPath() (string, error) {
	p := os.Getenv("GOJAX_PYTHON")
	if p == "" {
		root, err := Root()
		if err != nil {
			return "", err
		}
		p = filepath.Join(root, ".venv", "bin", "python")
	}
	if _, err := os.Stat(p); err != nil {
		return p, fmt.Errorf("testenv: python oracle: %w", err)
	}
	return p, nil
}

// RepoRoot is Root for a test; it fails the test when there is none.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	root, err := Root()
	if err != nil {
		tb.Fatal(err)
	}
	return root
}

// Data returns the path of testdata/<rel...> and fails the test when it does
// not exist: the corpora are part of the repository, so a missing file is a
// broken checkout, not something to skip.
func Data(tb testing.TB, rel ...string) string {
	tb.Helper()
	dir, err := DataDir()
	if err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(append([]string{dir}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("testenv: test data missing: %v", err)
	}
	return p
}

// Python returns the oracle interpreter's path, or ends the test through
// Unavailable when there is none.
func Python(tb testing.TB) string {
	tb.Helper()
	p, err := PythonPath()
	if err != nil {
		Unavailable(tb, "%v", err)
	}
	return p
}

// Unavailable ends a test that cannot run because the oracle interpreter (or
// a module it needs) is missing: it fails when $CI is non-empty and skips,
// saying how to get it, otherwise.
func Unavailable(tb testing.TB, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") != "" {
		tb.Fatalf("%s (CI is set, so this fails instead of skipping; %s)", msg, setupHint)
		return
	}
	tb.Skipf("%s (%s)", msg, setupHint)
}
