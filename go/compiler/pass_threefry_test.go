package compiler

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/reduce"
	"github.com/stretchr/testify/require"
)

// threefryMutation changes one detail of JAX's loop; the pass must then
// leave the loop alone.
type threefryMutation int

const (
	tfAsJAX         threefryMutation = iota
	tfRightRotate                    // shift_right_logical by c, shift_left by 32-c
	tfSub31                          // 31 - c instead of 32 - c
	tfNoSwap                         // the count sets are not swapped
	tfCounterUsed                    // the final counter is a result too
	tfWrongSlice                     // round 2 reads count 1
	tfSkipInjection                  // ks1 not added to x1
)

// threefryModule builds the loop as jax.random lowers threefry2x32 on CPU
// (jax._src.prng, rolled loops): keys k0, k1 and counters x, y of n
// elements in; the block function's two words out. With inner > 0 the
// counters are [n, inner] and the keys [n, 1], one per row, as under vmap.
func threefryModule(n, inner int64, mut threefryMutation) *ir.Module {
	u, s := ir.Tensor(ir.U32, n), ir.Tensor(ir.U32)
	kt := s
	if inner > 0 {
		u, kt = ir.Tensor(ir.U32, n, inner), ir.Tensor(ir.U32, n, 1)
	}
	i32 := ir.Tensor(ir.S32)
	u4 := ir.Tensor(ir.U32, 4)
	mb := newMod()
	outs := []ir.Type{u, u}
	if mut == tfCounterUsed {
		outs = append(outs, i32)
	}
	mb.fn("main", "public", []ir.Type{kt, kt, u, u}, outs, func(b *blkB, a []*ir.Value) []*ir.Value {
		k0, k1 := a[0], a[1]
		sc := func(v uint32) *ir.Value { return b.constant(s, u32le(v)) }
		bc := func(rb *blkB, v *ir.Value) *ir.Value {
			dims := ir.DenseI64Attr{}
			if t := v.StaticTensor(); t.Rank() == 2 {
				dims.Values = []int64{0, 1}
			}
			return rb.v("stablehlo.broadcast_in_dim", u, ir.Attrs{"broadcast_dimensions": dims}, v)
		}
		k2 := b.hlo("xor", b.hlo("xor", k0, k1), b.v("stablehlo.broadcast_in_dim", kt, ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}, sc(0x1BD11BDA)))
		x0 := b.hlo("add", a[2], bc(b, k0))
		x1 := b.hlo("add", a[3], bc(b, k1))
		rA := b.constant(u4, u32le(13, 15, 26, 6))
		rB := b.constant(u4, u32le(17, 29, 16, 24))
		res := b.while([]*ir.Value{b.i32c(0), b.i32c(0), x0, x1, k1, k2, k0, rA, rB},
			func(rb *blkB, c []*ir.Value) *ir.Value {
				return rb.v("stablehlo.compare", ir.Tensor(ir.Pred), ir.Attrs{
					"comparison_direction": ir.EnumAttr{Kind: "comparison_direction", Value: "LT"},
					"comparison_type":      ir.EnumAttr{Kind: "comparison_type", Value: "SIGNED"},
				}, c[0], rb.i32c(5))
			},
			func(rb *blkB, c []*ir.Value) []*ir.Value {
				j1 := rb.hlo("add", c[1], rb.i32c(1))
				rot := make([]*ir.Value, 4)
				for k := range rot {
					from := int64(k)
					if mut == tfWrongSlice && k == 2 {
						from = 1
					}
					sl := rb.v("stablehlo.slice", ir.Tensor(ir.U32, 1), ir.Attrs{
						"start_indices": ir.DenseI64Attr{Values: []int64{from}},
						"limit_indices": ir.DenseI64Attr{Values: []int64{from + 1}},
						"strides":       ir.DenseI64Attr{Values: []int64{1}},
					}, c[7])
					rot[k] = rb.v("stablehlo.reshape", s, nil, sl)
				}
				y0, y1 := c[2], c[3]
				for k := range 4 {
					y0 = rb.hlo("add", y0, y1)
					w := uint32(32)
					if mut == tfSub31 {
						w = 31
					}
					left, right := "shift_left", "shift_right_logical"
					if mut == tfRightRotate {
						left, right = right, left
					}
					l := rb.hlo(left, y1, bc(rb, rot[k]))
					r := rb.hlo(right, y1, bc(rb, rb.hlo("subtract", rb.constant(s, u32le(w)), rot[k])))
					y1 = rb.hlo("xor", y0, rb.hlo("or", l, r))
				}
				y0 = rb.hlo("add", y0, bc(rb, c[4]))
				if mut != tfSkipInjection {
					y1 = rb.hlo("add", y1, bc(rb, c[5]))
				}
				cnt := rb.v("stablehlo.convert", s, nil, rb.hlo("add", c[1], rb.i32c(1)))
				y1 = rb.hlo("add", y1, bc(rb, cnt))
				r7, r8 := c[8], c[7]
				if mut == tfNoSwap {
					r7, r8 = c[7], c[8]
				}
				return []*ir.Value{rb.hlo("add", c[0], rb.i32c(1)), j1, y0, y1, c[5], c[6], c[4], r7, r8}
			})
		out := []*ir.Value{res[2], res[3]}
		if mut == tfCounterUsed {
			out = append(out, res[1])
		}
		return out
	})
	return mb.m
}

func u32le(v ...uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

// threefryRef is Threefry-2x32 with 20 rounds (Salmon et al., SC 2011).
func threefryRef(x0, x1, k0, k1 uint32) (uint32, uint32) {
	ks := [3]uint32{k0, k1, k0 ^ k1 ^ 0x1BD11BDA}
	rot := [2][4]int{{13, 15, 26, 6}, {17, 29, 16, 24}}
	x0 += ks[0]
	x1 += ks[1]
	for i := range 5 {
		for _, r := range rot[i%2] {
			x0 += x1
			x1 = bits.RotateLeft32(x1, r) ^ x0
		}
		x0 += ks[(i+1)%3]
		x1 += ks[(i+2)%3] + uint32(i+1)
	}
	return x0, x1
}

// TestThreefryLoopBecomesKernel: JAX's loop turns into
// gojax.threefry_rounds and gives the block function's bits; each mutated
// loop is left to the generic plan.
func TestThreefryLoopBecomesKernel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int64{1, 7, 1000, 40_003} {
		for mut := tfAsJAX; mut <= tfSkipInjection; mut++ {
			e := compile(t, threefryModule(n, 0, mut))
			rolled := strings.Contains(e.PlanText(), reduce.ThreefryRoundsOp)
			require.Equal(t, mut == tfAsJAX, rolled, "n %d mutation %d\n%s", n, mut, e.PlanText())
			if mut != tfAsJAX {
				continue
			}
			k0, k1 := r.Uint32(), r.Uint32()
			x, y := make([]uint32, n), make([]uint32, n)
			for i := range x {
				x[i], y[i] = r.Uint32(), r.Uint32()
			}
			out := run(t, e, u32le(k0), u32le(k1), u32le(x...), u32le(y...))
			for i := range x {
				w0, w1 := threefryRef(x[i], y[i], k0, k1)
				g0, g1 := binary.LittleEndian.Uint32(out[0][4*i:]), binary.LittleEndian.Uint32(out[1][4*i:])
				require.Equal(t, [2]uint32{w0, w1}, [2]uint32{g0, g1}, "n %d element %d", n, i)
			}
		}
	}
}

// TestThreefryLoopPerSampleKeys: with one key per row (vmapped jax.random)
// the loop becomes gojax.threefry_rounds too, and each row's words are the
// block function's under that row's key.
func TestThreefryLoopPerSampleKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, inner := range []int64{1, 2, 3, 64} {
		const n = 700
		e := compile(t, threefryModule(n, inner, tfAsJAX))
		require.Contains(t, e.PlanText(), reduce.ThreefryRoundsOp)
		k0, k1 := make([]uint32, n), make([]uint32, n)
		for i := range k0 {
			k0[i], k1[i] = r.Uint32(), r.Uint32()
		}
		x, y := make([]uint32, n*inner), make([]uint32, n*inner)
		for i := range x {
			x[i], y[i] = r.Uint32(), r.Uint32()
		}
		out := run(t, e, u32le(k0...), u32le(k1...), u32le(x...), u32le(y...))
		for i := range x {
			row := i / int(inner)
			w0, w1 := threefryRef(x[i], y[i], k0[row], k1[row])
			g0, g1 := binary.LittleEndian.Uint32(out[0][4*i:]), binary.LittleEndian.Uint32(out[1][4*i:])
			require.Equal(t, [2]uint32{w0, w1}, [2]uint32{g0, g1}, "inner %d element %d", inner, i)
		}
	}
}
