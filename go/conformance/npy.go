package conformance

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/gojax/gojax/go/ir"
)

// A small reader for NumPy .npy arrays and .npz archives of them (format:
// numpy/lib/format.py): magic "\x93NUMPY", version, header length, a Python
// dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)},
// then the raw data. Little-endian C-order arrays of the dtypes gojax
// supports are read straight into gojax buffer layout.

// Array is one decoded array.
type Array struct {
	Type *ir.TensorType
	Data []byte // gojax layout
}

var npyDtypes = map[string]ir.ElemType{
	"b1": ir.Pred, "i1": ir.S8, "u1": ir.U8, "i2": ir.S16, "u2": ir.U16,
	"i4": ir.S32, "u4": ir.U32, "i8": ir.S64, "u8": ir.U64,
	"f2": ir.F16, "f4": ir.F32, "f8": ir.F64, "c8": ir.C64, "c16": ir.C128,
}

var (
	descrRE   = regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`)
	fortranRE = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	shapeRE   = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

// ReadNPY decodes one .npy stream.
func ReadNPY(data []byte) (*Array, error) {
	if len(data) < 10 || string(data[:6]) != "\x93NUMPY" {
		return nil, fmt.Errorf("npy: bad magic")
	}
	major := data[6]
	var hlen, off int
	switch major {
	case 1:
		hlen, off = int(binary.LittleEndian.Uint16(data[8:10])), 10
	case 2, 3:
		if len(data) < 12 {
			return nil, fmt.Errorf("npy: truncated header")
		}
		hlen, off = int(binary.LittleEndian.Uint32(data[8:12])), 12
	default:
		return nil, fmt.Errorf("npy: unsupported version %d", major)
	}
	if off+hlen > len(data) {
		return nil, fmt.Errorf("npy: truncated header")
	}
	header := string(data[off : off+hlen])
	body := data[off+hlen:]
	m := descrRE.FindStringSubmatch(header)
	if m == nil {
		return nil, fmt.Errorf("npy: no descr in header %q", header)
	}
	descr := m[1]
	if len(descr) < 2 || (descr[0] != '<' && descr[0] != '|') {
		return nil, fmt.Errorf("npy: unsupported dtype %q (need little endian)", descr)
	}
	elem, ok := npyDtypes[descr[1:]]
	if !ok {
		return nil, fmt.Errorf("npy: unsupported dtype %q", descr)
	}
	if f := fortranRE.FindStringSubmatch(header); f == nil || f[1] != "False" {
		return nil, fmt.Errorf("npy: only C-order arrays are supported")
	}
	s := shapeRE.FindStringSubmatch(header)
	if s == nil {
		return nil, fmt.Errorf("npy: no shape in header %q", header)
	}
	var shape []int64
	for _, part := range strings.Split(s[1], ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		d, err := strconv.ParseInt(part, 10, 64)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("npy: bad shape %q", s[1])
		}
		shape = append(shape, d)
	}
	t := ir.Tensor(elem, shape...)
	n := t.ByteSize()
	if int64(len(body)) < n {
		return nil, fmt.Errorf("npy: %s needs %d bytes, has %d", t, n, len(body))
	}
	out := make([]byte, n)
	copy(out, body[:n])
	if elem == ir.Pred {
		for i, b := range out {
			if b != 0 {
				out[i] = 1
			}
		}
	}
	return &Array{Type: t, Data: out}, nil
}

// ReadNPZ decodes every array of an .npz archive, keyed by name without ".npy".
func ReadNPZ(data []byte) (map[string]*Array, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("npz: %w", err)
	}
	out := map[string]*Array{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("npz %s: %w", f.Name, err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("npz %s: %w", f.Name, err)
		}
		a, err := ReadNPY(b)
		if err != nil {
			return nil, fmt.Errorf("npz %s: %w", f.Name, err)
		}
		out[strings.TrimSuffix(f.Name, ".npy")] = a
	}
	return out, nil
}
