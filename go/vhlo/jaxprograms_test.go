package vhlo

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// TestJAXPrograms exports real JAX programs with the oracle venv's jax
// (testdata/jax_programs.py) and checks vhlo.Read against jaxlib's own
// deserialization of the same bytes: every op in order with its result types,
// and the attribute values (constants byte for byte). Each program is also
// serialized for older StableHLO targets (bytecode v0/v4/v6, older op
// versions) and without mixed serialization.
func TestJAXPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("exports JAX programs with Python; skipped in -short mode")
	}
	python := testenv.Python(t)
	out := t.TempDir()
	cmd := exec.Command(python, "testdata/jax_programs.py", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run(), "jax_programs.py failed:\n%s", stderr.String())

	files, err := filepath.Glob(filepath.Join(out, "*.bc"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 300)
	perTarget := map[string]int{}
	for _, f := range files {
		_, target, _ := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".bc"), "@")
		perTarget[target]++
	}
	for _, target := range []string{"", "0.9.0", "0.14.0", "0.20.0", "1.0.0", "1.5.0", "1.10.0", "1.13.0-nomixed"} {
		require.GreaterOrEqual(t, perTarget[target], 40, "artifacts for target %q", target)
	}
	var stats compareStats
	for _, bc := range files {
		name := strings.TrimSuffix(filepath.Base(bc), ".bc")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(bc)
			require.NoError(t, err)
			m, err := Read(data)
			require.NoError(t, err)
			requireCanonical(t, m)
			js, err := os.ReadFile(strings.TrimSuffix(bc, ".bc") + ".json")
			require.NoError(t, err)
			var want jaxModule
			require.NoError(t, json.Unmarshal(js, &want))
			require.NoError(t, compareModule(m, &want, &stats), "decoded module:\n%s", printModule(m))
			if strings.HasPrefix(name, "dense_resource@") {
				c, ok := m.Main().Entry().Ops[0].Attrs.Elements("value")
				require.True(t, ok)
				require.Equal(t, []float64{1, 2, 3, 4}, elementValues(c))
			}
		})
	}
	t.Logf("compared %d functions, %d ops, %d attributes (%d constants), %d locations, %d argument/result attributes",
		stats.funcs, stats.ops, stats.attrs, stats.consts, stats.locs, stats.argAttrs)
	require.Greater(t, stats.ops, 10000)
	require.Greater(t, stats.consts, 2000)
}

type jaxModule struct {
	ModuleAttrs map[string]string `json:"module_attrs"`
	Funcs       []struct {
		Op       string   `json:"op"`
		Name     string   `json:"name"`
		Ops      []jaxOp  `json:"ops"`
		ArgAttrs []string `json:"arg_attrs"`
		ResAttrs []string `json:"res_attrs"`
	} `json:"funcs"`
}

type jaxOp struct {
	Name    string             `json:"name"`
	Depth   int                `json:"depth"`
	Results []string           `json:"results"`
	Attrs   map[string]jaxAttr `json:"attrs"`
	OpText  string             `json:"optext"`
	Loc     string             `json:"loc"`
}

type jaxAttr struct {
	Dense *string `json:"dense"`
	Text  string  `json:"text"`
}

type compareStats struct{ funcs, ops, attrs, consts, locs, argAttrs int }

func compareModule(m *ir.Module, want *jaxModule, st *compareStats) error {
	for _, key := range []string{"mhlo.num_partitions", "mhlo.num_replicas"} {
		if w, ok := want.ModuleAttrs[key]; ok {
			if got := fmt.Sprint(m.Attrs[key]); got != w {
				return fmt.Errorf("module attribute %s = %s, want %s", key, got, w)
			}
		}
	}
	byName := map[string]int{}
	for i, f := range want.Funcs {
		byName[f.Name] = i
	}
	if m.Main() == nil || m.Main().Name != "main" {
		return fmt.Errorf("no main function")
	}
	for _, fn := range m.Funcs {
		i, ok := byName[fn.Name]
		if !ok {
			return fmt.Errorf("function @%s is not in jaxlib's module", fn.Name)
		}
		wf := want.Funcs[i]
		if err := compareArgAttrs(fn.ArgAttrs, wf.ArgAttrs, st); err != nil {
			return fmt.Errorf("@%s arg_attrs: %w", fn.Name, err)
		}
		if err := compareArgAttrs(fn.ResAttrs, wf.ResAttrs, st); err != nil {
			return fmt.Errorf("@%s res_attrs: %w", fn.Name, err)
		}
		got := flatOpsDepth(fn)
		if len(got) != len(wf.Ops) {
			return fmt.Errorf("@%s: %d ops, jaxlib has %d", fn.Name, len(got), len(wf.Ops))
		}
		for j, w := range wf.Ops {
			g := got[j]
			where := fmt.Sprintf("@%s op %d (%s)", fn.Name, j, w.Name)
			if g.op.Name != w.Name || g.depth != w.Depth {
				return fmt.Errorf("%s: got %s at depth %d, want depth %d", where, g.op.Name, g.depth, w.Depth)
			}
			var types []string
			for _, r := range g.op.Results {
				types = append(types, r.Type.String())
			}
			if strings.Join(types, ", ") != strings.Join(w.Results, ", ") {
				return fmt.Errorf("%s: result types %v, want %v", where, types, w.Results)
			}
			names := make([]string, 0, len(w.Attrs))
			for k := range w.Attrs {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				checked, err := compareAttr(g.op, k, w.Attrs[k], st)
				if err != nil {
					return fmt.Errorf("%s: attribute %s: %w", where, k, err)
				}
				if checked {
					st.attrs++
				}
			}
			if err := compareLoc(g.op.Loc, w.Loc); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			st.locs++
			if w.OpText != "" {
				if err := compareConstText(g.op, w.OpText); err != nil {
					return fmt.Errorf("%s: %w", where, err)
				}
				st.consts++
			}
			st.ops++
		}
		st.funcs++
	}
	return nil
}

var (
	locNameRE = regexp.MustCompile(`^loc\(("(?:[^"\\]|\\.)*")[()]`)
	locFileRE = regexp.MustCompile(`("(?:[^"\\]|\\.)*"):(\d+):(\d+)`)
)

// compareLoc checks an op location against MLIR's printed location: the
// outermost name, and the first (innermost call site) file:line:col.
func compareLoc(loc *ir.Location, text string) error {
	var got, want ir.Location
	if loc != nil {
		got = *loc
	}
	if m := locNameRE.FindStringSubmatch(text); m != nil {
		want.Name, _ = strconv.Unquote(m[1])
	}
	if m := locFileRE.FindStringSubmatch(text); m != nil {
		want.File, _ = strconv.Unquote(m[1])
		want.Line, _ = strconv.Atoi(m[2])
		want.Col, _ = strconv.Atoi(m[3])
	}
	if got != want {
		return fmt.Errorf("location %+v, want %+v (%s)", got, want, text)
	}
	return nil
}

// compareArgAttrs checks per-argument attribute dictionaries against MLIR's
// text ({name = value, …}).
func compareArgAttrs(got []ir.Attrs, want []string, st *compareStats) error {
	if want == nil {
		for _, a := range got {
			if len(a) != 0 {
				return fmt.Errorf("got %v, jaxlib has none", got)
			}
		}
		return nil
	}
	if len(got) != len(want) {
		return fmt.Errorf("%d dictionaries, want %d", len(got), len(want))
	}
	for i, w := range want {
		body := strings.TrimSuffix(strings.TrimPrefix(w, "{"), "}")
		entries := map[string]string{}
		if body != "" {
			for _, e := range splitTop(body) {
				k, v, ok := strings.Cut(e, " = ")
				if !ok {
					k, v = e, "unit" // unit attributes print as a bare name
				}
				entries[strings.Trim(k, `"`)] = v
			}
		}
		if len(entries) != len(got[i]) {
			return fmt.Errorf("%d: got %v, want %s", i, got[i], w)
		}
		for k, v := range entries {
			a, ok := got[i][k]
			if !ok {
				return fmt.Errorf("%d: missing %s (want %s)", i, k, w)
			}
			if strings.HasPrefix(v, "{") || strings.Contains(v, "\\") {
				continue // nested dictionaries and escaped strings: not comparable as text
			}
			if a.String() != v {
				return fmt.Errorf("%d: %s = %s, want %s", i, k, a, v)
			}
			st.argAttrs++
		}
	}
	return nil
}

type opDepth struct {
	op    *ir.Op
	depth int
}

func flatOpsDepth(fn *ir.Func) []opDepth {
	var out []opDepth
	var walk func(b *ir.Block, d int)
	walk = func(b *ir.Block, d int) {
		for _, op := range b.Ops {
			if op.Name == "builtin.unrealized_conversion_cast" {
				continue // jaxlib reconciles these casts away when deserializing
			}
			out = append(out, opDepth{op, d})
			for _, r := range op.Regions {
				for _, sb := range r.Blocks {
					walk(sb, d+1)
				}
			}
		}
	}
	walk(fn.Entry(), 0)
	return out
}

// structFields lists the fields of StableHLO struct attributes that VHLO
// flattens into separate attributes.
var structFields = map[string][]string{
	"#stablehlo.dot<":     {"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions"},
	"#stablehlo.gather<":  {"offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims", "start_index_map", "index_vector_dim"},
	"#stablehlo.scatter<": {"update_window_dims", "inserted_window_dims", "input_batching_dims", "scatter_indices_batching_dims", "scatter_dims_to_operand_dims", "index_vector_dim"},
}

var fieldRE = regexp.MustCompile(`(\w+) = (\[[^\]]*\]|-?\d+)`)

// compareAttr checks one jaxlib attribute against the decoded op. It reports
// whether a comparison was made (some forms are not comparable as text).
func compareAttr(op *ir.Op, name string, w jaxAttr, st *compareStats) (bool, error) {
	text := w.Text
	// Struct attributes: compare field by field with the flattened attrs.
	for prefix, fields := range structFields {
		if !strings.HasPrefix(text, prefix) {
			continue
		}
		present := map[string]string{}
		for _, m := range fieldRE.FindAllStringSubmatch(text, -1) {
			present[m[1]] = m[2]
		}
		for _, f := range fields {
			v, ok := present[f]
			if f == "index_vector_dim" {
				got, _ := op.Attrs.Int(f)
				if ok && strconv.FormatInt(got, 10) != v {
					return false, fmt.Errorf("%s = %d, want %s", f, got, v)
				}
				continue
			}
			got, _ := op.Attrs.I64s(f)
			if !ok {
				v = "[]"
			}
			if s := fmt.Sprint(got); strings.ReplaceAll(s, " ", ", ") != v && !(len(got) == 0 && v == "[]") {
				return false, fmt.Errorf("%s = %v, want %s", f, got, v)
			}
		}
		return true, nil
	}
	if strings.HasPrefix(text, "#stablehlo.conv<") {
		return true, compareConvDims(op, text)
	}
	got, ok := op.Attrs[name]
	if !ok {
		if name == "api_version" {
			return false, nil
		}
		return false, fmt.Errorf("missing (jaxlib: %s)", text)
	}
	if w.Dense != nil {
		st.consts++
		return true, compareDense(got, *w.Dense, text)
	}
	switch {
	case strings.HasPrefix(text, "dense<"):
		// numpy cannot hold it (bf16, f8, i4…): compare the numbers.
		e, ok := got.(*ir.ElementsAttr)
		if !ok {
			return false, fmt.Errorf("got %v, want %s", got, text)
		}
		st.consts++
		return true, compareDenseText(e, text)
	case strings.HasPrefix(text, "array<i64"):
		if text == "array<i64>" {
			text = "array<i64: >"
		}
	case strings.HasPrefix(text, "array<i1"):
		if text == "array<i1>" {
			text = "array<i1: >"
		}
	case strings.HasPrefix(text, "dense_resource<"):
		// Only the dense_resource artifact has one; its values are checked there.
		_, ok := got.(*ir.ElementsAttr)
		if !ok {
			return false, fmt.Errorf("got %v, want %s", got, text)
		}
		return true, nil
	case strings.HasPrefix(text, "{"), strings.HasPrefix(text, "[#stablehlo.output_operand_alias"),
		strings.Contains(text, "\\"):
		return false, nil // dictionaries, shardings, escaped strings: not comparable as text
	case strings.HasPrefix(text, "[dense<"):
		// custom_call layouts: arrays of index tensors.
		arr, ok := got.(ir.ArrayAttr)
		if !ok {
			return false, fmt.Errorf("got %v, want %s", got, text)
		}
		var parts []string
		for _, e := range arr.Elems {
			l, ok := e.(ir.DenseI64Attr)
			if !ok {
				return false, fmt.Errorf("element %v is not an integer list", e)
			}
			var vs []string
			for _, v := range l.Values {
				vs = append(vs, strconv.FormatInt(v, 10))
			}
			parts = append(parts, "["+strings.Join(vs, ", ")+"]")
		}
		wantText := regexp.MustCompile(`dense<([^>]*)> : tensor<\d*xindex>`).ReplaceAllStringFunc(text, func(s string) string {
			v := s[len("dense<"):strings.Index(s, ">")]
			if strings.HasPrefix(v, "[") {
				return v
			}
			return "[" + v + "]"
		})
		if "["+strings.Join(parts, ", ")+"]" != wantText {
			return false, fmt.Errorf("got %v, want %s", parts, text)
		}
		return true, nil
	}
	if name == "api_version" {
		return false, nil
	}
	if strings.HasPrefix(text, `@"`) { // MLIR quotes symbol names that are not identifiers
		if u, err := strconv.Unquote(text[1:]); err == nil {
			text = "@" + u
		}
	}
	if g := got.String(); g != text {
		return false, fmt.Errorf("got %s, want %s", g, text)
	}
	return true, nil
}

// compareDense compares a constant (or integer list) with numpy's bytes.
func compareDense(got ir.Attr, hexData, text string) error {
	want, err := hex.DecodeString(hexData)
	if err != nil {
		return err
	}
	switch a := got.(type) {
	case *ir.ElementsAttr:
		if !bytes.Equal(a.Data, want) {
			return fmt.Errorf("data %x, want %x (%s)", a.Data, want, text)
		}
		if !strings.HasSuffix(text, ": "+a.Type.String()) {
			return fmt.Errorf("type %s, want %s", a.Type, text)
		}
		return nil
	case ir.DenseI64Attr:
		if len(want) != 8*len(a.Values) {
			return fmt.Errorf("got %v, want %s", a.Values, text)
		}
		for i, v := range a.Values {
			if readInt(want[8*i:], 8, true) != v {
				return fmt.Errorf("got %v, want %s", a.Values, text)
			}
		}
		return nil
	}
	return fmt.Errorf("got %v, want %s", got, text)
}

var denseTextRE = regexp.MustCompile(`^dense<(.*)> : (tensor<.*>)$`)

// compareDenseText compares constant values with MLIR's dense<…> text for
// element types numpy cannot represent; floats within printing precision.
func compareDenseText(e *ir.ElementsAttr, text string) error {
	m := denseTextRE.FindStringSubmatch(text)
	if m == nil {
		return fmt.Errorf("cannot parse %s", text)
	}
	if m[2] != e.Type.String() {
		return fmt.Errorf("type %s, want %s", e.Type, m[2])
	}
	body := strings.NewReplacer("[", "", "]", "", "(", "", ")", "", " ", "").Replace(m[1])
	var words []string
	if body != "" {
		words = strings.Split(body, ",")
	}
	el := e.Type.Elem
	per := 1
	if el.IsComplex() {
		per = 2
	}
	n := int(e.Type.NumElements()) * per
	if len(words) == per && n > per {
		for len(words) < n {
			words = append(words, words[:per]...)
		}
	}
	if strings.HasPrefix(m[1], "\"0x") {
		return fmt.Errorf("hex dense literal %s not handled", text)
	}
	if len(words) != n {
		return fmt.Errorf("%d values in %s, want %d", len(words), text, n)
	}
	vals := elementValues(e)
	for i, w := range words {
		want, err := strconv.ParseFloat(w, 64)
		if err != nil {
			if w == "true" || w == "false" {
				want = map[string]float64{"true": 1, "false": 0}[w]
			} else {
				return fmt.Errorf("value %q: %v", w, err)
			}
		}
		if d := vals[i] - want; d > 1e-6*max(1, abs(want)) || -d > 1e-6*max(1, abs(want)) {
			return fmt.Errorf("element %d = %g, want %s (%s)", i, vals[i], w, text)
		}
	}
	return nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// elementValues converts constant data to float64 (complex as re, im pairs).
func elementValues(e *ir.ElementsAttr) []float64 {
	el := e.Type.Elem
	var out []float64
	switch {
	case el.IsComplex():
		w := el.ByteSize() / 2
		part := ir.F32
		if el == ir.C128 {
			part = ir.F64
		}
		for off := 0; off+w <= len(e.Data); off += w {
			out = append(out, floatValue(part, pad8(e.Data[off:off+w])))
		}
	case el.IsFloat():
		w := el.ByteSize()
		for off := 0; off+w <= len(e.Data); off += w {
			out = append(out, floatValue(el, pad8(e.Data[off:off+w])))
		}
	default:
		vals, _ := elementsToI64(e)
		for _, v := range vals {
			out = append(out, float64(v))
		}
	}
	return out
}

var constTextRE = regexp.MustCompile(`stablehlo\.constant (dense<.*> : tensor<[^>]*>+)`)

// compareConstText handles ops jaxlib could only give as text (complex
// constants).
func compareConstText(op *ir.Op, text string) error {
	m := constTextRE.FindStringSubmatch(text)
	if m == nil {
		return fmt.Errorf("cannot find the constant in %q", text)
	}
	e, ok := op.Attrs.Elements("value")
	if !ok {
		return fmt.Errorf("constant without a dense value")
	}
	return compareDenseText(e, m[1])
}

var convRE = regexp.MustCompile(`^#stablehlo\.conv<\[([^\]]*)\]x\[([^\]]*)\]->\[([^\]]*)\]>$`)

// compareConvDims checks #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[…]>
// against the flattened convolution dimension attributes.
func compareConvDims(op *ir.Op, text string) error {
	m := convRE.FindStringSubmatch(text)
	if m == nil {
		return fmt.Errorf("cannot parse %s", text)
	}
	check := func(layout, batch, feature, spatial string, b, f byte) error {
		var sp []int64
		for pos, tok := range strings.Split(layout, ",") {
			tok = strings.TrimSpace(tok)
			switch {
			case tok == string(b):
				if v, _ := op.Attrs.Int(batch); v != int64(pos) {
					return fmt.Errorf("%s = %d, want %d (%s)", batch, v, pos, text)
				}
			case tok == string(f):
				if v, _ := op.Attrs.Int(feature); v != int64(pos) {
					return fmt.Errorf("%s = %d, want %d (%s)", feature, v, pos, text)
				}
			default:
				k, err := strconv.Atoi(tok)
				if err != nil {
					return fmt.Errorf("bad layout %s", text)
				}
				for len(sp) <= k {
					sp = append(sp, -1)
				}
				sp[k] = int64(pos)
			}
		}
		got, _ := op.Attrs.I64s(spatial)
		if fmt.Sprint(got) != fmt.Sprint(sp) {
			return fmt.Errorf("%s = %v, want %v (%s)", spatial, got, sp, text)
		}
		return nil
	}
	if err := check(m[1], "input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions", 'b', 'f'); err != nil {
		return err
	}
	if err := check(m[2], "kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions", 'i', 'o'); err != nil {
		return err
	}
	return check(m[3], "output_batch_dimension", "output_feature_dimension", "output_spatial_dimensions", 'b', 'f')
}

// TestRefinedShapePolymorphic shows the way to the shape-polymorphic
// jax.export vectors (listed in known_failures.txt): refined against their
// input shapes with jaxlib (testdata/refine_polymorphic.py), as JAX does
// before compiling, they read as static modules.
func TestRefinedShapePolymorphic(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Python; skipped in -short mode")
	}
	python := testenv.Python(t)
	idx, err := os.ReadFile(testenv.Data(t, "jax-export", "index.json"))
	require.NoError(t, err)
	var vectors []struct {
		Name             string `json:"name"`
		ShapePolymorphic bool   `json:"shape_polymorphic"`
		Inputs           []struct {
			Shape []int `json:"shape"`
		} `json:"inputs"`
		Outputs []struct {
			Shape []int `json:"shape"`
		} `json:"outputs"`
	}
	require.NoError(t, json.Unmarshal(idx, &vectors))
	n := 0
	for _, v := range vectors {
		if !v.ShapePolymorphic {
			continue
		}
		n++
		t.Run(v.Name, func(t *testing.T) {
			in := testenv.Data(t, "jax-export", v.Name+".bc")
			out := filepath.Join(t.TempDir(), "refined.bc")
			args := []string{"testdata/refine_polymorphic.py", in, out}
			for _, a := range v.Inputs {
				var dims []string
				for _, d := range a.Shape {
					dims = append(dims, strconv.Itoa(d))
				}
				args = append(args, strings.Join(dims, "x"))
			}
			msg, err := exec.Command(python, args...).CombinedOutput()
			require.NoError(t, err, "%s", msg)
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			m, err := Read(data)
			require.NoError(t, err)
			requireCanonical(t, m)
			main := m.Main()
			require.Len(t, main.Type.Results, len(v.Outputs))
			for i, o := range v.Outputs {
				got := main.Type.Results[i].(*ir.TensorType).Shape
				require.Equal(t, len(o.Shape), len(got))
				for j := range got {
					require.Equal(t, int64(o.Shape[j]), got[j])
				}
			}
		})
	}
	require.Equal(t, 4, n)
}
