package compiler

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// TestNarrowCounters: jax.random's counter words (a u64 iota times one,
// shifted right by 32, converted to u32) become a u32 iota and zeros, and
// rewrites whose range condition fails (a shift smaller than the iota's
// bits, a convert to a type too narrow) are left as ops; every result is
// the ops' definition.
func TestNarrowCounters(t *testing.T) {
	const n = 20_000 // past the folding limit: the ops stay ops
	u64, u32, u8 := ir.Tensor(ir.U64, n), ir.Tensor(ir.U32, n), ir.Tensor(ir.U8, n)
	mb := newMod()
	splat := func(b *blkB, t *ir.TensorType, v uint64) *ir.Value {
		s := &ir.TensorType{Elem: t.Elem}
		data := make([]byte, t.Elem.ByteSize())
		for i := range data {
			data[i] = byte(v >> (8 * i))
		}
		return b.v("stablehlo.broadcast_in_dim", t, ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}, b.constant(s, data))
	}
	mb.fn("main", "public", nil, []ir.Type{u32, u32, u64, u8}, func(b *blkB, _ []*ir.Value) []*ir.Value {
		it := b.v("stablehlo.iota", u64, ir.Attrs{"iota_dimension": ir.IntAttr{Value: 0}})
		c := b.hlo("multiply", splat(b, u64, 1), it)
		hi := b.v("stablehlo.convert", u32, nil, b.hlo("shift_right_logical", c, splat(b, u64, 32)))
		lo := b.v("stablehlo.convert", u32, nil, c)
		part := b.hlo("shift_right_logical", c, splat(b, u64, 5)) // n > 2^5: not zero
		narrow := b.v("stablehlo.convert", u8, nil, c)            // n > 255: wraps
		return []*ir.Value{hi, lo, part, narrow}
	})
	e := compile(t, mb.m)
	plan := e.PlanText()
	require.NotContains(t, plan, "multiply", plan)
	require.Equal(t, 1, strings.Count(plan, "shift_right_logical"), plan)
	out := run(t, e)
	for i := range n {
		require.Equal(t, uint32(0), binary.LittleEndian.Uint32(out[0][4*i:]))
		require.Equal(t, uint32(i), binary.LittleEndian.Uint32(out[1][4*i:]))
		require.Equal(t, uint64(i>>5), binary.LittleEndian.Uint64(out[2][8*i:]))
		require.Equal(t, byte(i), out[3][i])
	}
}
