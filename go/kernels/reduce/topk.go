package reduce

import (
	"encoding/binary"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// top_k as XLA:CPU computes it for jax.lax.top_k: along the last dim, the k
// largest by IEEE totalOrder (+NaN first, -NaN last, +0 before -0), ties by
// lower index. It reaches gojax as chlo.top_k, or as the custom call
// stablehlo.dynamic_top_k once shapes are refined to static types.
func init() {
	kernel.Register("chlo.top_k", lowerTopK)
	kernel.RegisterCustomCall("stablehlo.dynamic_top_k", lowerTopK)
}

func lowerTopK(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	dynamic := op.Name != "chlo.top_k"
	if (dynamic && len(op.Operands) != 2) || (!dynamic && len(op.Operands) != 1) || len(op.Results) != 2 {
		return nil, op.Errorf("expected operand%s and results (values, indices)", map[bool]string{true: ", k", false: ""}[dynamic])
	}
	in, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	vals, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	idx, err := lowerutil.TensorResult(op, 1)
	if err != nil {
		return nil, err
	}
	r := in.Rank()
	if r == 0 || vals.Rank() != r || !lowerutil.SameShape(vals.Shape, idx.Shape) || vals.Elem != in.Elem ||
		!(idx.Elem == ir.S32 || idx.Elem == ir.S64) || !lowerutil.SameShape(vals.Shape[:r-1], in.Shape[:r-1]) {
		return nil, op.Errorf("results %s, %s do not fit operand %s", vals, idx, in)
	}
	k := int(vals.Shape[r-1])
	n := int(in.Shape[r-1])
	if !dynamic {
		if ka, ok := op.Attrs.Int("k"); !ok || int(ka) != k {
			return nil, op.Errorf("attribute k does not match result dim %d", k)
		}
	}
	if k > n {
		return nil, op.Errorf("k = %d exceeds the last dim %d", k, n)
	}
	et := in.Elem
	var key sortKey
	switch {
	case et.IsFloat() && !et.IsSmallFloat():
		key = sortKey{total: true}
	case et.IsSigned():
		key = sortKey{signed: true}
	case et.IsUnsigned() || et == ir.Pred:
	default:
		return nil, op.Errorf("element type %s is not supported", et)
	}
	var kType ir.ElemType
	if dynamic {
		kt, err := lowerutil.TensorOperand(op, 1)
		if err != nil {
			return nil, err
		}
		if kt.Rank() != 0 || !kt.Elem.IsInteger() {
			return nil, op.Errorf("k operand %s is not an integer scalar", kt)
		}
		kType = kt.Elem
	}
	rows := int(in.NumElements()) / max(1, n)
	if n == 0 {
		rows = 0
	}
	es := et.ByteSize()
	return func(ins, outs [][]byte) error {
		if dynamic {
			if kv := lowerutil.ReadIndex(ins[1], kType, 0); kv != int64(k) {
				return op.Errorf("k = %d at run time, but the static result needs %d", kv, k)
			}
		}
		work := func(lo, hi int) {
			perm, tmp, keys := make([]int32, n), make([]int32, n), make([]uint64, n)
			less := func(a, b int32) bool { return keys[a] > keys[b] }
			for row := lo; row < hi; row++ {
				base := row * n
				for j := range n {
					perm[j] = int32(j)
					keys[j] = uintKey(ins[0], et, base+j, key)
				}
				mergeSort(perm, tmp, less)
				for j := range k {
					o := row*k + j
					copy(outs[0][o*es:(o+1)*es], ins[0][(base+int(perm[j]))*es:])
					if idx.Elem == ir.S32 {
						binary.LittleEndian.PutUint32(outs[1][4*o:], uint32(perm[j]))
					} else {
						binary.LittleEndian.PutUint64(outs[1][8*o:], uint64(perm[j]))
					}
				}
			}
		}
		if ctx == nil || rows < 2 || rows*n < 4096 {
			work(0, rows)
		} else {
			ctx.Parallel(rows, max(1, 4096/n), work)
		}
		return nil
	}, nil
}
