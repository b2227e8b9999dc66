package ir

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// This file prints a module as MLIR text: functions in the readable
// func.func form, ops in the generic form
//
//	%0 = "stablehlo.add"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
//
// with attributes and regions, so every op prints the same way whatever its
// kind. Output is deterministic (attributes sorted by name, values numbered in
// order). Constants print their values: small ones element by element, large
// ones as a hex blob of the gojax storage layout.

// smallConstant is the largest element count printed element by element.
const smallConstant = 16

// Printer prints modules. The zero value prints without locations.
type Printer struct {
	// Locations appends loc(...) to every op and function that has one.
	Locations bool
}

// String prints the module without locations.
func (m *Module) String() string {
	var b strings.Builder
	_ = Print(&b, m)
	return b.String()
}

// Print writes the module without locations.
func Print(w io.Writer, m *Module) error { return Printer{}.Print(w, m) }

// Print writes the module as MLIR text.
func (p Printer) Print(w io.Writer, m *Module) error {
	bw := bufio.NewWriter(w)
	pr := &printer{w: bw, opts: p}
	pr.module(m)
	return bw.Flush()
}

// DumpToDir writes the module text (with locations) to dir/name.mlir,
// creating dir. The compiler calls it for every compile when GOJAX_DUMP_DIR
// is set; name should be unique per compile (characters outside
// [A-Za-z0-9._-] are replaced by '_').
func DumpToDir(dir string, name string, m *Module) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("dump module: %w", err)
	}
	clean := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, name)
	if clean == "" || clean == "." || clean == ".." {
		clean = "module"
	}
	if !strings.HasSuffix(clean, ".mlir") {
		clean += ".mlir"
	}
	path := filepath.Join(dir, clean)
	// Write beside the target and rename, so readers never see half a file.
	tmp, err := os.CreateTemp(dir, ".dump-*")
	if err != nil {
		return fmt.Errorf("dump module: %w", err)
	}
	if err := (Printer{Locations: true}).Print(tmp, m); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("dump module %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("dump module %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("dump module %s: %w", path, err)
	}
	return nil
}

type printer struct {
	w       *bufio.Writer
	opts    Printer
	names   map[*Value]string
	nextID  int // next result number in the current function
	nextArg int
}

func (p *printer) printf(format string, args ...any) { fmt.Fprintf(p.w, format, args...) }

func (p *printer) indent(n int) { p.w.WriteString(strings.Repeat("  ", n)) }

func (p *printer) module(m *Module) {
	if m == nil {
		p.printf("module {\n}\n")
		return
	}
	p.w.WriteString("module")
	if len(m.Attrs) > 0 {
		p.printf(" attributes {%s}", formatAttrs(m.Attrs))
	}
	p.w.WriteString(" {\n")
	if m.Producer != "" {
		p.printf("  // producer: %s\n", m.Producer)
	}
	p.names = map[*Value]string{}
	for _, g := range m.Globals {
		p.op(g, 1)
	}
	for _, f := range m.Funcs {
		p.function(f)
	}
	p.w.WriteString("}\n")
}

func (p *printer) function(f *Func) {
	if f == nil {
		return
	}
	p.names = map[*Value]string{}
	p.nextID, p.nextArg = 0, 0
	p.indent(1)
	p.w.WriteString("func.func ")
	if f.Visibility != "" {
		p.printf("%s ", f.Visibility)
	}
	p.printf("@%s(", f.Name)
	var args []*Value
	if f.Body != nil && len(f.Body.Blocks) > 0 && f.Body.Blocks[0] != nil {
		args = f.Body.Blocks[0].Args
	}
	for i, t := range f.Type.Inputs {
		if i > 0 {
			p.w.WriteString(", ")
		}
		name := fmt.Sprintf("%%arg%d", p.nextArg)
		p.nextArg++
		if i < len(args) && args[i] != nil {
			p.names[args[i]] = name
		}
		p.printf("%s: %s", name, typeString(t))
		if i < len(f.ArgAttrs) && len(f.ArgAttrs[i]) > 0 {
			p.printf(" {%s}", formatAttrs(f.ArgAttrs[i]))
		}
	}
	p.w.WriteString(")")
	if len(f.Type.Results) > 0 {
		p.w.WriteString(" -> (")
		for i, t := range f.Type.Results {
			if i > 0 {
				p.w.WriteString(", ")
			}
			p.w.WriteString(typeString(t))
			if i < len(f.ResAttrs) && len(f.ResAttrs[i]) > 0 {
				p.printf(" {%s}", formatAttrs(f.ResAttrs[i]))
			}
		}
		p.w.WriteString(")")
	}
	p.w.WriteString(" {\n")
	if f.Body != nil {
		for bi, b := range f.Body.Blocks {
			if b == nil {
				continue
			}
			if bi > 0 {
				p.blockHeader(b, 1, bi)
			}
			for _, op := range b.Ops {
				p.op(op, 2)
			}
		}
	}
	p.indent(1)
	p.w.WriteString("}")
	if p.opts.Locations && f.Loc.Known() {
		p.printf(" %s", formatLoc(f.Loc))
	}
	p.w.WriteString("\n")
}

// blockHeader prints ^bbN(%argK: type, ...): and names the arguments.
func (p *printer) blockHeader(b *Block, depth, n int) {
	p.indent(depth)
	p.printf("^bb%d", n)
	if len(b.Args) > 0 {
		p.w.WriteString("(")
		for i, a := range b.Args {
			if i > 0 {
				p.w.WriteString(", ")
			}
			name := fmt.Sprintf("%%arg%d", p.nextArg)
			p.nextArg++
			if a != nil {
				p.names[a] = name
				p.printf("%s: %s", name, typeString(a.Type))
			} else {
				p.printf("%s: <nil>", name)
			}
		}
		p.w.WriteString(")")
	}
	p.w.WriteString(":\n")
}

func (p *printer) value(v *Value) string {
	if v == nil {
		return "%<nil>"
	}
	if n, ok := p.names[v]; ok {
		return n
	}
	return "%<undefined>"
}

func (p *printer) op(op *Op, depth int) {
	if op == nil {
		p.indent(depth)
		p.w.WriteString("<nil op>\n")
		return
	}
	p.indent(depth)
	switch len(op.Results) {
	case 0:
	case 1:
		name := fmt.Sprintf("%%%d", p.nextID)
		p.nextID++
		p.names[op.Results[0]] = name
		p.printf("%s = ", name)
	default:
		base := fmt.Sprintf("%%%d", p.nextID)
		p.nextID++
		for i, r := range op.Results {
			p.names[r] = fmt.Sprintf("%s#%d", base, i)
		}
		p.printf("%s:%d = ", base, len(op.Results))
	}
	p.printf("%q(", op.Name)
	for i, x := range op.Operands {
		if i > 0 {
			p.w.WriteString(", ")
		}
		p.w.WriteString(p.value(x))
	}
	p.w.WriteString(")")
	if len(op.Regions) > 0 {
		p.w.WriteString(" (")
		for i, r := range op.Regions {
			if i > 0 {
				p.w.WriteString(", ")
			}
			p.region(r, depth)
		}
		p.w.WriteString(")")
	}
	if len(op.Attrs) > 0 {
		p.printf(" {%s}", formatAttrs(op.Attrs))
	}
	p.w.WriteString(" : (")
	for i, x := range op.Operands {
		if i > 0 {
			p.w.WriteString(", ")
		}
		if x == nil {
			p.w.WriteString("<nil>")
		} else {
			p.w.WriteString(typeString(x.Type))
		}
	}
	p.w.WriteString(") -> ")
	if len(op.Results) == 1 {
		p.w.WriteString(typeString(op.Results[0].Type))
	} else {
		p.w.WriteString("(")
		for i, r := range op.Results {
			if i > 0 {
				p.w.WriteString(", ")
			}
			p.w.WriteString(typeString(r.Type))
		}
		p.w.WriteString(")")
	}
	if p.opts.Locations && op.Loc.Known() {
		p.printf(" %s", formatLoc(op.Loc))
	}
	p.w.WriteString("\n")
}

func (p *printer) region(r *Region, depth int) {
	p.w.WriteString("{\n")
	if r != nil {
		for i, b := range r.Blocks {
			if b == nil {
				continue
			}
			p.blockHeader(b, depth, i)
			for _, op := range b.Ops {
				p.op(op, depth+1)
			}
		}
	}
	p.indent(depth)
	p.w.WriteString("}")
}

func typeString(t Type) string {
	if t == nil {
		return "<nil>"
	}
	return t.String()
}

// formatLoc prints loc("name"("file":line:col)) in MLIR's spelling.
func formatLoc(l *Location) string {
	file := ""
	if l.File != "" {
		file = fmt.Sprintf("%q:%d:%d", l.File, l.Line, l.Col)
	}
	switch {
	case l.Name != "" && file != "":
		return fmt.Sprintf("loc(%q(%s))", l.Name, file)
	case l.Name != "":
		return fmt.Sprintf("loc(%q)", l.Name)
	}
	return fmt.Sprintf("loc(%s)", file)
}

// formatAttrs prints name = value pairs sorted by name.
func formatAttrs(a Attrs) string {
	parts := make([]string, 0, len(a))
	for _, k := range a.Names() {
		name := k
		if !plainIdent(k) {
			name = strconv.Quote(k)
		}
		if _, unit := a[k].(UnitAttr); unit {
			parts = append(parts, name)
			continue
		}
		parts = append(parts, name+" = "+FormatAttr(a[k]))
	}
	return strings.Join(parts, ", ")
}

// plainIdent reports a name MLIR prints without quotes.
func plainIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || r == '.' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && (r >= '0' && r <= '9' || r == '-'))
		if !ok {
			return false
		}
	}
	return true
}

// FormatAttr prints an attribute in MLIR-like syntax; unlike Attr.String it
// prints constant values and full-precision floats.
func FormatAttr(a Attr) string {
	switch a := a.(type) {
	case nil:
		return "<nil>"
	case *ElementsAttr:
		return FormatElements(a)
	case FloatAttr:
		return formatFloat(a.Value, a.Type) + " : " + a.Type.String()
	case ArrayAttr:
		parts := make([]string, len(a.Elems))
		for i, e := range a.Elems {
			parts[i] = FormatAttr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case DictAttr:
		return "{" + formatAttrs(a.Entries) + "}"
	case TypeAttr:
		return typeString(a.Type)
	case DenseI64Attr:
		if len(a.Values) == 0 {
			return "array<i64>"
		}
	case DenseBoolAttr:
		if len(a.Values) == 0 {
			return "array<i1>"
		}
	case OutputOperandAliasAttr:
		return fmt.Sprintf("#stablehlo.output_operand_alias<output_tuple_indices = %s, operand_index = %d, operand_tuple_indices = %s>",
			int64List(a.OutputTupleIndices), a.OperandIndex, int64List(a.OperandTupleIndices))
	}
	return a.String()
}

func int64List(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// FormatElements prints a dense constant: dense<v> for a splat, nested lists
// for up to 16 elements, else dense<"0x…"> holding the gojax storage bytes.
func FormatElements(a *ElementsAttr) string {
	if a == nil || a.Type == nil {
		return "dense<?>"
	}
	t := a.Type
	n := int(t.NumElements())
	size := t.Elem.ByteSize()
	suffix := " : " + t.String()
	if size == 0 || len(a.Data) != n*size {
		return fmt.Sprintf("dense<\"0x%s\">%s /* %d bytes, expected %d */", strings.ToUpper(hex.EncodeToString(a.Data)), suffix, len(a.Data), n*size)
	}
	if n == 0 {
		return "dense<>" + suffix
	}
	elems := make([]string, n)
	splat := true
	for i := 0; i < n; i++ {
		elems[i] = formatElement(t.Elem, a.Data[i*size:(i+1)*size])
		if elems[i] != elems[0] {
			splat = false
		}
	}
	if splat && (n > 1 || t.Rank() == 0) {
		return "dense<" + elems[0] + ">" + suffix
	}
	if n > smallConstant {
		return "dense<\"0x" + strings.ToUpper(hex.EncodeToString(a.Data)) + "\">" + suffix
	}
	var b strings.Builder
	b.WriteString("dense<")
	nested(&b, t.Shape, elems)
	b.WriteString(">")
	b.WriteString(suffix)
	return b.String()
}

// nested writes elems as nested lists following shape.
func nested(b *strings.Builder, shape []int64, elems []string) {
	if len(shape) == 0 {
		b.WriteString(elems[0])
		return
	}
	stride := 1
	for _, d := range shape[1:] {
		stride *= int(d)
	}
	b.WriteString("[")
	for i := 0; i < int(shape[0]); i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		nested(b, shape[1:], elems[i*stride:(i+1)*stride])
	}
	b.WriteString("]")
}

// formatElement prints one element stored in gojax layout.
func formatElement(e ElemType, raw []byte) string {
	switch {
	case e == Pred:
		if raw[0] != 0 {
			return "true"
		}
		return "false"
	case e.IsSigned():
		u := leUint(raw)
		shift := 64 - e.Bits()
		return strconv.FormatInt(int64(u<<shift)>>shift, 10)
	case e.IsUnsigned():
		u := leUint(raw)
		if e.Bits() < 64 {
			u &= 1<<e.Bits() - 1
		}
		return strconv.FormatUint(u, 10)
	case e == F16:
		return formatFloatBits(float64(halfToFloat32(binary.LittleEndian.Uint16(raw))), raw, F16)
	case e == BF16:
		return formatFloatBits(float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(raw))<<16)), raw, BF16)
	case e == F32:
		return formatFloatBits(float64(math.Float32frombits(binary.LittleEndian.Uint32(raw))), raw, F32)
	case e == F64:
		return formatFloatBits(math.Float64frombits(binary.LittleEndian.Uint64(raw)), raw, F64)
	case e.IsComplex():
		half := len(raw) / 2
		part := complexPartType(e)
		return "(" + formatElement(part, raw[:half]) + ", " + formatElement(part, raw[half:]) + ")"
	}
	// f8/f6/f4 variants: MLIR accepts their bit patterns as hex.
	return "0x" + strings.ToUpper(hex.EncodeToString(reverse(raw)))
}

func complexPartType(e ElemType) ElemType {
	if e == C128 {
		return F64
	}
	return F32
}

func leUint(raw []byte) uint64 {
	var u uint64
	for i, b := range raw {
		u |= uint64(b) << (8 * i)
	}
	return u
}

func reverse(raw []byte) []byte {
	out := make([]byte, len(raw))
	for i, b := range raw {
		out[len(raw)-1-i] = b
	}
	return out
}

// formatFloatBits prints finite floats as decimals and NaN/Inf as their
// big-endian bit pattern, as MLIR does.
func formatFloatBits(v float64, raw []byte, e ElemType) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0x" + strings.ToUpper(hex.EncodeToString(reverse(raw)))
	}
	return formatFloat(v, e)
}

// formatFloat prints the shortest decimal that round-trips at the type's
// precision, always with a '.' or exponent so MLIR reads it as a float.
func formatFloat(v float64, e ElemType) string {
	if math.IsNaN(v) {
		return "0x7FF8000000000000"
	}
	if math.IsInf(v, 1) {
		return "0x7FF0000000000000"
	}
	if math.IsInf(v, -1) {
		return "0xFFF0000000000000"
	}
	bits := 64
	if e == F32 || e == F16 || e == BF16 {
		bits = 32
	}
	s := strconv.FormatFloat(v, 'g', -1, bits)
	if !strings.Contains(s, ".") {
		// MLIR's float literal needs the '.' even with an exponent (1.0e-06).
		if i := strings.IndexByte(s, 'e'); i >= 0 {
			s = s[:i] + ".0" + s[i:]
		} else {
			s += ".0"
		}
	}
	return s
}

// halfToFloat32 converts IEEE binary16 bits to float32.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := int(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: mant * 2^-24
		v := float32(mant) / (1 << 24)
		if sign != 0 {
			v = -v
		}
		return v
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | uint32(exp-15+127)<<23 | mant<<13)
}
