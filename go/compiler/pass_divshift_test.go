package compiler

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// opCounts counts the ops of the optimized program by name, fusion members
// and loop bodies included.
func opCounts(e *Executable) map[string]int {
	n := map[string]int{}
	e.optimized.Main().Body.Walk(func(op *ir.Op) bool {
		n[op.Name]++
		return true
	})
	return n
}

func splatOf(b *blkB, t *ir.TensorType, v uint64) *ir.Value {
	s := &ir.TensorType{Elem: t.Elem}
	data := make([]byte, t.Elem.ByteSize())
	for i := range data {
		data[i] = byte(v >> (8 * i))
	}
	return b.v("stablehlo.broadcast_in_dim", t, ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}, b.constant(s, data))
}

func getUint(b []byte, i, es int) uint64 {
	var u uint64
	for k := es - 1; k >= 0; k-- {
		u = u<<8 | uint64(b[i*es+k])
	}
	return u
}

// TestUnsignedDivShifts: an unsigned divide by a splat power of two
// becomes a logical shift with the quotient's bits for every width and
// shift (all-ones, high-bit and random dividends); other divisors (3, 1,
// 0) and signed divides stay divides.
func TestUnsignedDivShifts(t *testing.T) {
	const n = 1000
	for _, et := range []ir.ElemType{ir.U8, ir.U16, ir.U32, ir.U64} {
		bits := et.Bits()
		for _, d := range []uint64{2, 4, 1 << (bits - 1), 3, 1, 0} {
			name := fmt.Sprintf("%v/%d", et, d)
			vt := ir.Tensor(et, n)
			mb := newMod()
			mb.fn("main", "public", []ir.Type{vt}, []ir.Type{vt}, func(b *blkB, a []*ir.Value) []*ir.Value {
				return []*ir.Value{b.hlo("divide", a[0], splatOf(b, vt, d))}
			})
			e := compile(t, mb.m)
			pow2 := d >= 2 && d&(d-1) == 0
			ops := opCounts(e)
			require.Equal(t, pow2, ops["stablehlo.shift_right_logical"] == 1, name)
			require.Equal(t, pow2, ops["stablehlo.divide"] == 0, name)
			es := et.ByteSize()
			x := make([]byte, n*es)
			for i := range n {
				v := uint64(i)*0x9E3779B97F4A7C15 ^ uint64(i)<<(bits-8)
				switch i {
				case 0:
					v = ^uint64(0)
				case 1:
					v = 1 << (bits - 1)
				}
				for k := range es {
					x[i*es+k] = byte(v >> (8 * k))
				}
			}
			out := run(t, e, x)[0]
			mask := ^uint64(0) >> (64 - bits)
			for i := range n {
				xi := getUint(x, i, es)
				want := mask // x / 0 is all ones
				if d != 0 {
					want = xi / d
				}
				require.Equal(t, want, getUint(out, i, es), "%s x=%#x", name, xi)
			}
		}
	}
	// A signed divide by 2 rounds toward zero: not a shift.
	vt := ir.Tensor(ir.S32, n)
	mb := newMod()
	mb.fn("main", "public", []ir.Type{vt}, []ir.Type{vt}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{b.hlo("divide", a[0], splatOf(b, vt, 2))}
	})
	e := compile(t, mb.m)
	require.Equal(t, 1, opCounts(e)["stablehlo.divide"])
}

// totalOrderRank orders f32 bit patterns as the spec's total order does,
// by cases: negative NaNs (larger payload first), negative numbers by
// magnitude, -0, +0, positive numbers, positive NaNs by payload.
func totalOrderRank(u uint32) (class int, key float64) {
	f := math.Float32frombits(u)
	neg := u>>31 == 1
	switch {
	case f != f && neg:
		return 0, -float64(u & 0x7fffffff)
	case f != f:
		return 5, float64(u & 0x7fffffff)
	case f == 0 && neg:
		return 2, 0
	case f == 0:
		return 3, 0
	case neg:
		return 1, float64(f)
	}
	return 4, float64(f)
}

func totalLess(a, b uint32) (less, equal bool) {
	ca, ka := totalOrderRank(a)
	cb, kb := totalOrderRank(b)
	if ca != cb {
		return ca < cb, false
	}
	return ka < kb, ka == kb
}

// TestTotalOrderKeys: a TOTALORDER compare of f32 arrays becomes a SIGNED
// compare of order keys with the spec's order for every direction, over
// NaNs of both signs and several payloads, ±0, ±Inf, subnormals and
// ordinary values against each other; small arrays and sort comparators
// keep the TOTALORDER compare.
func TestTotalOrderKeys(t *testing.T) {
	special := []uint32{0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fffffff, 0xffffffff,
		0x7f800000, 0xff800000, 0, 0x80000000, 1, 0x80000001, 0x007fffff, 0x807fffff,
		math.Float32bits(1), math.Float32bits(-1), math.Float32bits(1.5), math.Float32bits(-1.5),
		math.Float32bits(3e38), math.Float32bits(-3e38)}
	var xs, ys []uint32
	for _, a := range special {
		for _, b := range special {
			xs, ys = append(xs, a), append(ys, b)
		}
	}
	for i := range 300 {
		xs = append(xs, uint32(i)*0x9E3779B9)
		ys = append(ys, uint32(i)*0x85EBCA6B)
	}
	n := int64(len(xs))
	toBytes := func(v []uint32) []byte {
		b := make([]byte, 4*len(v))
		for i, u := range v {
			binary.LittleEndian.PutUint32(b[4*i:], u)
		}
		return b
	}
	for _, dir := range []string{"EQ", "NE", "LT", "LE", "GT", "GE"} {
		vt := f32t(n)
		mb := newMod()
		mb.fn("main", "public", []ir.Type{vt, vt}, []ir.Type{ir.Tensor(ir.Pred, n)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			return []*ir.Value{b.v("stablehlo.compare", ir.Tensor(ir.Pred, n), ir.Attrs{
				"comparison_direction": ir.EnumAttr{Kind: "comparison_direction", Value: dir},
				"compare_type":         ir.EnumAttr{Kind: "comparison_type", Value: "TOTALORDER"},
			}, a[0], a[1])}
		})
		e := compile(t, mb.m)
		require.Equal(t, 2, opCounts(e)["stablehlo.xor"], dir)
		out := run(t, e, toBytes(xs), toBytes(ys))[0]
		for i := range xs {
			lt, eq := totalLess(xs[i], ys[i])
			gt := !lt && !eq
			want := map[string]bool{"EQ": eq, "NE": !eq, "LT": lt, "LE": lt || eq, "GT": gt, "GE": gt || eq}[dir]
			require.Equal(t, want, out[i] != 0, "%s %#x %#x", dir, xs[i], ys[i])
		}
	}
	// Small arrays, and a sort's comparator, keep the compare.
	small := f32t(16)
	mb := newMod()
	mb.fn("main", "public", []ir.Type{small, small}, []ir.Type{ir.Tensor(ir.Pred, 16)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{b.v("stablehlo.compare", ir.Tensor(ir.Pred, 16), ir.Attrs{
			"comparison_direction": ir.EnumAttr{Kind: "comparison_direction", Value: "LT"},
			"compare_type":         ir.EnumAttr{Kind: "comparison_type", Value: "TOTALORDER"},
		}, a[0], a[1])}
	})
	e := compile(t, mb.m)
	require.Zero(t, opCounts(e)["stablehlo.xor"])
	big := f32t(1000)
	mb = newMod()
	mb.fn("main", "public", []ir.Type{big}, []ir.Type{big}, func(b *blkB, a []*ir.Value) []*ir.Value {
		op := b.op("stablehlo.sort", a, []ir.Type{big}, ir.Attrs{"dimension": ir.IntAttr{Value: 0}})
		op.AddRegion(b.region([]ir.Type{f32t(), f32t()}, func(rb *blkB, x []*ir.Value) []*ir.Value {
			return []*ir.Value{rb.v("stablehlo.compare", ir.Tensor(ir.Pred), ir.Attrs{
				"comparison_direction": ir.EnumAttr{Kind: "comparison_direction", Value: "LT"},
				"compare_type":         ir.EnumAttr{Kind: "comparison_type", Value: "TOTALORDER"},
			}, x[0], x[1])}
		}))
		return op.Results
	})
	e = compile(t, mb.m)
	require.Zero(t, opCounts(e)["stablehlo.xor"])
	vals := make([]float32, 1000)
	for i := range vals {
		vals[i] = float32((i*37)%101) - 50
	}
	got := toF32(run(t, e, f32s(vals...))[0])
	slices.Sort(vals)
	require.Equal(t, vals, got)
}
