package compiler

import (
	"testing"
	"time"

	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// nopObserver makes runs take the generic path (every step observed).
type nopObserver struct{}

func (nopObserver) Step(*StepInfo, uint64, time.Time, time.Duration, [][]byte, [][]byte, bool) error {
	return nil
}

// countedModule: while i < limit { x = tanh(x*a + b) + f32(i);
// y = y - f32(i); i += step }, the limit and step constants or arguments;
// without readCounter x = tanh(x*a + b), y = y - x (the counter's add is
// then in place, else its result is swapped in).
func countedModule(limit, step int32, limitArg, stepArg, readCounter bool) *ir.Module {
	v16 := f32t(16)
	mb := newMod()
	mb.fn("main", "public", []ir.Type{i32t(), v16, v16, v16, i32t(), i32t()}, []ir.Type{i32t(), v16, v16},
		func(b *blkB, a []*ir.Value) []*ir.Value {
			lim, st := b.i32c(limit), b.i32c(step)
			if limitArg {
				lim = a[4]
			}
			if stepArg {
				st = a[5]
			}
			bcast := func(rb *blkB, i *ir.Value) *ir.Value {
				f := rb.v("stablehlo.convert", f32t(), nil, i)
				return rb.v("stablehlo.broadcast_in_dim", v16, ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}, f)
			}
			r := b.while([]*ir.Value{a[0], a[1], a[1]},
				func(rb *blkB, c []*ir.Value) *ir.Value { return rb.cmp("LT", c[0], lim) },
				func(rb *blkB, c []*ir.Value) []*ir.Value {
					i2 := rb.hlo("add", c[0], st)
					x := rb.v("stablehlo.tanh", v16, nil, rb.hlo("add", rb.hlo("multiply", c[1], a[2]), a[3]))
					y := rb.hlo("subtract", c[2], x)
					if readCounter {
						x = rb.hlo("add", x, bcast(rb, c[0]))
						y = rb.hlo("subtract", c[2], bcast(rb, c[0]))
					}
					return []*ir.Value{i2, x, y}
				})
			return r
		})
	return mb.m
}

func whileOf(t *testing.T, e *Executable) *whileInstr {
	for _, in := range e.plan.body {
		if w, ok := in.(*whileInstr); ok {
			return w
		}
	}
	t.Fatal("no while in the plan")
	return nil
}

// TestCountedLoopMatchesGeneric: a counted loop (the counter in a Go int32,
// the body a serial fusion run without per-step checks) gives the bits the
// generic loop gives (observers force it), from several starts and steps;
// loops whose bound or step is not a constant are not counted.
func TestCountedLoopMatchesGeneric(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.multiply", "stablehlo.tanh", "stablehlo.compare", "stablehlo.convert", "stablehlo.subtract")
	vals := func(k float32) []byte {
		v := make([]float32, 16)
		for i := range v {
			v[i] = (float32(i) - 7.5) * k
		}
		return f32s(v...)
	}
	for _, c := range []struct {
		limit, step       int32
		limitArg, stepArg bool
		readCounter       bool
		counted           bool
		starts            []int32
	}{
		{1000, 1, false, false, false, true, []int32{0, 999, 1000, 2000, -7}},
		{1000, 1, false, false, true, true, []int32{0, 999, 1000, 2000, -7}},
		{10, 3, false, false, true, true, []int32{0, 1, -5}},
		{10, 3, true, false, true, false, []int32{0, 4}},
		{10, 3, false, true, true, false, []int32{0, 4}},
	} {
		e := compile(t, countedModule(c.limit, c.step, c.limitArg, c.stepArg, c.readCounter))
		w := whileOf(t, e)
		require.Equal(t, c.counted, w.counted != nil, "%+v", c)
		if c.counted {
			require.True(t, w.tiny, "the body is scalar steps and serial fusions")
			require.Equal(t, !c.readCounter, w.counted.next == w.counted.ctr, "%+v: add in place", c)
		}
		for _, i0 := range c.starts {
			args := [][]byte{i32s(i0), vals(0.3), vals(0.11), vals(-0.05), i32s(c.limit), i32s(c.step)}
			got := run(t, e, args...)
			AddObserver(nopObserver{})
			want := run(t, e, args...)
			RemoveObserver(nopObserver{})
			require.Equal(t, want, got, "%+v from %d", c, i0)
			n := max(0, (c.limit-i0+c.step-1)/c.step)
			require.Equal(t, i32s(i0+n*c.step), got[0], "%+v from %d", c, i0)
		}
	}
}

// TestSerialBoundAcrossRuns: a serial fusion binds its operands to the
// frame's slots once; later runs of the pooled frame, with other argument
// buffers and values (and runs overlapping in goroutines, each with a frame
// of its own), read their own arguments: the observed path's bits.
func TestSerialBoundAcrossRuns(t *testing.T) {
	needOps(t, "stablehlo.add", "stablehlo.multiply", "stablehlo.tanh", "stablehlo.compare", "stablehlo.convert", "stablehlo.subtract")
	e := compile(t, countedModule(50, 1, false, false, true))
	require.NotNil(t, whileOf(t, e).counted)
	vals := func(k float32) []byte {
		v := make([]float32, 16)
		for i := range v {
			v[i] = (float32(i) - 7.5) * k
		}
		return f32s(v...)
	}
	argsOf := func(k float32) [][]byte {
		return [][]byte{i32s(int32(k * 10)), vals(k), vals(0.1 * k), vals(-0.05 / k), i32s(50), i32s(1)}
	}
	ks := []float32{0.3, -0.7, 1.9, 0.05}
	want := make([][][]byte, len(ks))
	AddObserver(nopObserver{})
	for i, k := range ks {
		want[i] = run(t, e, argsOf(k)...)
	}
	RemoveObserver(nopObserver{})
	for i, k := range ks {
		require.Equal(t, want[i], run(t, e, argsOf(k)...), "k=%v", k)
	}
	done := make(chan [][]byte, len(ks))
	for _, k := range ks {
		go func() {
			res, err := e.Run(argsOf(k), nil)
			if err != nil {
				done <- nil
				return
			}
			out := make([][]byte, len(res.Outputs))
			for i, o := range res.Outputs {
				out[i] = append([]byte(nil), o...)
				devmem.Free(o)
			}
			done <- out
		}()
	}
	got := map[string]bool{}
	for range ks {
		o := <-done
		require.NotNil(t, o)
		got[string(o[1])] = true
	}
	for i := range ks {
		require.True(t, got[string(want[i][1])], "k=%v", ks[i])
	}
}
