package callback

import (
	"encoding/json"
	"unsafe"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// Target is the custom-call target JAX emits for host callbacks on "cpu".
const Target = "xla_ffi_python_cpu_callback"

func init() { kernel.RegisterCustomCall(Target, lower) }

// slot describes one operand or result to the Python side.
type slot struct {
	Ptr   uintptr `json:"ptr"`
	Bytes int     `json:"bytes"`
	Dtype string  `json:"dtype"` // NumPy / ml_dtypes name; "" for a token
	Shape []int64 `json:"shape"`
}

type spec struct {
	Where   string `json:"where"`
	Args    []slot `json:"args"`
	Results []slot `json:"results"`
}

func lower(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	hc, ok := ctx.(kernel.HostCallbackContext)
	if !ok {
		return nil, op.Errorf("%s: host callbacks cannot run in this context", Target)
	}
	index, err := callbackIndex(op)
	if err != nil {
		return nil, err
	}
	ins, err := slots(op, op.Operands, "operand")
	if err != nil {
		return nil, err
	}
	outs, err := slots(op, op.Results, "result")
	if err != nil {
		return nil, err
	}
	table := hc.HostCallbacks()
	table.Require(index)
	where := op.Loc.String()
	return func(in, out [][]byte) error {
		callable, ok := table.At(index)
		if !ok {
			return op.Errorf("%s: host callback %d was not provided by JAX for this execution", Target, index)
		}
		s := spec{Where: where, Args: fill(ins, in), Results: fill(outs, out)}
		data, err := json.Marshal(s)
		if err != nil {
			return op.Errorf("%s: %v", Target, err)
		}
		if err := callPython(callable, data); err != nil {
			return op.Errorf("host callback failed: %v", err)
		}
		return nil
	}, nil
}

// callbackIndex reads the callable's index from the backend config.
func callbackIndex(op *ir.Op) (uint64, error) {
	for _, key := range []string{"mhlo.backend_config", "backend_config"} {
		if d, ok := op.Attrs[key].(ir.DictAttr); ok {
			if v, ok := d.Entries["index"].(ir.IntAttr); ok && v.Value >= 0 {
				return uint64(v.Value), nil
			}
		}
	}
	return 0, op.Errorf("%s: backend config has no callback index", Target)
}

// slots resolves the types of operands or results; tokens get no dtype.
func slots(op *ir.Op, vals []*ir.Value, role string) ([]slot, error) {
	out := make([]slot, len(vals))
	for i, v := range vals {
		switch t := v.Type.(type) {
		case *ir.TokenType:
			out[i] = slot{Shape: []int64{}}
		case *ir.TensorType:
			name, ok := dtypeNames[t.Elem]
			if !ok {
				return nil, op.Errorf("%s: %s %d has element type %s, which host callbacks do not support", Target, role, i, t.Elem)
			}
			shape := append([]int64{}, t.Shape...)
			out[i] = slot{Dtype: name, Shape: shape, Bytes: int(t.ByteSize())}
		default:
			return nil, op.Errorf("%s: %s %d has type %s, not a tensor or token", Target, role, i, v.Type)
		}
	}
	return out, nil
}

// fill copies the static descriptions and adds this run's addresses.
func fill(static []slot, bufs [][]byte) []slot {
	out := make([]slot, len(static))
	for i, s := range static {
		out[i] = s
		if s.Dtype != "" && len(bufs[i]) > 0 {
			out[i].Ptr = uintptr(unsafe.Pointer(unsafe.SliceData(bufs[i])))
		}
	}
	return out
}

// dtypeNames spells gojax element types as NumPy (or ml_dtypes) dtypes.
// Gojax stores sub-byte types one byte per element, as ml_dtypes does.
var dtypeNames = map[ir.ElemType]string{
	ir.Pred: "bool",
	ir.S2:   "int2", ir.S4: "int4", ir.S8: "int8", ir.S16: "int16", ir.S32: "int32", ir.S64: "int64",
	ir.U2: "uint2", ir.U4: "uint4", ir.U8: "uint8", ir.U16: "uint16", ir.U32: "uint32", ir.U64: "uint64",
	ir.F4E2M1FN: "float4_e2m1fn", ir.F6E2M3FN: "float6_e2m3fn", ir.F6E3M2FN: "float6_e3m2fn",
	ir.F8E3M4: "float8_e3m4", ir.F8E4M3: "float8_e4m3", ir.F8E4M3FN: "float8_e4m3fn",
	ir.F8E4M3FNUZ: "float8_e4m3fnuz", ir.F8E4M3B11FNUZ: "float8_e4m3b11fnuz",
	ir.F8E5M2: "float8_e5m2", ir.F8E5M2FNUZ: "float8_e5m2fnuz", ir.F8E8M0FNU: "float8_e8m0fnu",
	ir.BF16: "bfloat16", ir.F16: "float16", ir.F32: "float32", ir.F64: "float64",
	ir.C64: "complex64", ir.C128: "complex128",
}
