package ir

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// sampleModule: main(x: 4xf32, n: i32) adds a constant, loops with a while,
// and calls a private helper.
func sampleModule() *Module {
	f32x4 := Tensor(F32, 4)
	i32 := Tensor(S32)
	body := NewBlock(f32x4, i32)
	data := make([]byte, 16)
	for i := range 4 {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(float32(i)+0.5))
	}
	k := body.Append(NewOp("stablehlo.constant", nil, []Type{f32x4}, Attrs{"value": &ElementsAttr{Type: f32x4, Data: data}}))
	add := body.Append(NewOp("stablehlo.add", []*Value{body.Args[0], k.Result()}, []Type{f32x4}, nil))
	add.Loc = &Location{Name: "jit(f)/add", File: "f.py", Line: 3, Col: 7}

	w := body.Append(NewOp("stablehlo.while", []*Value{body.Args[1], add.Result()}, []Type{i32, f32x4}, nil))
	cond := NewBlock(i32, f32x4)
	cmp := cond.Append(NewOp("stablehlo.compare", []*Value{cond.Args[0], body.Args[1]}, []Type{Tensor(Pred)},
		Attrs{"comparison_direction": EnumAttr{Kind: "comparison_direction", Value: "LT"}}))
	cond.Append(NewOp("stablehlo.return", cmp.Results, nil, nil))
	loop := NewBlock(i32, f32x4)
	loop.Append(NewOp("stablehlo.return", loop.Args, nil, nil))
	w.AddRegion(NewRegion(cond))
	w.AddRegion(NewRegion(loop))

	call := body.Append(NewOp("func.call", []*Value{w.Results[1]}, []Type{f32x4}, Attrs{"callee": SymbolRefAttr{Name: "helper"}}))
	body.Append(NewOp("func.return", call.Results, nil, nil))
	main := &Func{Name: "main", Visibility: "public", Type: FuncType{Inputs: []Type{f32x4, i32}, Results: []Type{f32x4}},
		ArgAttrs: []Attrs{{"jax.buffer_donor": BoolAttr{Value: true}}, nil}, Body: NewRegion(body)}

	hb := NewBlock(f32x4)
	hb.Append(NewOp("func.return", hb.Args, nil, nil))
	helper := &Func{Name: "helper", Visibility: "private", Type: FuncType{Inputs: []Type{f32x4}, Results: []Type{f32x4}}, Body: NewRegion(hb)}
	return &Module{Funcs: []*Func{main, helper}, Attrs: Attrs{"mhlo.num_partitions": IntAttr{Value: 1, Type: S32}}}
}

func TestPrintModule(t *testing.T) {
	want := `module attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true}, %arg1: tensor<i32>) -> (tensor<4xf32>) {
    %0 = "stablehlo.constant"() {value = dense<[0.5, 1.5, 2.5, 3.5]> : tensor<4xf32>} : () -> tensor<4xf32>
    %1 = "stablehlo.add"(%arg0, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %2:2 = "stablehlo.while"(%arg1, %1) ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<4xf32>):
      %3 = "stablehlo.compare"(%arg2, %arg1) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%3) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg4: tensor<i32>, %arg5: tensor<4xf32>):
      "stablehlo.return"(%arg4, %arg5) : (tensor<i32>, tensor<4xf32>) -> ()
    }) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
    %4 = "func.call"(%2#1) {callee = @helper} : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%4) : (tensor<4xf32>) -> ()
  }
  func.func private @helper(%arg0: tensor<4xf32>) -> (tensor<4xf32>) {
    "func.return"(%arg0) : (tensor<4xf32>) -> ()
  }
}
`
	m := sampleModule()
	require.Equal(t, want, m.String())
	require.Equal(t, m.String(), m.String(), "deterministic")

	var b strings.Builder
	require.NoError(t, Printer{Locations: true}.Print(&b, m))
	require.Contains(t, b.String(), `-> tensor<4xf32> loc("jit(f)/add"("f.py":3:7))`)
}

func TestFormatElements(t *testing.T) {
	le32 := func(vs ...uint32) []byte {
		out := make([]byte, 4*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint32(out[4*i:], v)
		}
		return out
	}
	big := make([]byte, 20)
	for i := range big {
		big[i] = byte(i)
	}
	cases := []struct {
		name string
		a    *ElementsAttr
		want string
	}{
		{"scalar f32", &ElementsAttr{Type: Tensor(F32), Data: le32(math.Float32bits(2))}, "dense<2.0> : tensor<f32>"},
		{"splat", &ElementsAttr{Type: Tensor(S32, 2, 2), Data: le32(7, 7, 7, 7)}, "dense<7> : tensor<2x2xi32>"},
		{"matrix", &ElementsAttr{Type: Tensor(S32, 2, 2), Data: le32(1, 0xFFFFFFFF, 3, 4)}, "dense<[[1, -1], [3, 4]]> : tensor<2x2xi32>"},
		{"unsigned", &ElementsAttr{Type: Tensor(U32, 2), Data: le32(1, 0xFFFFFFFF)}, "dense<[1, 4294967295]> : tensor<2xui32>"},
		{"bool", &ElementsAttr{Type: Tensor(Pred, 3), Data: []byte{1, 0, 1}}, "dense<[true, false, true]> : tensor<3xi1>"},
		{"i4 sign", &ElementsAttr{Type: Tensor(S4, 2), Data: []byte{0x0F, 0x07}}, "dense<[-1, 7]> : tensor<2xi4>"},
		{"f16", &ElementsAttr{Type: Tensor(F16, 2), Data: []byte{0x00, 0x3C, 0x00, 0xC0}}, "dense<[1.0, -2.0]> : tensor<2xf16>"},
		{"bf16", &ElementsAttr{Type: Tensor(BF16, 2), Data: []byte{0x80, 0x3F, 0x00, 0x40}}, "dense<[1.0, 2.0]> : tensor<2xbf16>"},
		{"nan", &ElementsAttr{Type: Tensor(F32, 2), Data: le32(0x7FC00000, 0)}, "dense<[0x7FC00000, 0.0]> : tensor<2xf32>"},
		{"complex", &ElementsAttr{Type: Tensor(C64), Data: le32(math.Float32bits(1), math.Float32bits(-0.25))}, "dense<(1.0, -0.25)> : tensor<complex<f32>>"},
		{"f8 hex", &ElementsAttr{Type: Tensor(F8E4M3FN, 2), Data: []byte{0x38, 0x40}}, "dense<[0x38, 0x40]> : tensor<2xf8E4M3FN>"},
		{"empty", &ElementsAttr{Type: Tensor(F32, 0), Data: nil}, "dense<> : tensor<0xf32>"},
		{"large hex", &ElementsAttr{Type: Tensor(U8, 20), Data: big}, `dense<"0x000102030405060708090A0B0C0D0E0F10111213"> : tensor<20xui8>`},
		{"bad size", &ElementsAttr{Type: Tensor(F32, 2), Data: []byte{1}}, `dense<"0x01"> : tensor<2xf32> /* 1 bytes, expected 8 */`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, FormatElements(c.a))
		})
	}
}

func TestFormatAttr(t *testing.T) {
	cases := []struct {
		a    Attr
		want string
	}{
		{FloatAttr{Value: 1e-5, Type: F32}, "1.0e-05 : f32"},
		{FloatAttr{Value: 2.5e20, Type: F64}, "2.5e+20 : f64"},
		{FloatAttr{Value: 1e20, Type: F64}, "1.0e+20 : f64"},
		{FloatAttr{Value: 3, Type: F64}, "3.0 : f64"},
		{DenseI64Attr{Values: []int64{1, 2}}, "array<i64: 1, 2>"},
		{DenseI64Attr{}, "array<i64>"},
		{DenseBoolAttr{Values: []bool{true}}, "array<i1: true>"},
		{DenseBoolAttr{}, "array<i1>"},
		{TypeAttr{Type: Tensor(F32, 2)}, "tensor<2xf32>"},
		{ArrayAttr{Elems: []Attr{EnumAttr{Kind: "precision", Value: "HIGHEST"}, StringAttr{Value: "x"}}}, `[#stablehlo<precision HIGHEST>, "x"]`},
		{DictAttr{Entries: Attrs{"b": UnitAttr{}, "a": IntAttr{Value: 2, Type: S64}}}, "{a = 2 : i64, b}"},
		{OutputOperandAliasAttr{OperandIndex: 1}, "#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, FormatAttr(c.a))
	}
}

func TestPrintBrokenIRDoesNotPanic(t *testing.T) {
	b := NewBlock()
	ghost := &Value{Type: Tensor(F32)}
	b.Append(NewOp("func.return", []*Value{ghost, nil}, nil, nil))
	m := &Module{Funcs: []*Func{{Name: "main", Type: FuncType{Results: []Type{Tensor(F32)}}, Body: NewRegion(b)}, nil}}
	s := m.String()
	require.Contains(t, s, `"func.return"(%<undefined>, %<nil>)`)
	require.Equal(t, "module {\n}\n", (*Module)(nil).String())
}

func TestDumpToDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dumps")
	m := sampleModule()
	require.NoError(t, DumpToDir(dir, "0001 jit/main", m))
	got, err := os.ReadFile(filepath.Join(dir, "0001_jit_main.mlir"))
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, Printer{Locations: true}.Print(&b, m))
	require.Equal(t, b.String(), string(got))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary files left behind")
}
