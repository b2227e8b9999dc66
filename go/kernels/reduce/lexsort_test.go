package reduce

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// lexComparator builds JAX's lexicographic comparator over the first
// len(keys) operands (most significant first), each key LT or GT under ct,
// plus a trailing position operand; swap puts the or's and the and's
// operands the other way round.
func lexComparator(types []ir.ElemType, dirs, cts []string, swap bool) *ir.Region {
	var argTypes []ir.Type
	for _, et := range types {
		argTypes = append(argTypes, scalarT(et), scalarT(et))
	}
	argTypes = append(argTypes, scalarT(ir.S32), scalarT(ir.S32))
	rb := regionBuilder{ir.NewBlock(argTypes...)}
	a := rb.b.Args
	last := len(types) - 1
	p := rb.cmp(dirs[last], cts[last], a[2*last], a[2*last+1])
	for i := last - 1; i >= 0; i-- {
		lt := rb.cmp(dirs[i], cts[i], a[2*i], a[2*i+1])
		eq := rb.cmp("EQ", cts[i], a[2*i], a[2*i+1])
		if swap {
			p = rb.bin("stablehlo.or", rb.bin("stablehlo.and", p, eq), lt)
		} else {
			p = rb.bin("stablehlo.or", lt, rb.bin("stablehlo.and", eq, p))
		}
	}
	return rb.ret(p)
}

// TestLexSortMatchesComparator checks the multi-key radix path against the
// comparator run op by op, bit for bit, positions included.
func TestLexSortMatchesComparator(t *testing.T) {
	rng := rand.New(rand.NewSource(15))
	for ci, c := range []struct {
		types     []ir.ElemType
		dirs, cts []string
		fast      bool
	}{
		{[]ir.ElemType{ir.S32, ir.S32}, []string{"LT", "LT"}, []string{"SIGNED", "SIGNED"}, true},
		{[]ir.ElemType{ir.U8, ir.F32, ir.S64}, []string{"GT", "LT", "LT"}, []string{"UNSIGNED", "TOTALORDER", "SIGNED"}, true},
		{[]ir.ElemType{ir.F64, ir.BF16}, []string{"LT", "GT"}, []string{"TOTALORDER", "TOTALORDER"}, true},
		{[]ir.ElemType{ir.F32, ir.S32}, []string{"LT", "LT"}, []string{"FLOAT", "SIGNED"}, false}, // FLOAT equality: not key equality
	} {
		for _, swap := range []bool{false, true} {
			for _, length := range []int64{1, 40, 300, 3000} {
				t.Run(fmt.Sprint(ci, swap, length), func(t *testing.T) {
					var ts []*ir.TensorType
					var ins [][]byte
					for _, et := range c.types {
						ts = append(ts, ir.Tensor(et, 2, length))
						ins = append(ins, randomElems(rng, et, int(2*length), true))
					}
					ts = append(ts, ir.Tensor(ir.S32, 2, length))
					pos := make([]int32, 2*length)
					for i := range pos {
						pos[i] = int32(i)
					}
					ins = append(ins, i32s(pos...))
					fast := sortOp(1, lexComparator(c.types, c.dirs, c.cts, swap), ts...)
					slow := sortOp(1, withUnusedOp(lexComparator(c.types, c.dirs, c.cts, swap)), ts...)
					fastCtx, slowCtx := &fakeCtx{chunk: 1}, &fakeCtx{chunk: 1 << 20}
					got := runOp(t, fastCtx, fast, ins...)
					want := runOp(t, slowCtx, slow, ins...)
					if c.fast {
						require.Zero(t, fastCtx.calls, "the comparator was not recognised")
					}
					for i := range want {
						require.Equal(t, want[i], got[i], "result %d", i)
					}
				})
			}
		}
	}
}
