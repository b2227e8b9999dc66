// Package abi parses the PJRT ABI table (pjrt-abi-0.114.txt): struct field
// offsets, PJRT_STRUCT_SIZE values, PJRT_Api slots and enum values. The header
// generator and the header test both read it, so they agree on one source.
package abi

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gojax/gojax/go/internal/testenv"
)

// Slot is one PJRT_Api function pointer.
type Slot struct {
	Index     int
	Offset    int
	Name      string // PJRT_Client_Create
	Minor     string // "pre-versioning" or a number
	Signature string // PJRT_Error *(PJRT_Client_Create_Args *)
}

// Field is one struct member (union members share their union's offset).
type Field struct {
	Struct      string
	Offset      int
	Size        int
	Decl        string // declaration without the trailing ';'
	UnionMember bool
	IsUnion     bool // the anonymous union itself
}

// Enum is one enumerator.
type Enum struct {
	Name  string
	Value int64
}

// Table is the whole ABI description.
type Table struct {
	Slots  []Slot
	Fields []Field
	Sizes  map[string]int
	Enums  []Enum
	// StructOrder lists structs in order of first appearance.
	StructOrder []string
}

// Parse reads the table format documented at the top of pjrt-abi-0.114.txt.
func Parse(r io.Reader) (*Table, error) {
	t := &Table{Sizes: map[string]int{}}
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		f := strings.Fields(s)
		bad := func() error { return fmt.Errorf("abi: line %d: malformed %q", line, s) }
		switch f[0] {
		case "API":
			if len(f) < 6 {
				return nil, bad()
			}
			idx, e1 := strconv.Atoi(f[1])
			off, e2 := strconv.Atoi(f[2])
			if e1 != nil || e2 != nil {
				return nil, bad()
			}
			t.Slots = append(t.Slots, Slot{idx, off, f[3], f[4], strings.Join(f[5:], " ")})
		case "SIZE":
			if len(f) != 3 {
				return nil, bad()
			}
			n, err := strconv.Atoi(f[2])
			if err != nil {
				return nil, bad()
			}
			t.Sizes[f[1]] = n
		case "ENUM":
			if len(f) != 3 {
				return nil, bad()
			}
			v, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				return nil, bad()
			}
			t.Enums = append(t.Enums, Enum{f[1], v})
		case "FIELD":
			if len(f) < 5 {
				return nil, bad()
			}
			off, e1 := strconv.Atoi(f[2])
			size, e2 := strconv.Atoi(f[3])
			if e1 != nil || e2 != nil {
				return nil, bad()
			}
			decl := strings.Join(f[4:], " ")
			fd := Field{Struct: f[1], Offset: off, Size: size}
			if strings.HasSuffix(decl, "(union member)") {
				fd.UnionMember = true
				decl = strings.TrimSpace(strings.TrimSuffix(decl, "(union member)"))
			}
			decl = strings.TrimSuffix(decl, ";")
			if decl == "union" {
				fd.IsUnion = true
			}
			fd.Decl = decl
			t.Fields = append(t.Fields, fd)
			if !seen[fd.Struct] {
				seen[fd.Struct] = true
				t.StructOrder = append(t.StructOrder, fd.Struct)
			}
		default:
			return nil, bad()
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

// FieldsOf returns the fields of one struct in table order.
func (t *Table) FieldsOf(name string) []Field {
	var out []Field
	for _, f := range t.Fields {
		if f.Struct == name {
			out = append(out, f)
		}
	}
	return out
}

// FieldName extracts the member name from a declaration such as
// "const int64_t *dims" or "void (*deleter)(void *, void *)".
func FieldName(decl string) string {
	if i := strings.Index(decl, "(*"); i >= 0 {
		rest := decl[i+2:]
		if j := strings.Index(rest, ")"); j >= 0 {
			return strings.TrimSpace(rest[:j])
		}
	}
	decl = strings.TrimRight(decl, " ")
	i := strings.LastIndexAny(decl, " *")
	return decl[i+1:]
}

// Load finds and parses the table in the repository's test data
// (testdata/pjrt/pjrt-abi-0.114.txt).
func Load() (*Table, string, error) {
	path, err := Locate()
	if err != nil {
		return nil, "", err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	t, err := Parse(f)
	return t, path, err
}

// Locate returns the path of pjrt-abi-0.114.txt in the repository's
// testdata/pjrt, found from the working directory as tests find it.
func Locate() (string, error) {
	dir, err := testenv.DataDir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, "pjrt", "pjrt-abi-0.114.txt")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("abi: table not found: %w", err)
	}
	return p, nil
}
