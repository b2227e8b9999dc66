package compiler

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// sliceInstrs collects the direct slices of a plan (loop bodies included).
func sliceInstrs(body []instr) []*sliceInstr {
	var out []*sliceInstr
	for _, in := range body {
		switch in := in.(type) {
		case *sliceInstr:
			out = append(out, in)
		case *whileInstr:
			out = append(out, sliceInstrs(in.body)...)
		}
	}
	return out
}

// indexBytes encodes a start index of type et.
func indexBytes(et ir.ElemType, v int64) []byte {
	b := make([]byte, et.ByteSize())
	switch et.ByteSize() {
	case 8:
		binary.LittleEndian.PutUint64(b, uint64(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	default:
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
	}
	return b
}

func ramp(n int64, k float32) []byte {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i)*k - 3
	}
	return f32s(x...)
}

// runBoth runs e directly and observed (every step through its kernel).
func runBoth(t *testing.T, e *Executable, args ...[]byte) (got, want [][]byte) {
	t.Helper()
	got = run(t, e, args...)
	AddObserver(nopObserver{})
	defer RemoveObserver(nopObserver{})
	return got, run(t, e, args...)
}

// TestDirectDynamicSlice: a dynamic_slice whose window is one contiguous
// run copies it at the clamped start, the kernel's bytes for in-range,
// negative and too-large starts of every index type; windows that are not
// one run (or empty) keep the kernel step.
func TestDirectDynamicSlice(t *testing.T) {
	needOps(t, "stablehlo.dynamic_slice")
	for _, c := range []struct {
		shape, win []int64
		direct     bool
	}{
		{[]int64{200, 16}, []int64{1, 16}, true},
		{[]int64{7, 5}, []int64{3, 5}, true},
		{[]int64{7, 5}, []int64{1, 3}, true},
		{[]int64{3, 4, 5}, []int64{1, 2, 5}, true},
		{[]int64{3, 4, 5}, []int64{1, 1, 1}, true},
		{[]int64{1}, []int64{1}, true},
		{[]int64{9}, []int64{4}, true},
		{[]int64{7, 5}, []int64{2, 3}, false},
		{[]int64{7, 5}, []int64{0, 5}, false},
	} {
		for _, et := range []ir.ElemType{ir.S32, ir.S64, ir.U32, ir.S16} {
			name := fmt.Sprintf("%v/%v/%v", c.shape, c.win, et)
			in, out := f32t(c.shape...), f32t(c.win...)
			args := []ir.Type{in}
			for range c.shape {
				args = append(args, ir.Tensor(et))
			}
			mb := newMod()
			mb.fn("main", "public", args, []ir.Type{out}, func(b *blkB, a []*ir.Value) []*ir.Value {
				return []*ir.Value{b.v("stablehlo.dynamic_slice", out, ir.Attrs{"slice_sizes": ir.DenseI64Attr{Values: c.win}}, a...)}
			})
			e := compile(t, mb.m)
			direct := c.direct && et != ir.S16
			require.Len(t, sliceInstrs(e.plan.body), map[bool]int{true: 1}[direct], name)
			for _, start := range []int64{-5, 0, 1, 2, 100, 1 << 40} {
				vals := [][]byte{ramp(in.NumElements(), 0.5)}
				for d := range c.shape {
					s := start + int64(d)
					if et == ir.U32 && s < 0 {
						s = 1<<32 - 3 // a huge unsigned start clamps high
					}
					vals = append(vals, indexBytes(et, s))
				}
				got, want := runBoth(t, e, vals...)
				require.Equal(t, want, got, "%s start %d", name, start)
			}
		}
	}
}

// TestDirectDynamicUpdateSlice: the update copy in place or into a new
// result, the update read through a merged unit-dim broadcast (scan's
// stacked row) or not merged when the broadcast has another reader, equal
// the kernel steps for clamped starts.
func TestDirectDynamicUpdateSlice(t *testing.T) {
	needOps(t, "stablehlo.dynamic_update_slice", "stablehlo.broadcast_in_dim", "stablehlo.add")
	for _, c := range []struct {
		shape, win []int64
		bcast      bool // the update is broadcast_in_dim of a rank-1 row
		keepArr    bool // the operand is also returned: not in place
		twoUses    bool // the broadcast is also returned
		direct     bool
		merged     bool
	}{
		{[]int64{200, 16}, []int64{1, 16}, true, false, false, true, true},
		{[]int64{200, 16}, []int64{1, 16}, true, true, false, true, true},
		{[]int64{200, 16}, []int64{1, 16}, true, false, true, true, false},
		{[]int64{200, 16}, []int64{1, 16}, false, false, false, true, false},
		{[]int64{7, 5}, []int64{3, 5}, false, true, false, true, false},
		{[]int64{3, 4, 5}, []int64{1, 1, 5}, true, false, false, true, true},
		{[]int64{7, 5}, []int64{2, 3}, false, false, false, false, false},
		{[]int64{5}, []int64{5}, false, false, false, true, false},
	} {
		name := fmt.Sprintf("%+v", c)
		in, win := f32t(c.shape...), f32t(c.win...)
		row := win
		if c.bcast {
			row = f32t(win.NumElements())
		}
		args := []ir.Type{in, row}
		for range c.shape {
			args = append(args, i32t())
		}
		outs := []ir.Type{in}
		if c.keepArr {
			outs = append(outs, in)
		}
		if c.twoUses {
			outs = append(outs, win)
		}
		mb := newMod()
		mb.fn("main", "public", args, outs, func(b *blkB, a []*ir.Value) []*ir.Value {
			upd := a[1]
			if c.bcast {
				dims := []int64{int64(len(c.win) - 1)}
				upd = b.v("stablehlo.broadcast_in_dim", win, ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: dims}}, a[1])
			}
			ops := append([]*ir.Value{a[0], upd}, a[2:]...)
			r := []*ir.Value{b.v("stablehlo.dynamic_update_slice", in, nil, ops...)}
			if c.keepArr {
				r = append(r, a[0])
			}
			if c.twoUses {
				r = append(r, upd)
			}
			return r
		})
		e := compile(t, mb.m)
		ss := sliceInstrs(e.plan.body)
		if !c.direct {
			require.Empty(t, ss, name)
		} else {
			require.Len(t, ss, 1, name)
			require.Equal(t, c.merged, ss[0].relabel != nil, name)
		}
		for _, start := range []int64{-2, 0, 1, 3, 250} {
			vals := [][]byte{ramp(in.NumElements(), 0.25), ramp(win.NumElements(), -1.5)}
			for d := range c.shape {
				vals = append(vals, i32s(int32(start)+int32(d)))
			}
			got, want := runBoth(t, e, vals...)
			require.Equal(t, want, got, "%s start %d", name, start)
		}
	}
}

// TestDirectSlicesInScan: scan's forward loop (rows stacked by update
// slices of broadcast rows) and its reverse loop (rows read back by
// dynamic slices at limit-1-i, inline scalar steps rather than a fused
// chain) give the kernel steps' bits, counted.
func TestDirectSlicesInScan(t *testing.T) {
	needOps(t, "stablehlo.dynamic_update_slice", "stablehlo.dynamic_slice", "stablehlo.tanh", "stablehlo.multiply", "stablehlo.subtract")
	const n = 13
	v16, st := f32t(16), f32t(n, 16)
	row := f32t(1, 16)
	mb := newMod()
	mb.fn("main", "public", []ir.Type{v16, v16, st}, []ir.Type{v16, st}, func(b *blkB, a []*ir.Value) []*ir.Value {
		zero, lim, one := b.i32c(0), b.i32c(n), b.i32c(1)
		fw := b.while([]*ir.Value{zero, a[0], a[2]},
			func(rb *blkB, c []*ir.Value) *ir.Value { return rb.cmp("LT", c[0], lim) },
			func(rb *blkB, c []*ir.Value) []*ir.Value {
				x := rb.v("stablehlo.tanh", v16, nil, rb.hlo("multiply", c[1], a[1]))
				r := rb.v("stablehlo.broadcast_in_dim", row, ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: []int64{1}}}, c[1])
				s := rb.v("stablehlo.dynamic_update_slice", st, nil, c[2], r, c[0], zero)
				return []*ir.Value{rb.hlo("add", c[0], one), x, s}
			})
		bw := b.while([]*ir.Value{zero, a[1], fw[2]},
			func(rb *blkB, c []*ir.Value) *ir.Value { return rb.cmp("LT", c[0], lim) },
			func(rb *blkB, c []*ir.Value) []*ir.Value {
				k := rb.hlo("subtract", rb.hlo("subtract", lim, c[0]), one)
				r := rb.v("stablehlo.dynamic_slice", row, ir.Attrs{"slice_sizes": ir.DenseI64Attr{Values: []int64{1, 16}}}, c[2], k, zero)
				x := rb.hlo("multiply", c[1], rb.v("stablehlo.reshape", v16, nil, r))
				return []*ir.Value{rb.hlo("add", c[0], one), x, c[2]}
			})
		return []*ir.Value{bw[1], fw[2]}
	})
	e := compile(t, mb.m)
	require.Len(t, sliceInstrs(e.plan.body), 2)
	for _, in := range e.plan.body {
		if w, ok := in.(*whileInstr); ok {
			require.NotNil(t, w.counted)
			for _, b := range w.body {
				// limit-1-i runs as inline steps, not a one-element fusion.
				k, ok := b.(*kernelInstr)
				require.False(t, ok && k.op.Name == fusionOp && k.outs[0].size == 4, "one-element fusion in a loop body")
			}
		}
	}
	got, want := runBoth(t, e, ramp(16, 0.125), ramp(16, -0.0625), ramp(n*16, 0.01))
	require.Equal(t, want, got)
}

// TestDirectSliceConstantIndexes: start indices that are constants (in
// range, negative, past the end) are clamped once at planning; the
// varying ones still per run; the kernel steps' bytes either way.
func TestDirectSliceConstantIndexes(t *testing.T) {
	needOps(t, "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice")
	in, win := f32t(6, 4, 8), f32t(1, 2, 8)
	for _, c := range []int32{-3, 0, 1, 2, 9} {
		mb := newMod()
		mb.fn("main", "public", []ir.Type{in, i32t(), win}, []ir.Type{win, in}, func(b *blkB, a []*ir.Value) []*ir.Value {
			k := b.i32c(c)
			ds := b.v("stablehlo.dynamic_slice", win, ir.Attrs{"slice_sizes": ir.DenseI64Attr{Values: []int64{1, 2, 8}}}, a[0], a[1], k, b.i32c(c+1))
			us := b.v("stablehlo.dynamic_update_slice", in, nil, a[0], a[2], k, a[1], b.i32c(-c))
			return []*ir.Value{ds, us}
		})
		e := compile(t, mb.m)
		ss := sliceInstrs(e.plan.body)
		require.Len(t, ss, 2)
		for _, s := range ss {
			require.Len(t, s.idx, 1, "the constant indices are folded")
		}
		for _, i := range []int32{-1, 0, 3, 5, 40} {
			got, want := runBoth(t, e, ramp(in.NumElements(), 0.5), i32s(i), ramp(win.NumElements(), -2))
			require.Equal(t, want, got, "const %d index %d", c, i)
		}
	}
}
