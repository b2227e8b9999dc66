package vhlo

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/gojax/gojax/go/ir"
)

// This file is a small FileCheck stand-in for the conformance corpus: it
// reads the CHECK lines of stablehlo_legalize_to_vhlo.*.mlir (which describe
// the VHLO form of each test function) and checks that the decoded module
// has, in order, an op of the same canonical name for every checked VHLO op,
// with the checked result types and the checked simple attribute values.

// checkFunc is the CHECK statements under one CHECK-LABEL.
type checkFunc struct {
	label string
	stmts []checkStmt
}

// checkStmt is a CHECK or CHECK-NEXT line joined with its CHECK-SAME lines.
type checkStmt struct {
	line int
	text string
}

var (
	// The corpus misspells a few labels as CHECK_lABEL; FileCheck then lets
	// the checks below them match in the next function's output, so they
	// are treated as labels here.
	checkLineRE = regexp.MustCompile(`//\s*CHECK(-LABEL|_lABEL|-NEXT|-SAME)?(\{LITERAL\})?:(.*)$`)
	labelRE     = regexp.MustCompile(`^\s*"?([\w.\-]+)"?\s*$`)
	opNameRE    = regexp.MustCompile(`"(vhlo\.[\w\-]+)"`)
)

func parseChecks(path string) ([]checkFunc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var funcs []checkFunc
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		m := checkLineRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		kind, text := m[1], m[3]
		switch kind {
		case "-LABEL", "_lABEL":
			lm := labelRE.FindStringSubmatch(text)
			if lm == nil {
				return nil, fmt.Errorf("%s:%d: cannot parse label %q", path, n, text)
			}
			funcs = append(funcs, checkFunc{label: lm[1]})
		case "-SAME":
			if len(funcs) == 0 || len(funcs[len(funcs)-1].stmts) == 0 {
				continue
			}
			s := &funcs[len(funcs)-1].stmts[len(funcs[len(funcs)-1].stmts)-1]
			s.text += strings.TrimSpace(text)
		default:
			if len(funcs) == 0 {
				continue
			}
			funcs[len(funcs)-1].stmts = append(funcs[len(funcs)-1].stmts, checkStmt{line: n, text: strings.TrimSpace(text)})
		}
	}
	return funcs, sc.Err()
}

// expectedOp is one op a CHECK statement names.
type expectedOp struct {
	line    int
	vhlo    string   // vhlo.add_v1
	results []string // in gojax spelling; nil when not checked
	stmt    string
}

func expectedOps(cf checkFunc) []expectedOp {
	var out []expectedOp
	for _, s := range cf.stmts {
		m := opNameRE.FindStringSubmatch(s.text)
		if m == nil || m[1] == "vhlo.func_v1" {
			continue
		}
		e := expectedOp{line: s.line, vhlo: m[1], stmt: s.text}
		if res, ok := resultTypes(s.text); ok {
			e.results = res
		}
		out = append(out, e)
	}
	return out
}

// resultTypes extracts the types after the last top-level "->" of a generic
// op statement, converted to gojax spelling.
func resultTypes(stmt string) ([]string, bool) {
	if strings.Contains(stmt, "{{") || strings.Contains(stmt, "({") {
		return nil, false // regex or a region in between: the types belong elsewhere
	}
	i := strings.LastIndex(stmt, ") -> ")
	if i < 0 {
		return nil, false
	}
	res := strings.TrimSpace(stmt[i+len(") -> "):])
	if strings.HasPrefix(res, "(") && strings.HasSuffix(res, ")") {
		res = res[1 : len(res)-1]
	}
	var out []string
	for _, part := range splitTop(res) {
		if part == "" {
			continue
		}
		t, ok := vhloTypeText(part)
		if !ok {
			return nil, false
		}
		out = append(out, t)
	}
	return out, true
}

// splitTop splits at commas outside <> and ().
func splitTop(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '<', '(', '[', '{':
			depth++
		case '>', ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(parts, strings.TrimSpace(s[start:]))
}

var vhloElems = map[string]string{
	"bool": "i1", "index": "i64", "tf32": "",
}

// vhloTypeText converts a VHLO type spelling to gojax's (ir Type.String()).
func vhloTypeText(s string) (string, bool) {
	s = strings.TrimSpace(s)
	switch {
	case s == "!vhlo.token_v1":
		return "!stablehlo.token", true
	case strings.HasPrefix(s, "!vhlo.tuple_v1<") && strings.HasSuffix(s, ">"):
		var parts []string
		for _, p := range splitTop(s[len("!vhlo.tuple_v1<") : len(s)-1]) {
			t, ok := vhloTypeText(p)
			if !ok {
				return "", false
			}
			parts = append(parts, t)
		}
		return "tuple<" + strings.Join(parts, ", ") + ">", true
	case strings.HasPrefix(s, "!vhlo.tensor_v1<") && strings.HasSuffix(s, ">"):
		body := s[len("!vhlo.tensor_v1<") : len(s)-1]
		i := strings.Index(body, "!vhlo.")
		if i < 0 {
			return "", false
		}
		dims := body[:i]
		if strings.Contains(dims, "?") {
			return "", false
		}
		el, ok := vhloElemText(body[i:])
		if !ok {
			return "", false
		}
		return "tensor<" + dims + el + ">", true
	}
	return "", false
}

func vhloElemText(s string) (string, bool) {
	if strings.HasPrefix(s, "!vhlo.complex_v1<") && strings.HasSuffix(s, ">") {
		inner, ok := vhloElemText(s[len("!vhlo.complex_v1<") : len(s)-1])
		return "complex<" + inner + ">", ok
	}
	name, ok := strings.CutPrefix(s, "!vhlo.")
	if !ok {
		return "", false
	}
	name, ok = strings.CutSuffix(name, "_v1")
	if !ok {
		return "", false
	}
	if m, ok := vhloElems[name]; ok {
		return m, m != ""
	}
	if _, ok := ir.ParseElemType(name); !ok {
		return "", false
	}
	return name, true
}

// flatOps lists a function's ops in pre-order.
func flatOps(fn *ir.Func) []*ir.Op {
	var ops []*ir.Op
	fn.Body.Walk(func(op *ir.Op) bool {
		ops = append(ops, op)
		return true
	})
	return ops
}

func sameOpName(vhloName, name string) bool {
	short := strings.TrimPrefix(vhloName, "vhlo.")
	base := short[:strings.LastIndex(short, "_v")]
	switch base {
	case "return":
		return name == "func.return" || name == "stablehlo.return"
	case "call":
		return name == "func.call"
	}
	return name == "stablehlo."+base
}

// matchFunc checks a function against its expected ops, FileCheck style
// (each expected op is searched after the previous match).
func matchFunc(fn *ir.Func, exp []expectedOp) error {
	ops := flatOps(fn)
	pos := 0
	for _, e := range exp {
		found := false
		var lastErr error
		for ; pos < len(ops); pos++ {
			op := ops[pos]
			if !sameOpName(e.vhlo, op.Name) {
				continue
			}
			if err := checkOp(op, e); err != nil {
				lastErr = err
				continue
			}
			found = true
			checkStats.ops++
			if e.results != nil {
				checkStats.results++
			}
			pos++
			break
		}
		if !found {
			if lastErr != nil {
				return fmt.Errorf("line %d: %s: %v", e.line, e.vhlo, lastErr)
			}
			return fmt.Errorf("line %d: no %s op found (in order)", e.line, e.vhlo)
		}
	}
	return nil
}

func checkOp(op *ir.Op, e expectedOp) error {
	if e.results != nil {
		if len(e.results) != len(op.Results) {
			return fmt.Errorf("%d results, want %d", len(op.Results), len(e.results))
		}
		for i, want := range e.results {
			if got := op.Results[i].Type.String(); got != want {
				return fmt.Errorf("result %d has type %s, want %s", i, got, want)
			}
		}
	}
	return checkAttrs(op, e)
}

var (
	intAttrRE    = regexp.MustCompile(`(\w+) = #vhlo\.integer_v1<(-?\d+) : (\w+)>`)
	boolAttrRE   = regexp.MustCompile(`(\w+) = #vhlo\.bool_v1<(true|false)>`)
	stringAttrRE = regexp.MustCompile(`(\w+) = #vhlo\.string_v1<"([^"\\]*)">`)
	enumAttrRE   = regexp.MustCompile(`(\w+) = #vhlo<(\w+)_v1 (\w+)>`)
	tensorAttrRE = regexp.MustCompile(`(\w+) = #vhlo\.tensor_v1<dense<([^>]*)> : tensor<([\dx]*)(i\d+|i1|ui\d+)>>`)
)

// checkAttrs compares the op's inherent attributes with the simple attribute
// values of the statement (integers, bools, strings, enums, integer lists).
// checkStats counts what the matcher compared, so a test can tell the
// comparison was not vacuous.
var checkStats struct{ ops, results, attrs int }

func checkAttrs(op *ir.Op, e expectedOp) error {
	short := strings.TrimPrefix(e.vhlo, "vhlo.")
	props := map[string]bool{}
	for _, p := range vhloOps[short].props {
		props[p] = true
	}
	for _, m := range intAttrRE.FindAllStringSubmatch(e.stmt, -1) {
		if !props[m[1]] {
			continue
		}
		checkStats.attrs++
		want, _ := strconv.ParseInt(m[2], 10, 64)
		got, ok := op.Attrs[m[1]].(ir.IntAttr)
		if !ok || got.Value != want {
			return fmt.Errorf("%s = %v, want %d", m[1], op.Attrs[m[1]], want)
		}
	}
	for _, m := range boolAttrRE.FindAllStringSubmatch(e.stmt, -1) {
		if !props[m[1]] {
			continue
		}
		checkStats.attrs++
		got, ok := op.Attrs[m[1]].(ir.BoolAttr)
		if !ok || got.Value != (m[2] == "true") {
			return fmt.Errorf("%s = %v, want %s", m[1], op.Attrs[m[1]], m[2])
		}
	}
	for _, m := range stringAttrRE.FindAllStringSubmatch(e.stmt, -1) {
		if !props[m[1]] {
			continue
		}
		checkStats.attrs++
		var got string
		switch a := op.Attrs[m[1]].(type) {
		case ir.StringAttr:
			got = a.Value
		case ir.SymbolRefAttr:
			got = a.Name
		default:
			return fmt.Errorf("%s = %v, want string %q", m[1], a, m[2])
		}
		if got != m[2] {
			return fmt.Errorf("%s = %q, want %q", m[1], got, m[2])
		}
	}
	for _, m := range enumAttrRE.FindAllStringSubmatch(e.stmt, -1) {
		if !props[m[1]] {
			continue
		}
		checkStats.attrs++
		got, ok := op.Attrs[m[1]].(ir.EnumAttr)
		if !ok || got.Value != m[3] {
			return fmt.Errorf("%s = %v, want %s", m[1], op.Attrs[m[1]], m[3])
		}
	}
	for _, m := range tensorAttrRE.FindAllStringSubmatch(e.stmt, -1) {
		if !props[m[1]] {
			continue
		}
		checkStats.attrs++
		if err := checkList(op.Attrs[m[1]], m[2], m[3], m[4]); err != nil {
			return fmt.Errorf("%s: %v", m[1], err)
		}
	}
	return nil
}

// checkList compares an integer/bool list attribute with dense<…> text.
func checkList(a ir.Attr, dense, dims, elem string) error {
	n := 1
	for _, d := range strings.Split(strings.TrimSuffix(dims, "x"), "x") {
		if d == "" {
			continue
		}
		v, _ := strconv.Atoi(d)
		n *= v
	}
	text := strings.NewReplacer("[", "", "]", "", " ", "").Replace(dense)
	var words []string
	if text != "" {
		words = strings.Split(text, ",")
	}
	if len(words) == 1 && n != 1 {
		for len(words) < n {
			words = append(words, words[0])
		}
	}
	if len(words) != n {
		return fmt.Errorf("cannot expand dense<%s> to %d elements", dense, n)
	}
	var got []string
	switch a := a.(type) {
	case ir.DenseI64Attr:
		for _, v := range a.Values {
			got = append(got, strconv.FormatInt(v, 10))
		}
	case ir.DenseBoolAttr:
		for _, v := range a.Values {
			got = append(got, strconv.FormatBool(v))
		}
	case *ir.ElementsAttr:
		vals, err := elementsToI64(a)
		if err != nil {
			return err
		}
		for _, v := range vals {
			if elem == "i1" {
				got = append(got, strconv.FormatBool(v != 0))
			} else {
				got = append(got, strconv.FormatInt(v, 10))
			}
		}
	default:
		return fmt.Errorf("got %v, want dense<%s>", a, dense)
	}
	if strings.Join(got, ",") != strings.Join(words, ",") {
		return fmt.Errorf("got %v, want dense<%s>", got, dense)
	}
	return nil
}
