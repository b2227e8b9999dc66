package compiler

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/stretchr/testify/require"
)

// TestNoElementwiseOpLists: the kernel registry is the one place that says
// what an elementwise op is (arity, in place, fusible, type class). The
// compiler and the fused kernels may name such an op only to build one (a
// rewrite creating a multiply) or as the subjects of a rewrite (pass_power.go
// matches power, pass_threefry.go the ops of JAX's threefry loop, loopcount.go a counted loop's compare and add, pass_gatherindex.go JAX's negative-index wrap and fill mask, pass_divshift.go an unsigned divide, pass_totalorder.go a TOTALORDER compare, pass_splat.go a select on a constant predicate); a list, map or switch of them would be a second source of
// op facts that a new op would have to be added to. The verifier names none
// of them, nor any other op that registers a type rule (bitcast_convert):
// each op's rule is registered with its kernel.
func TestNoElementwiseOpLists(t *testing.T) {
	elementwise, typed := map[string]bool{}, map[string]bool{}
	for _, name := range kernel.Ops() {
		tr := kernel.TraitsOf(name)
		elementwise[name] = tr.Elementwise
		typed[name] = tr.Elementwise || tr.Class != 0 || tr.TypeRule != nil
	}
	require.Contains(t, elementwise, "stablehlo.add", "the elementwise family registers its traits")
	subjects := map[string][]string{
		"pass_power.go":       {"stablehlo.power"},
		"pass_gatherindex.go": {"stablehlo.select", "stablehlo.compare", "stablehlo.add", "stablehlo.and"},
		"loopcount.go":        {"stablehlo.compare", "stablehlo.add"},
		"pass_divshift.go":    {"stablehlo.divide"},
		"pass_totalorder.go":  {"stablehlo.compare"},
		"pass_splat.go":       {"stablehlo.select"},
		"pass_counters.go":    {"stablehlo.multiply", "stablehlo.convert", "stablehlo.shift_right_logical"},
		"pass_threefry.go": {"stablehlo.compare", "stablehlo.add", "stablehlo.xor", "stablehlo.or",
			"stablehlo.shift_left", "stablehlo.shift_right_logical", "stablehlo.subtract", "stablehlo.convert"},
	}
	for _, dir := range []string{".", "../verify", "../kernels/fused"} {
		banned, forms := elementwise, []string{"", "stablehlo."}
		if dir == "../verify" {
			banned = typed
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, src, 0)
			require.NoError(t, err)
			built := map[*ast.BasicLit]bool{} // first argument of an op constructor
			ast.Inspect(f, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok && len(c.Args) > 0 {
					name := ""
					switch fn := c.Fun.(type) {
					case *ast.Ident:
						name = fn.Name
					case *ast.SelectorExpr:
						name = fn.Sel.Name
					}
					if lit, ok := c.Args[0].(*ast.BasicLit); ok && strings.EqualFold(name, "newop") {
						built[lit] = true
					}
				}
				return true
			})
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					return true
				}
				for _, prefix := range forms {
					name := prefix + s
					if banned[name] && !built[lit] && !slices.Contains(subjects[filepath.Base(path)], name) {
						t.Errorf("%s: op %q named outside the kernel registry, which holds its facts", fset.Position(lit.Pos()), s)
					}
				}
				return true
			})
		}
	}
}

// TestElementwiseTraitsConsistent: every fusible op is elementwise with a
// fixed arity, and runs in place, as the fused kernel and the planner
// assume; every elementwise StableHLO op registers the type rule the
// verifier checks it by.
func TestElementwiseTraitsConsistent(t *testing.T) {
	fusible := 0
	for _, name := range kernel.Ops() {
		tr := kernel.TraitsOf(name)
		if tr.Elementwise && strings.HasPrefix(name, "stablehlo.") {
			require.True(t, tr.Class != 0 || tr.TypeRule != nil, "%s registers no type rule", name)
		}
		if tr.Loop == nil {
			continue
		}
		fusible++
		require.True(t, tr.Elementwise, name)
		require.True(t, tr.InPlace, name)
		require.Contains(t, []int{1, 2, 3}, tr.Arity, name)
		c, ok := kernel.OpcodeOf(name)
		require.True(t, ok, name)
		require.Equal(t, name, c.Name())
	}
	require.Greater(t, fusible, 40)
}
