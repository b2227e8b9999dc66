package compiler

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// convertScript converts each MLIR file named on the command line to HLO
// with jaxlib's own converter (the one PJRT_Executable_OptimizedProgram's
// "mlir" answers go through) and prints "ok <file>" or "fail <file>: why".
const convertScript = `
import sys
from jax._src.lib import _jax
for path in sys.argv[1:]:
    try:
        c = _jax.mlir.mlir_module_to_xla_computation(open(path).read(), use_tuple_args=False, return_tuple=False)
        open(path + ".hlo", "w").write(c.as_hlo_text())
        print("ok", path)
    except Exception as e:
        print("fail", path + ":", str(e).replace("\n", " ")[:2000])
`

// convertWithJaxlib writes each text to dir and returns jaxlib's HLO of
// each (failures fail the test).
func convertWithJaxlib(t *testing.T, texts map[string]string) map[string]string {
	t.Helper()
	python := testenv.Python(t)
	dir := t.TempDir()
	var files []string
	for name, text := range texts {
		p := filepath.Join(dir, name+".mlir")
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		files = append(files, p)
	}
	out, err := exec.Command(python, append([]string{"-c", convertScript}, files...)...).CombinedOutput()
	if strings.Contains(string(out), "No module named") {
		testenv.Unavailable(t, "jaxlib: %s", out)
	}
	require.NoError(t, err, "%s", out)
	hlo := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasPrefix(line, "fail ") {
			path := strings.SplitN(strings.TrimPrefix(line, "fail "), ":", 2)[0]
			text, _ := os.ReadFile(path)
			t.Errorf("jaxlib rejects the exported text: %s\n%s", line, text)
			continue
		}
		path := strings.TrimPrefix(line, "ok ")
		b, err := os.ReadFile(path + ".hlo")
		require.NoError(t, err)
		hlo[strings.TrimSuffix(filepath.Base(path), ".mlir")] = string(b)
	}
	require.Len(t, hlo, len(texts))
	return hlo
}

// TestExportJaxExportCorpus: every program of the jax-export corpus that
// compiles exports, and jaxlib converts the text to HLO.
func TestExportJaxExportCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testenv.Data(t, "jax-export"), "*.bc"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	texts := map[string]string{}
	for _, f := range files {
		code, err := os.ReadFile(f)
		require.NoError(t, err)
		e, err := Compile(code, Options{})
		if err != nil {
			continue // shape-polymorphic vectors need refining first
		}
		text, err := e.OptimizedStableHLO()
		require.NoError(t, err, f)
		texts[strings.NewReplacer("#", "_").Replace(filepath.Base(f))] = text
	}
	require.Greater(t, len(texts), len(files)/2)
	convertWithJaxlib(t, texts)
}

// TestExportFusion: a fused chain is one fusion holding its ops, with the
// step's slots; jaxlib makes it an HLO fusion and keeps the facts.
func TestExportFusion(t *testing.T) {
	f32 := ir.Tensor(ir.F32, 64)
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32, f32}, []ir.Type{f32}, func(b *blkB, a []*ir.Value) []*ir.Value {
		s := b.v("stablehlo.add", f32, nil, a[0], a[1])
		m := b.v("stablehlo.multiply", f32, nil, s, a[0])
		return []*ir.Value{b.v("stablehlo.tanh", f32, nil, m)}
	})
	e, err := CompileModule(mb.m, Options{})
	require.NoError(t, err)
	text, err := e.OptimizedStableHLO()
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(text, `"mhlo.fusion"`), text)
	require.Regexp(t, `gojax.fusion = "gojax.fusion"`, text)
	require.Regexp(t, `gojax.ops = "add,multiply,tanh"`, text)
	require.Regexp(t, `gojax.reads = "s\d+\[256\],s\d+\[256\]"`, text)
	require.Regexp(t, `gojax.writes = "s\d+\[256\]"`, text)
	hlo := convertWithJaxlib(t, map[string]string{"fusion": text})["fusion"]
	require.Regexp(t, regexp.MustCompile(`fusion\(.*kind=kLoop.*gojax.fusion="gojax.fusion"`), hlo)
	require.NotContains(t, hlo, "call(")
	for _, op := range []string{"add", "multiply", "tanh"} {
		require.Regexp(t, `= f32\[64\]\{0\} `+op+`\(`, hlo)
	}
	require.Contains(t, hlo, `gojax.vector_set=`)
}

// TestExportSlotsLoopsAndCaptures: an unfused chain shows a step written
// over its operand's slot; a loop whose body reads a value of the entry
// block converts; capturedValues finds what a region reads from outside
// (what the function made of it takes after the region's arguments).
func TestExportSlotsLoopsAndCaptures(t *testing.T) {
	f32 := ir.Tensor(ir.F32, 32)
	i32 := ir.Tensor(ir.S32)
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32}, []ir.Type{f32, f32}, func(b *blkB, a []*ir.Value) []*ir.Value {
		e := b.v("stablehlo.exponential", f32, nil, a[0])
		n := b.v("stablehlo.negate", f32, nil, e)
		r := b.v("stablehlo.add", f32, nil, n, a[0])
		outer := b.v("stablehlo.sine", f32, nil, a[0])
		lim := b.i32c(3)
		loop := b.while([]*ir.Value{b.i32c(0), r},
			func(rb *blkB, c []*ir.Value) *ir.Value {
				return rb.v("stablehlo.compare", ir.Tensor(ir.Pred), ir.Attrs{
					"comparison_direction": ir.EnumAttr{Kind: "comparison_direction", Value: "LT"}}, c[0], lim)
			},
			func(rb *blkB, c []*ir.Value) []*ir.Value {
				return []*ir.Value{rb.v("stablehlo.add", i32, nil, c[0], rb.i32c(1)), rb.v("stablehlo.multiply", f32, nil, c[1], outer)}
			})
		return []*ir.Value{loop[1], outer}
	})
	e, err := CompileModule(mb.m, Options{NoFuse: true})
	require.NoError(t, err)
	text, err := e.OptimizedStableHLO()
	require.NoError(t, err)
	require.Regexp(t, `"stablehlo.negate"\(%0\) \{mhlo.frontend_attributes = \{gojax.step = "1", gojax.reads = "(s\d+)\[128\]", gojax.writes = "(s\d+)\[128\]", gojax.in_place = "0:0"`, text)
	require.Contains(t, text, `"stablehlo.while"`)
	hlo := convertWithJaxlib(t, map[string]string{"loop": text})["loop"]
	require.Regexp(t, `negate\(.*gojax.in_place="0:0"`, hlo)
	require.Contains(t, hlo, "while(")

	blk := ir.NewBlock(ir.Tensor(ir.F32))
	outer := &ir.Value{Type: ir.Tensor(ir.F32)}
	ret := ir.NewOp("stablehlo.return", []*ir.Value{outer}, nil, nil)
	blk.Append(ir.NewOp("stablehlo.add", []*ir.Value{blk.Args[0], outer}, []ir.Type{ir.Tensor(ir.F32)}, nil))
	blk.Append(ret)
	require.Equal(t, []*ir.Value{outer}, capturedValues(blk))
}

func TestExportSpelling(t *testing.T) {
	require.Equal(t, `"a\"b\\c\0A\C3\A9"`, quote("a\"b\\c\né"))
	require.Equal(t, "main", symbol("main"))
	require.Equal(t, "gojax.fusion.0", symbol("gojax.fusion.0"))
	require.Equal(t, `"jit(f)"`, symbol("jit(f)"))
	for _, a := range []ir.Attr{ir.OpaqueAttr{Dialect: "sdy", Text: "#sdy.sharding<@m, [{}]>"}, ir.DictAttr{},
		ir.EnumAttr{Kind: "custom_call_api_version", Value: "API_VERSION_ORIGINAL"}, ir.IntAttr{Value: 1, Type: ir.Pred}} {
		_, ok := exportAttr(a)
		require.False(t, ok, "%#v", a)
	}
	s, ok := exportAttr(ir.ArrayAttr{Elems: []ir.Attr{ir.EnumAttr{Kind: "precision", Value: "HIGH"}}})
	require.True(t, ok)
	require.Equal(t, "[#stablehlo<precision HIGH>]", s)
	// Large non-splat constants are not spelled (their data would be the
	// text's bulk); splats and small ones are.
	big := &ir.ElementsAttr{Type: ir.Tensor(ir.F32, 17), Data: f32s(make([]float32, 16)...)}
	big.Data = append(big.Data, f32s(1)...)
	require.False(t, printableConstant(big))
	require.True(t, printableConstant(&ir.ElementsAttr{Type: ir.Tensor(ir.F32, 17), Data: f32s(make([]float32, 17)...)}))
	require.False(t, printableConstant(&ir.ElementsAttr{Type: ir.Tensor(ir.S4, 2), Data: []byte{1, 2}}))
}
