package capi

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/capi/internal/abi"
)

// TestHeaderIsGenerated keeps the committed header in step with the generator.
func TestHeaderIsGenerated(t *testing.T) {
	tab, _, err := abi.Load()
	require.NoError(t, err)
	want, err := abi.Header(tab)
	require.NoError(t, err)
	got, err := os.ReadFile("pjrt_c_api.h")
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "pjrt_c_api.h is stale: run go generate ./go/capi")
	slots, err := os.ReadFile("pjrt_slots.h")
	require.NoError(t, err)
	require.Equal(t, string(abi.SlotList(tab)), string(slots), "pjrt_slots.h is stale")
}

// TestHeaderMatchesABITable compiles a C program against pjrt_c_api.h that
// prints every field offset/size, STRUCT_SIZE, API slot offset and enum value,
// and compares the output with pjrt-abi-0.114.txt line by line.
func TestHeaderMatchesABITable(t *testing.T) {
	cc := cCompiler(t)
	tab, _, err := abi.Load()
	require.NoError(t, err)
	require.Len(t, tab.Slots, 138)

	var prog, want strings.Builder
	prog.WriteString("#include <stdio.h>\n#include \"pjrt_c_api.h\"\nint main(void) {\n")
	nFields := 0
	for _, f := range tab.Fields {
		if f.IsUnion {
			continue
		}
		name := abi.FieldName(f.Decl)
		fmt.Fprintf(&prog, "  printf(\"FIELD %s %s %%zu %%zu\\n\", offsetof(%s, %s), sizeof(((%s*)0)->%s));\n",
			f.Struct, name, f.Struct, name, f.Struct, name)
		fmt.Fprintf(&want, "FIELD %s %s %d %d\n", f.Struct, name, f.Offset, f.Size)
		nFields++
	}
	for _, s := range sortedKeys(tab.Sizes) {
		fmt.Fprintf(&prog, "  printf(\"SIZE %s %%zu\\n\", (size_t)%s_STRUCT_SIZE);\n", s, s)
		fmt.Fprintf(&want, "SIZE %s %d\n", s, tab.Sizes[s])
	}
	for _, s := range tab.Slots {
		fmt.Fprintf(&prog, "  printf(\"API %d %s %%zu\\n\", offsetof(PJRT_Api, %s));\n", s.Index, s.Name, s.Name)
		fmt.Fprintf(&want, "API %d %s %d\n", s.Index, s.Name, s.Offset)
	}
	for _, e := range tab.Enums {
		fmt.Fprintf(&prog, "  printf(\"ENUM %s %%lld\\n\", (long long)%s);\n", e.Name, e.Name)
		fmt.Fprintf(&want, "ENUM %s %d\n", e.Name, e.Value)
	}
	prog.WriteString("  printf(\"APISIZE %zu\\n\", PJRT_Api_STRUCT_SIZE);\n  return 0;\n}\n")
	want.WriteString("APISIZE 1144\n")
	require.Greater(t, nFields, 1000)

	dir := t.TempDir()
	src := filepath.Join(dir, "abi.c")
	require.NoError(t, os.WriteFile(src, []byte(prog.String()), 0o644))
	wd, err := os.Getwd()
	require.NoError(t, err)
	bin := filepath.Join(dir, "abi")
	out, err := exec.Command(cc, "-std=c11", "-Wall", "-Werror", "-I", wd, "-o", bin, src).CombinedOutput()
	require.NoError(t, err, string(out))
	got, err := exec.Command(bin).Output()
	require.NoError(t, err)
	gotLines := strings.Split(strings.TrimSpace(string(got)), "\n")
	wantLines := strings.Split(strings.TrimSpace(want.String()), "\n")
	require.Equal(t, len(wantLines), len(gotLines))
	for i := range wantLines {
		require.Equal(t, wantLines[i], gotLines[i])
	}
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// cCompiler returns the C compiler to build the layout probes with: $CC's
// command, else cc, gcc or clang. This package is cgo, so building its
// tests needed a C compiler; not finding one is a broken setup, not a
// reason to skip.
func cCompiler(t *testing.T) string {
	t.Helper()
	names := []string{"cc", "gcc", "clang"}
	if f := strings.Fields(os.Getenv("CC")); len(f) > 0 {
		names = f[:1]
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	t.Fatalf("no C compiler found (tried %v); set CC to the one cgo uses", names)
	return ""
}
