package compiler

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/gojax/gojax/go/ir"
)

// fingerprint hashes the module's content (functions, ops, types,
// attributes, constant data) without source locations, so the same program
// traced from different lines gets the same fingerprint.
func fingerprint(m *ir.Module) string {
	h := sha256.New()
	w := bufio.NewWriterSize(h, 64<<10)
	io.WriteString(w, "gojax-compiler-1\n")
	writeModule(w, m)
	w.Flush()
	return hex.EncodeToString(h.Sum(nil))
}

// dumpModule writes the module text (with locations) to
// dir/<name>.<fingerprint prefix>.<stage>.mlir.
func dumpModule(dir, name, fp, stage string, m *ir.Module) error {
	if err := ir.DumpToDir(dir, name+"."+fp[:12]+"."+stage, m); err != nil {
		return fmt.Errorf("compiler: %w", err)
	}
	return nil
}

// dumpFileName keeps the characters ir.DumpToDir keeps.
func dumpFileName(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, name)
}

// printer writes the canonical text that the fingerprint hashes (no
// locations, full constant data); values are numbered per function in order
// of definition.
type printer struct {
	w     io.Writer
	names map[*ir.Value]string
}

func writeModule(w io.Writer, m *ir.Module) {
	p := &printer{w: w}
	io.WriteString(w, "module attributes ")
	p.attrs(m.Attrs)
	io.WriteString(w, " {\n")
	for _, g := range m.Globals {
		p.names = map[*ir.Value]string{}
		p.op(g, "  ")
	}
	for _, f := range m.Funcs {
		p.names = map[*ir.Value]string{}
		p.fn(f)
	}
	fmt.Fprintln(w, "}")
}

func (p *printer) name(v *ir.Value) string {
	if n, ok := p.names[v]; ok {
		return n
	}
	n := fmt.Sprintf("%%%d", len(p.names))
	p.names[v] = n
	return n
}

func (p *printer) fn(f *ir.Func) {
	fmt.Fprintf(p.w, "  func.func %s @%s(", f.Visibility, f.Name)
	for i, a := range f.Entry().Args {
		if i > 0 {
			io.WriteString(p.w, ", ")
		}
		fmt.Fprintf(p.w, "%s: %s", p.name(a), a.Type)
		if i < len(f.ArgAttrs) && len(f.ArgAttrs[i]) > 0 {
			io.WriteString(p.w, " ")
			p.attrs(f.ArgAttrs[i])
		}
	}
	io.WriteString(p.w, ") -> (")
	for i, t := range f.Type.Results {
		if i > 0 {
			io.WriteString(p.w, ", ")
		}
		io.WriteString(p.w, t.String())
		if i < len(f.ResAttrs) && len(f.ResAttrs[i]) > 0 {
			io.WriteString(p.w, " ")
			p.attrs(f.ResAttrs[i])
		}
	}
	io.WriteString(p.w, ") {\n")
	for _, op := range f.Entry().Ops {
		p.op(op, "    ")
	}
	io.WriteString(p.w, "  }\n")
}

func (p *printer) op(op *ir.Op, indent string) {
	io.WriteString(p.w, indent)
	for i, r := range op.Results {
		if i > 0 {
			io.WriteString(p.w, ", ")
		}
		io.WriteString(p.w, p.name(r))
	}
	if len(op.Results) > 0 {
		io.WriteString(p.w, " = ")
	}
	fmt.Fprintf(p.w, "%q(", op.Name)
	for i, v := range op.Operands {
		if i > 0 {
			io.WriteString(p.w, ", ")
		}
		io.WriteString(p.w, p.name(v))
	}
	io.WriteString(p.w, ")")
	if len(op.Regions) > 0 {
		io.WriteString(p.w, " (")
		for ri, r := range op.Regions {
			if ri > 0 {
				io.WriteString(p.w, ", ")
			}
			io.WriteString(p.w, "{\n")
			for _, b := range r.Blocks {
				fmt.Fprintf(p.w, "%s  ^bb(", indent)
				for i, a := range b.Args {
					if i > 0 {
						io.WriteString(p.w, ", ")
					}
					fmt.Fprintf(p.w, "%s: %s", p.name(a), a.Type)
				}
				io.WriteString(p.w, "):\n")
				for _, o := range b.Ops {
					p.op(o, indent+"    ")
				}
			}
			fmt.Fprintf(p.w, "%s}", indent)
		}
		io.WriteString(p.w, ")")
	}
	if len(op.Attrs) > 0 {
		io.WriteString(p.w, " ")
		p.attrs(op.Attrs)
	}
	io.WriteString(p.w, " : (")
	for i, v := range op.Operands {
		if i > 0 {
			io.WriteString(p.w, ", ")
		}
		io.WriteString(p.w, v.Type.String())
	}
	io.WriteString(p.w, ") -> (")
	for i, r := range op.Results {
		if i > 0 {
			io.WriteString(p.w, ", ")
		}
		io.WriteString(p.w, r.Type.String())
	}
	io.WriteString(p.w, ")\n")
}

// attrs writes {name = value, …} sorted by name.
func (p *printer) attrs(a ir.Attrs) {
	io.WriteString(p.w, "{")
	for i, k := range a.Names() {
		if i > 0 {
			io.WriteString(p.w, ", ")
		}
		io.WriteString(p.w, k+" = ")
		p.attr(a[k])
	}
	io.WriteString(p.w, "}")
}

// attr writes an attribute in full: unlike Attr.String, constants write
// their data (length-prefixed raw bytes: the fingerprint must change when a
// constant does, without building a hex copy of large data).
func (p *printer) attr(a ir.Attr) {
	switch a := a.(type) {
	case *ir.ElementsAttr:
		fmt.Fprintf(p.w, "dense<%d:", len(a.Data))
		p.w.Write(a.Data)
		fmt.Fprintf(p.w, "> : %s", a.Type)
	case ir.ArrayAttr:
		io.WriteString(p.w, "[")
		for i, e := range a.Elems {
			if i > 0 {
				io.WriteString(p.w, ", ")
			}
			p.attr(e)
		}
		io.WriteString(p.w, "]")
	case ir.DictAttr:
		p.attrs(a.Entries)
	case nil:
		io.WriteString(p.w, "<nil>")
	default:
		io.WriteString(p.w, a.String())
	}
}
