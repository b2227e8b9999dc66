package vhlo

import (
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// The matcher must notice wrong names, result types and attribute values.
func TestCheckMatcherDetectsMismatches(t *testing.T) {
	mk := func() *ir.Func {
		arg := ir.NewBlock(ir.Tensor(ir.F32, 4))
		op := ir.NewOp("stablehlo.broadcast_in_dim", []*ir.Value{arg.Args[0]}, []ir.Type{ir.Tensor(ir.F32, 2, 4)},
			ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: []int64{1}}})
		arg.Append(op)
		arg.Append(ir.NewOp("func.return", []*ir.Value{op.Result()}, nil, nil))
		return &ir.Func{Name: "f", Body: ir.NewRegion(arg)}
	}
	stmt := `"vhlo.broadcast_in_dim_v1"(%[[ARG0]]) <{broadcast_dimensions = #vhlo.tensor_v1<dense<1> : tensor<1xi64>>}> : (!vhlo.tensor_v1<4x!vhlo.f32_v1>) -> !vhlo.tensor_v1<2x4x!vhlo.f32_v1>`
	exp := expectedOps(checkFunc{stmts: []checkStmt{{line: 1, text: stmt}, {line: 2, text: `"vhlo.return_v1"(%0) : (!vhlo.tensor_v1<2x4x!vhlo.f32_v1>) -> ()`}}})
	require.Len(t, exp, 2)
	require.Equal(t, []string{"tensor<2x4xf32>"}, exp[0].results)
	require.NoError(t, matchFunc(mk(), exp))

	bad := mk()
	bad.Entry().Ops[0].Attrs["broadcast_dimensions"] = ir.DenseI64Attr{Values: []int64{0}}
	require.Error(t, matchFunc(bad, exp))

	bad = mk()
	bad.Entry().Ops[0].Results[0].Type = ir.Tensor(ir.F32, 4, 2)
	require.Error(t, matchFunc(bad, exp))

	bad = mk()
	bad.Entry().Ops[0].Name = "stablehlo.reshape"
	require.Error(t, matchFunc(bad, exp))
}
