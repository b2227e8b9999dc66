package vhlo

import (
	"fmt"
	"strings"

	"github.com/gojax/gojax/go/ir"
)

// printModule renders a module as text for test failure messages and
// debugging (gojax IR has no printer of its own).
func printModule(m *ir.Module) string {
	var b strings.Builder
	fmt.Fprintf(&b, "module {%s} // %s\n", m.Attrs, m.Producer)
	for _, g := range m.Globals {
		printOp(&b, g, "  ", map[*ir.Value]string{})
	}
	for _, f := range m.Funcs {
		names := map[*ir.Value]string{}
		fmt.Fprintf(&b, "  func %s @%s(", f.Visibility, f.Name)
		for i, a := range f.Entry().Args {
			names[a] = fmt.Sprintf("%%arg%d", i)
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s: %s", names[a], a.Type)
			if len(f.ArgAttrs[i]) > 0 {
				fmt.Fprintf(&b, " {%s}", f.ArgAttrs[i])
			}
		}
		fmt.Fprintf(&b, ") -> %v res_attrs=%v // %s\n", f.Type.Results, f.ResAttrs, f.Loc)
		for _, op := range f.Entry().Ops {
			printOp(&b, op, "    ", names)
		}
	}
	return b.String()
}

func printOp(b *strings.Builder, op *ir.Op, ind string, names map[*ir.Value]string) {
	b.WriteString(ind)
	for i, r := range op.Results {
		names[r] = fmt.Sprintf("%%%d", len(names))
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(names[r])
	}
	if len(op.Results) > 0 {
		b.WriteString(" = ")
	}
	b.WriteString(op.Name + "(")
	for i, o := range op.Operands {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(names[o])
	}
	b.WriteString(")")
	if len(op.Attrs) > 0 {
		fmt.Fprintf(b, " {%s}", op.Attrs)
	}
	var types []string
	for _, r := range op.Results {
		types = append(types, r.Type.String())
	}
	fmt.Fprintf(b, " : %s // %s\n", strings.Join(types, ", "), op.Loc)
	for _, r := range op.Regions {
		for _, blk := range r.Blocks {
			fmt.Fprintf(b, "%s  ^(", ind)
			for i, a := range blk.Args {
				names[a] = fmt.Sprintf("%%%d", len(names))
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(b, "%s: %s", names[a], a.Type)
			}
			b.WriteString("):\n")
			for _, o := range blk.Ops {
				printOp(b, o, ind+"    ", names)
			}
		}
	}
}
