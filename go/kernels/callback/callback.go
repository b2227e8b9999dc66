package callback

import (
	"encoding/json"
	"fmt"
	"unsafe"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/gojax/gojax/go/shardy"
)

// Target is the custom-call target JAX emits for host callbacks on "cpu".
const Target = "xla_ffi_python_cpu_callback"

// PartitionedTarget is the target of jax.debug.callback(partitioned=True)
// (and jax.debug.print's): in a program over several devices the callback
// runs once per partition on that partition's block of each operand, as
// XLA's partitioner makes it; the runtime records the blocks
// (kernel.HostCallbacks.SetPartitions). Elsewhere it is an ordinary callback.
const PartitionedTarget = "xla_ffi_partitioned_python_cpu_callback"

func init() {
	kernel.RegisterCustomCall(Target, func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
		return lower(ctx, op, false)
	})
	kernel.RegisterCustomCall(PartitionedTarget, func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
		return lower(ctx, op, true)
	})
}

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

func lower(ctx kernel.Context, op *ir.Op, partitioned bool) (kernel.Step, error) {
	hc, ok := ctx.(kernel.HostCallbackContext)
	if !ok {
		return nil, op.Errorf("%s: host callbacks cannot run in this context", Target)
	}
	index, err := Index(op)
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
		var parts [][]kernel.Block
		if partitioned {
			parts = table.Partitions(index)
		}
		if len(parts) == 0 {
			return call(op, callable, spec{Where: where, Args: fill(ins, in), Results: fill(outs, out)})
		}
		if len(outs) > 0 {
			return op.Errorf("%s: a partitioned callback with results is not supported in a program over several devices", PartitionedTarget)
		}
		for _, blocks := range parts {
			args, bufs, err := cut(ins, in, blocks)
			if err != nil {
				return op.Errorf("%s: %v", PartitionedTarget, err)
			}
			if err := call(op, callable, spec{Where: where, Args: fill(args, bufs), Results: []slot{}}); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

func call(op *ir.Op, callable uintptr, s spec) error {
	data, err := json.Marshal(s)
	if err != nil {
		return op.Errorf("%s: %v", Target, err)
	}
	if err := callPython(callable, data); err != nil {
		return op.Errorf("host callback failed: %v", err)
	}
	return nil
}

// cut copies one partition's block of each operand out of the global
// operands (blocks[j].Shape nil: operand j whole).
func cut(ins []slot, in [][]byte, blocks []kernel.Block) ([]slot, [][]byte, error) {
	if len(blocks) != len(ins) {
		return nil, nil, fmt.Errorf("%d operand blocks for %d operands", len(blocks), len(ins))
	}
	args := make([]slot, len(ins))
	bufs := make([][]byte, len(ins))
	for j, s := range ins {
		b := blocks[j]
		args[j], bufs[j] = s, in[j]
		if s.Dtype == "" || b.Shape == nil {
			continue
		}
		if len(b.Shape) != len(s.Shape) || len(b.Offset) != len(s.Shape) {
			return nil, nil, fmt.Errorf("operand %d: block of rank %d for an operand of rank %d", j, len(b.Shape), len(s.Shape))
		}
		n := int64(1)
		for k, d := range b.Shape {
			if b.Offset[k] < 0 || d < 0 || b.Offset[k]+d > s.Shape[k] {
				return nil, nil, fmt.Errorf("operand %d: block at %v of shape %v is outside %v", j, b.Offset, b.Shape, s.Shape)
			}
			n *= d
		}
		es := int64(s.Bytes)
		if total := product(s.Shape); total > 0 {
			es = int64(s.Bytes) / total
		}
		buf := make([]byte, n*es)
		shardy.CopyBlock(in[j], buf, s.Shape, b.Shape, b.Offset, es, false)
		args[j].Shape, args[j].Bytes, bufs[j] = append([]int64{}, b.Shape...), len(buf), buf
	}
	return args, bufs, nil
}

func product(dims []int64) int64 {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	return n
}

// Index reads a callback op's callable index from its backend config.
func Index(op *ir.Op) (uint64, error) {
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
