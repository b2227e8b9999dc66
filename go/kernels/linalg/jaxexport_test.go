package linalg

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// ccSigScript lists every custom call of the given artifacts: target,
// operand/result types, backend_config entries and layouts.
const ccSigScript = `import sys, json, glob, os
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo
from jax._src.interpreters import mlir as jmlir
out = []
for f in json.load(sys.stdin):
    data = open(f, 'rb').read()
    ctx = jmlir.make_ir_context()
    with ctx:
        m = stablehlo.deserialize_portable_artifact(ctx, data)
        def walk(op):
            for region in op.regions:
                for block in region.blocks:
                    for o in block.operations:
                        if o.operation.name == "stablehlo.custom_call":
                            a = o.operation.attributes
                            def ty(t):
                                t = ir.RankedTensorType(t)
                                return {"shape": list(t.shape), "elem": str(t.element_type)}
                            cfg = {}
                            for key in ("backend_config", "mhlo.backend_config"):
                                if key in a:
                                    try:
                                        d = ir.DictAttr(a[key])
                                        for i in range(len(d)):
                                            na = d[i]
                                            cfg[na.name] = [ir.IntegerAttr(na.attr).value, str(ir.IntegerAttr(na.attr).type)]
                                    except Exception as e:
                                        pass
                            def layouts(key):
                                if key not in a: return None
                                return [list(ir.DenseIntElementsAttr(x)) for x in ir.ArrayAttr(a[key])]
                            out.append({"file": os.path.basename(f), "target": ir.StringAttr(a["call_target_name"]).value,
                                        "ins": [ty(v.type) for v in o.operation.operands],
                                        "outs": [ty(r.type) for r in o.operation.results],
                                        "cfg": cfg, "operand_layouts": layouts("operand_layouts"), "result_layouts": layouts("result_layouts")})
                        walk(o.operation)
        walk(m.operation)
json.dump(out, sys.stdout)
`

type ccSig struct {
	File, Target string
	Ins, Outs    []struct {
		Shape []int64
		Elem  string
	}
	Cfg            map[string][2]any
	OperandLayouts [][]int64 `json:"operand_layouts"`
	ResultLayouts  [][]int64 `json:"result_layouts"`
}

// TestJaxExportCustomCalls lowers and runs every LAPACK custom call found in
// the jax-export CPU vectors with the exact types, layouts and attributes
// JAX emitted, so that operand/result conventions cannot drift from jaxlib's.
func TestJaxExportCustomCalls(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testenv.Data(t, "jax-export"), "cpu_*.bc"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	sort.Strings(files)
	var sigs []ccSig
	pyRef(t, ccSigScript, files, &sigs)
	require.GreaterOrEqual(t, len(sigs), 44)
	targets := map[string]bool{}
	for _, s := range sigs {
		targets[s.Target] = true
		t.Run(s.File+"/"+s.Target, func(t *testing.T) {
			tensor := func(x struct {
				Shape []int64
				Elem  string
			}) *ir.TensorType {
				et, ok := ir.ParseElemType(x.Elem)
				require.True(t, ok, x.Elem)
				return ir.Tensor(et, x.Shape...)
			}
			var ins, outs []*ir.TensorType
			for _, x := range s.Ins {
				ins = append(ins, tensor(x))
			}
			for _, x := range s.Outs {
				outs = append(outs, tensor(x))
			}
			cfg := ir.Attrs{}
			for k, v := range s.Cfg {
				et, ok := ir.ParseElemType(v[1].(string))
				require.True(t, ok)
				cfg[k] = ir.IntAttr{Value: int64(v[0].(float64)), Type: et}
			}
			layouts := func(ls [][]int64) ir.ArrayAttr {
				var arr ir.ArrayAttr
				for _, l := range ls {
					arr.Elems = append(arr.Elems, ir.DenseI64Attr{Values: l})
				}
				return arr
			}
			op := mkOp("stablehlo.custom_call", ins, outs, ir.Attrs{
				"call_target_name":    ir.StringAttr{Value: s.Target},
				"mhlo.backend_config": ir.DictAttr{Entries: cfg},
				"operand_layouts":     layouts(s.OperandLayouts),
				"result_layouts":      layouts(s.ResultLayouts),
			})
			// Diagonally dominant Hermitian data keeps every routine well defined.
			var bufs [][]byte
			for _, it := range ins {
				n := int(it.NumElements())
				v := make([]complex128, n)
				if it.Rank() >= 2 {
					r, c := int(it.Shape[it.Rank()-2]), int(it.Shape[it.Rank()-1])
					for i := range v {
						row, col := (i/c)%r, i%c
						switch {
						case row == col:
							v[i] = complex(float64(r+2), 0)
						case row < col:
							v[i] = complex(0.5, 0.25)
						default:
							v[i] = complex(0.5, -0.25)
						}
					}
				} else {
					for i := range v {
						v[i] = complex(0.25+float64(i%3), 0)
					}
				}
				name := map[ir.ElemType]string{ir.F32: "f32", ir.F64: "f64", ir.C64: "c64", ir.C128: "c128"}[it.Elem]
				bufs = append(bufs, encodeAs(v, name))
			}
			res := runOp(t, fakeCtx{2}, op, bufs...)
			last := outs[len(outs)-1]
			if last.Elem == ir.S32 && len(outs) > 1 {
				for i := 0; i < int(last.NumElements()); i++ {
					require.Equal(t, int64(0), loadInt(ir.S32, res[len(res)-1], i), "info")
				}
			}
		})
	}
	for _, want := range []string{"potrf", "geev", "heevd", "syevd", "gehrd", "getrf", "geqrf", "orgqr", "ungqr", "gees", "gesdd", "trsm", "sytrd", "hetrd", "gtsv"} {
		found := false
		for tg := range targets {
			if len(tg) > len(want) && tg[len("lapack_x"):len("lapack_x")+len(want)] == want {
				found = true
			}
		}
		require.True(t, found, "no vector uses %s", want)
	}
}
