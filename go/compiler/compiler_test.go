package compiler

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

func compile(t *testing.T, m *ir.Module) *Executable {
	t.Helper()
	e, err := CompileModule(m, Options{})
	require.NoError(t, err)
	return e
}

func run(t *testing.T, e *Executable, args ...[]byte) [][]byte {
	t.Helper()
	res, err := e.Run(args, nil)
	require.NoError(t, err)
	for k, a := range res.AliasOf {
		require.Equal(t, -1, a, "output %d", k)
	}
	out := make([][]byte, len(res.Outputs))
	for i, o := range res.Outputs {
		out[i] = append([]byte(nil), o...)
		devmem.Free(o)
	}
	return out
}

func TestConstantsAndArgs(t *testing.T) {
	tests := []struct {
		name string
		body func(b *blkB, a []*ir.Value) []*ir.Value
		want [][]float32
	}{
		{"return constant", func(b *blkB, a []*ir.Value) []*ir.Value {
			return []*ir.Value{b.f32c([]int64{2}, 7, 8)}
		}, [][]float32{{7, 8}}},
		{"return argument", func(b *blkB, a []*ir.Value) []*ir.Value {
			return []*ir.Value{a[0]}
		}, [][]float32{{1, 2}}},
		{"same value twice", func(b *blkB, a []*ir.Value) []*ir.Value {
			s := b.add(a[0], a[0])
			return []*ir.Value{s, s}
		}, [][]float32{{2, 4}, {2, 4}}},
		{"constant operand", func(b *blkB, a []*ir.Value) []*ir.Value {
			return []*ir.Value{b.add(a[0], b.f32c([]int64{2}, 10, 20))}
		}, [][]float32{{11, 22}}},
		{"chain", func(b *blkB, a []*ir.Value) []*ir.Value {
			x := b.add(a[0], a[0]) // 2,4
			y := b.mul(x, x)       // 4,16
			z := b.add(y, a[0])    // 5,18
			return []*ir.Value{z, x}
		}, [][]float32{{5, 18}, {2, 4}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mb := newMod()
			outs := make([]ir.Type, len(tc.want))
			for i := range outs {
				outs[i] = f32t(2)
			}
			mb.fn("main", "public", []ir.Type{f32t(2)}, outs, tc.body)
			e := compile(t, mb.m)
			in := f32s(1, 2)
			got := run(t, e, in)
			require.Equal(t, f32s(1, 2), in, "input must not be written")
			for i, w := range tc.want {
				require.Equal(t, w, toF32(got[i]), "output %d", i)
			}
		})
	}
}

// whileModule: (i, acc) = (0, x); while i < n { i += 1; acc = acc * 2 + x }.
func whileModule(captureOuter bool) *ir.Module {
	mb := newMod()
	mb.fn("main", "public", []ir.Type{i32t(), f32t(3)}, []ir.Type{i32t(), f32t(3)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		n := a[0]
		zero := b.i32c(0)
		two := b.f32c([]int64{3}, 2, 2, 2)
		r := b.while([]*ir.Value{zero, a[1], a[1]},
			func(rb *blkB, c []*ir.Value) *ir.Value { return rb.lt(c[0], n) },
			func(rb *blkB, c []*ir.Value) []*ir.Value {
				i := rb.add(c[0], rb.i32c(1))
				x := c[2]
				if captureOuter {
					x = a[1]
				}
				acc := rb.add(rb.mul(c[1], two), x)
				return []*ir.Value{i, acc, c[2]}
			})
		return []*ir.Value{r[0], r[1]}
	})
	return mb.m
}

func TestWhile(t *testing.T) {
	for _, capture := range []bool{false, true} {
		t.Run(fmt.Sprint("capture=", capture), func(t *testing.T) {
			e := compile(t, whileModule(capture))
			for _, n := range []int32{0, 1, 5} {
				got := run(t, e, i32s(n), f32s(1, 2, 3))
				want := []float32{1, 2, 3}
				for range n {
					for j := range want {
						want[j] = want[j]*2 + float32(j+1)
					}
				}
				require.Equal(t, []int32{n}, toI32(got[0]))
				require.Equal(t, want, toF32(got[1]))
			}
		})
	}
}

func TestWhilePermutedCarry(t *testing.T) {
	// Body returns its arguments swapped and one constant: staging copies.
	mb := newMod()
	mb.fn("main", "public", []ir.Type{i32t(), f32t(2), f32t(2)}, []ir.Type{f32t(2), f32t(2), f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		r := b.while([]*ir.Value{b.i32c(0), a[1], a[2], a[1]},
			func(rb *blkB, c []*ir.Value) *ir.Value { return rb.lt(c[0], a[0]) },
			func(rb *blkB, c []*ir.Value) []*ir.Value {
				return []*ir.Value{rb.add(c[0], rb.i32c(1)), c[2], c[1], rb.f32c([]int64{2}, 9, 9)}
			})
		return []*ir.Value{r[1], r[2], r[3]}
	})
	e := compile(t, mb.m)
	got := run(t, e, i32s(3), f32s(1, 2), f32s(3, 4))
	require.Equal(t, []float32{3, 4}, toF32(got[0]))
	require.Equal(t, []float32{1, 2}, toF32(got[1]))
	require.Equal(t, []float32{9, 9}, toF32(got[2]))
	got = run(t, e, i32s(0), f32s(1, 2), f32s(3, 4))
	require.Equal(t, []float32{1, 2}, toF32(got[0]))
	require.Equal(t, []float32{1, 2}, toF32(got[2]))
}

func TestNestedWhile(t *testing.T) {
	// for i < n { for j < m { acc += 1 } }: acc = n*m.
	mb := newMod()
	mb.fn("main", "public", []ir.Type{i32t(), i32t()}, []ir.Type{i32t()}, func(b *blkB, a []*ir.Value) []*ir.Value {
		r := b.while([]*ir.Value{b.i32c(0), b.i32c(0)},
			func(rb *blkB, c []*ir.Value) *ir.Value { return rb.lt(c[0], a[0]) },
			func(rb *blkB, c []*ir.Value) []*ir.Value {
				in := rb.while([]*ir.Value{rb.i32c(0), c[1]},
					func(ib *blkB, d []*ir.Value) *ir.Value { return ib.lt(d[0], a[1]) },
					func(ib *blkB, d []*ir.Value) []*ir.Value {
						return []*ir.Value{ib.add(d[0], ib.i32c(1)), ib.add(d[1], ib.i32c(1))}
					})
				return []*ir.Value{rb.add(c[0], rb.i32c(1)), in[1]}
			})
		return []*ir.Value{r[1]}
	})
	e := compile(t, mb.m)
	for _, nm := range [][2]int32{{0, 3}, {3, 0}, {4, 5}} {
		got := run(t, e, i32s(nm[0]), i32s(nm[1]))
		require.Equal(t, []int32{nm[0] * nm[1]}, toI32(got[0]))
	}
}

func TestCase(t *testing.T) {
	mb := newMod()
	mb.fn("main", "public", []ir.Type{i32t(), f32t(2)}, []ir.Type{f32t(2), f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		k := b.f32c([]int64{2}, 100, 200)
		r := b.caseOp(a[0], []ir.Type{f32t(2), f32t(2)},
			func(rb *blkB) []*ir.Value { return []*ir.Value{rb.add(a[1], a[1]), a[1]} },      // computed, captured arg
			func(rb *blkB) []*ir.Value { s := rb.mul(a[1], a[1]); return []*ir.Value{s, s} }, // same value twice
			func(rb *blkB) []*ir.Value { return []*ir.Value{k, rb.add(k, a[1])} },            // outer constant
		)
		return []*ir.Value{r[0], b.add(r[1], r[0])}
	})
	e := compile(t, mb.m)
	x := f32s(3, 4)
	cases := []struct {
		idx    int32
		r0, r1 []float32
	}{
		{0, []float32{6, 8}, []float32{9, 12}},
		{1, []float32{9, 16}, []float32{18, 32}},
		{2, []float32{100, 200}, []float32{203, 404}},
		{7, []float32{100, 200}, []float32{203, 404}},  // out of range → last branch
		{-1, []float32{100, 200}, []float32{203, 404}}, // negative → last branch
	}
	for _, c := range cases {
		got := run(t, e, i32s(c.idx), x)
		require.Equal(t, c.r0, toF32(got[0]), "index %d", c.idx)
		require.Equal(t, c.r1, toF32(got[1]), "index %d", c.idx)
	}
}

func TestIf(t *testing.T) {
	mb := newMod()
	mb.fn("main", "public", []ir.Type{i32t(), i32t()}, []ir.Type{i32t()}, func(b *blkB, a []*ir.Value) []*ir.Value {
		op := b.op("stablehlo.if", []*ir.Value{b.lt(a[0], a[1])}, []ir.Type{i32t()}, nil)
		op.AddRegion(b.region(nil, func(rb *blkB, _ []*ir.Value) []*ir.Value { return []*ir.Value{a[0]} }))
		op.AddRegion(b.region(nil, func(rb *blkB, _ []*ir.Value) []*ir.Value { return []*ir.Value{a[1]} }))
		return op.Results
	})
	e := compile(t, mb.m)
	require.Equal(t, []int32{2}, toI32(run(t, e, i32s(2), i32s(5))[0]))
	require.Equal(t, []int32{5}, toI32(run(t, e, i32s(9), i32s(5))[0]))
}

func TestNestedCallsAndComposite(t *testing.T) {
	mb := newMod()
	mb.fn("sq", "private", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{b.mul(a[0], a[0])}
	})
	mb.fn("sqplus", "private", []ir.Type{f32t(2), f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		s := b.call("sq", []ir.Type{f32t(2)}, a[0])
		return []*ir.Value{b.add(s[0], a[1])}
	})
	mb.fn("main", "public", []ir.Type{f32t(2)}, []ir.Type{f32t(2), f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		x := b.call("sqplus", []ir.Type{f32t(2)}, a[0], a[0]) // x*x + x
		y := b.call("sqplus", []ir.Type{f32t(2)}, x[0], a[0]) // (x*x+x)^2 + x
		c := b.op("stablehlo.composite", []*ir.Value{a[0]}, []ir.Type{f32t(2)}, ir.Attrs{
			"name":          ir.StringAttr{Value: "my.square"},
			"decomposition": ir.SymbolRefAttr{Name: "sq"},
		})
		return []*ir.Value{y[0], c.Result()}
	})
	e := compile(t, mb.m)
	got := run(t, e, f32s(1, 2))
	require.Equal(t, []float32{5, 38}, toF32(got[0]))
	require.Equal(t, []float32{1, 4}, toF32(got[1]))
	require.Len(t, e.Module().Funcs, 3, "the caller's module is not modified")
}

func TestRecursionRejected(t *testing.T) {
	mb := newMod()
	mb.fn("f", "private", []ir.Type{f32t()}, []ir.Type{f32t()}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return b.call("f", []ir.Type{f32t()}, a[0])
	})
	mb.fn("main", "public", []ir.Type{f32t()}, []ir.Type{f32t()}, func(b *blkB, a []*ir.Value) []*ir.Value {
		return b.call("f", []ir.Type{f32t()}, a[0])
	})
	_, err := CompileModule(mb.m, Options{})
	require.ErrorContains(t, err, "recursive call to @f")
}

func TestBufferReuse(t *testing.T) {
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(256)}, []ir.Type{f32t(256)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		x := a[0]
		for range 20 {
			x = b.add(x, a[0])
		}
		return []*ir.Value{b.mul(x, x)}
	})
	e := compile(t, mb.m)
	st := e.Stats()
	require.Equal(t, 20, st.Values, "the last result is computed in the output buffer")
	require.LessOrEqual(t, st.Slots, 2, "a chain needs two alternating buffers")
	require.Equal(t, int64(2*256*4), st.ScratchBytes)
	in := make([]float32, 256)
	for i := range in {
		in[i] = float32(i)
	}
	got := toF32(run(t, e, f32s(in...))[0])
	for i, v := range got {
		w := 21 * float32(i)
		require.Equal(t, w*w, v, "element %d", i)
	}
}

func TestDonation(t *testing.T) {
	build := func(readLater, dependent bool) *ir.Module {
		mb := newMod()
		f := mb.fn("main", "public", []ir.Type{f32t(2), f32t(2)}, []ir.Type{f32t(2), f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			t := b.add(a[0], a[1])
			s := b.mul(t, t) // written after a0's last read: may go into a0
			if dependent {
				return []*ir.Value{s, b.mul(s, a[0])} // a0 read after s, and needs s: no reordering helps
			}
			if readLater {
				return []*ir.Value{s, b.mul(a[0], a[0])} // a0 read after s in program order: s is delayed
			}
			return []*ir.Value{s, b.add(t, a[1])} // reads a1 while writing: not in place for a custom call
		})
		f.ArgAttrs[0]["tf.aliasing_output"] = ir.IntAttr{Value: 0, Type: ir.S32}
		f.ArgAttrs[1]["jax.buffer_donor"] = ir.BoolAttr{Value: true}
		return mb.m
	}
	t.Run("reused", func(t *testing.T) {
		e := compile(t, build(false, false))
		require.Equal(t, []int{0, -1}, e.OutputAliases())
		a0, err := devmem.Alloc(8)
		require.NoError(t, err)
		copy(a0, f32s(1, 2))
		a1 := f32s(3, 4)
		res, err := e.Run([][]byte{a0, a1}, []bool{true, true})
		require.NoError(t, err)
		require.Equal(t, []int{0, -1}, res.AliasOf)
		require.Equal(t, devmem.Pointer(a0), devmem.Pointer(res.Outputs[0]))
		require.Equal(t, []float32{16, 36}, toF32(res.Outputs[0]))
		require.Equal(t, []float32{7, 10}, toF32(res.Outputs[1]))
		devmem.Free(res.Outputs[0])
		devmem.Free(res.Outputs[1])
	})
	t.Run("not donated", func(t *testing.T) {
		e := compile(t, build(false, false))
		a0 := f32s(1, 2)
		res, err := e.Run([][]byte{a0, f32s(3, 4)}, []bool{false, false})
		require.NoError(t, err)
		require.Equal(t, []int{-1, -1}, res.AliasOf)
		require.Equal(t, f32s(1, 2), a0)
		require.Equal(t, []float32{16, 36}, toF32(res.Outputs[0]))
		devmem.Free(res.Outputs[0])
		devmem.Free(res.Outputs[1])
	})
	t.Run("reordered", func(t *testing.T) {
		e := compile(t, build(true, false))
		require.Equal(t, []int{0, 1}, e.OutputAliases())
		a0, a1 := f32s(1, 2), f32s(3, 4)
		res, err := e.Run([][]byte{a0, a1}, []bool{true, true})
		require.NoError(t, err)
		require.Equal(t, []int{0, 1}, res.AliasOf)
		require.Equal(t, []float32{16, 36}, toF32(a0))
		require.Equal(t, []float32{1, 4}, toF32(a1))
	})
	t.Run("unsafe pairing dropped", func(t *testing.T) {
		e := compile(t, build(false, true))
		// a0 cannot take output 0; the buffer donor a1 (last read by the
		// first step) can.
		require.Equal(t, []int{1, -1}, e.OutputAliases())
		a0, a1 := f32s(1, 2), f32s(3, 4)
		res, err := e.Run([][]byte{a0, a1}, []bool{true, true})
		require.NoError(t, err)
		require.Equal(t, []int{1, -1}, res.AliasOf)
		require.Equal(t, []float32{16, 36}, toF32(res.Outputs[0]))
		require.Equal(t, []float32{16, 72}, toF32(res.Outputs[1]))
		require.Equal(t, []float32{16, 36}, toF32(a1), "output 0 lives in donated a1")
		require.Equal(t, f32s(1, 2), a0)
		devmem.Free(res.Outputs[1])
	})
	t.Run("identity", func(t *testing.T) {
		mb := newMod()
		f := mb.fn("main", "public", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			return []*ir.Value{a[0]}
		})
		f.ArgAttrs[0]["tf.aliasing_output"] = ir.IntAttr{Value: 0, Type: ir.S32}
		e := compile(t, mb.m)
		a0 := f32s(5, 6)
		res, err := e.Run([][]byte{a0}, []bool{true})
		require.NoError(t, err)
		require.Equal(t, []int{0}, res.AliasOf)
		require.Equal(t, []float32{5, 6}, toF32(res.Outputs[0]))
	})
}

func TestConcurrentRuns(t *testing.T) {
	e := compile(t, whileModule(false))
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range 20 {
				n := int32((g + it) % 6)
				x := float32(g)
				res, err := e.Run([][]byte{i32s(n), f32s(x, x, x)}, nil)
				if err != nil {
					errs <- err
					return
				}
				want := x
				for range n {
					want = want*2 + x
				}
				if got := toF32(res.Outputs[1]); got[0] != want || got[2] != want {
					errs <- fmt.Errorf("goroutine %d n=%d: got %v want %v", g, n, got, want)
				}
				for _, o := range res.Outputs {
					devmem.Free(o)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestErrorsNameOpAndLocation(t *testing.T) {
	t.Run("runtime", func(t *testing.T) {
		mb := newMod()
		mb.fn("main", "public", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			return []*ir.Value{b.cc("gojax.test.fail", f32t(2), b.add(a[0], a[0]))}
		})
		e := compile(t, mb.m)
		_, err := e.Run([][]byte{f32s(1, 2)}, nil)
		require.EqualError(t, err, "stablehlo.custom_call at stablehlo.custom_call (main.py:2:1): boom")
	})
	t.Run("panic", func(t *testing.T) {
		mb := newMod()
		mb.fn("main", "public", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			return []*ir.Value{b.cc("gojax.test.panic", f32t(2), a[0])}
		})
		e := compile(t, mb.m)
		_, err := e.Run([][]byte{f32s(1, 2)}, nil)
		require.ErrorContains(t, err, "internal error: kernel bug")
	})
	t.Run("unknown custom call", func(t *testing.T) {
		mb := newMod()
		mb.fn("main", "public", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			return []*ir.Value{b.cc("no_such_target", f32t(2), a[0])}
		})
		_, err := CompileModule(mb.m, Options{})
		require.EqualError(t, err, `stablehlo.custom_call at stablehlo.custom_call (main.py:1:1): unknown custom call target "no_such_target"`)
	})
	t.Run("lowering error", func(t *testing.T) {
		mb := newMod()
		mb.fn("main", "public", []ir.Type{f32t(2)}, []ir.Type{f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			return []*ir.Value{b.cc("gojax.test.badlower", f32t(2), a[0])}
		})
		_, err := CompileModule(mb.m, Options{})
		require.EqualError(t, err, "stablehlo.custom_call at stablehlo.custom_call (main.py:1:1): cannot lower this shape")
	})
	t.Run("bad arguments", func(t *testing.T) {
		e := compile(t, whileModule(false))
		_, err := e.Run([][]byte{i32s(1)}, nil)
		require.ErrorContains(t, err, "takes 2 arguments, got 1")
		_, err = e.Run([][]byte{i32s(1), f32s(1)}, nil)
		require.ErrorContains(t, err, "argument 1 has 4 bytes")
	})
}

func TestFingerprintIgnoresLocations(t *testing.T) {
	a := compile(t, whileModule(false))
	m := whileModule(false)
	for _, f := range m.Funcs {
		f.Body.Walk(func(op *ir.Op) bool {
			op.Loc = &ir.Location{File: "elsewhere.py", Line: 99}
			return true
		})
	}
	b := compile(t, m)
	require.Equal(t, a.Fingerprint(), b.Fingerprint())
	require.Len(t, a.Fingerprint(), 64)
	c := compile(t, whileModule(true))
	require.NotEqual(t, a.Fingerprint(), c.Fingerprint())

	// Constants with different data differ.
	mk := func(v float32) string {
		mb := newMod()
		mb.fn("main", "public", nil, []ir.Type{f32t(1)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			return []*ir.Value{b.f32c([]int64{1}, v)}
		})
		return compile(t, mb.m).Fingerprint()
	}
	require.NotEqual(t, mk(1), mk(2))
}

func TestMetadata(t *testing.T) {
	m := whileModule(false)
	m.Attrs["sym_name"] = ir.StringAttr{Value: "jit_loop"}
	m.Attrs["mhlo.num_partitions"] = ir.IntAttr{Value: 1, Type: ir.S32}
	m.Attrs["mhlo.num_replicas"] = ir.IntAttr{Value: 2, Type: ir.S32}
	e := compile(t, m)
	require.Equal(t, "jit_loop", e.Name())
	require.Equal(t, 2, e.NumReplicas())
	require.Equal(t, 1, e.NumPartitions())
	require.Equal(t, "tensor<i32>", e.InputTypes()[0].String())
	require.Equal(t, "tensor<3xf32>", e.OutputTypes()[1].String())
}

func TestParallelAndInPlaceCustomCall(t *testing.T) {
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(1000)}, []ir.Type{f32t(1000), f32t(1000)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		d := b.cc("gojax.test.pdouble", f32t(1000), a[0])
		inc := b.op("stablehlo.custom_call", []*ir.Value{a[0]}, []ir.Type{f32t(1000)}, ir.Attrs{
			"call_target_name":       ir.StringAttr{Value: "gojax.test.incinplace"},
			"output_operand_aliases": ir.ArrayAttr{Elems: []ir.Attr{ir.OutputOperandAliasAttr{OperandIndex: 0}}},
		})
		return []*ir.Value{d, inc.Result()}
	})
	e := compile(t, mb.m)
	in := make([]float32, 1000)
	for i := range in {
		in[i] = float32(i)
	}
	got := run(t, e, f32s(in...))
	d, inc := toF32(got[0]), toF32(got[1])
	for i := range in {
		require.Equal(t, 2*in[i], d[i])
		require.Equal(t, in[i]+1, inc[i])
	}
}

func TestTokensAndPassThrough(t *testing.T) {
	mb := newMod()
	tok := &ir.TokenType{}
	mb.fn("main", "public", []ir.Type{tok, f32t(2)}, []ir.Type{tok, f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		t2 := b.v("stablehlo.after_all", tok, nil, a[0])
		x := b.v("sdy.sharding_constraint", f32t(2), ir.Attrs{"sharding": ir.OpaqueAttr{Dialect: "sdy", Text: "<@mesh, [{}]>"}}, a[1])
		y := b.op("stablehlo.optimization_barrier", []*ir.Value{x, t2}, []ir.Type{f32t(2), tok}, nil)
		z := b.v("builtin.unrealized_conversion_cast", f32t(2), nil, y.Results[0])
		return []*ir.Value{y.Results[1], b.add(z, z)}
	})
	e := compile(t, mb.m)
	got := run(t, e, nil, f32s(1, 2))
	require.Empty(t, got[0])
	require.Equal(t, []float32{2, 4}, toF32(got[1]))
}

func TestWhileInitComputedInCarry(t *testing.T) {
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(2)}, []ir.Type{f32t(2), f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		start := b.add(a[0], a[0])  // only feeds the loop: computed in the carried buffer
		shared := b.mul(a[0], a[0]) // also read inside the body: must be copied
		r := b.while([]*ir.Value{b.i32c(0), start, shared},
			func(rb *blkB, c []*ir.Value) *ir.Value { return rb.lt(c[0], rb.i32c(2)) },
			func(rb *blkB, c []*ir.Value) []*ir.Value {
				return []*ir.Value{rb.add(c[0], rb.i32c(1)), rb.add(c[1], shared), rb.add(c[2], c[2])}
			})
		return []*ir.Value{r[1], r[2]}
	})
	e := compile(t, mb.m)
	w := e.plan.body[len(e.plan.body)-1].(*whileInstr)
	require.Len(t, w.init, 2, "the counter constant and the shared value are copied; start is not")
	got := run(t, e, f32s(1, 2))
	require.Equal(t, []float32{4, 12}, toF32(got[0])) // 2x + 2x²: (2+1+1, 4+4+4)
	require.Equal(t, []float32{4, 16}, toF32(got[1]))
}

func TestLoopInvariantCarryReadsArgument(t *testing.T) {
	mb := newMod()
	f := mb.fn("main", "public", []ir.Type{f32t(2), f32t(2), i32t()}, []ir.Type{f32t(2), f32t(2)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		w := b.while([]*ir.Value{b.i32c(0), a[0]},
			func(rb *blkB, c []*ir.Value) *ir.Value { return rb.lt(c[0], a[2]) },
			func(rb *blkB, c []*ir.Value) []*ir.Value { return []*ir.Value{rb.add(c[0], rb.i32c(1)), c[1]} })
		s := b.add(a[1], a[1]) // may go into a0's buffer only if nothing reads a0 later
		u := b.add(w[1], w[1]) // reads a0 through the loop's result
		return []*ir.Value{s, u}
	})
	f.ArgAttrs[0]["tf.aliasing_output"] = ir.IntAttr{Value: 0, Type: ir.S32}
	e := compile(t, mb.m)
	w := e.plan.body[0].(*whileInstr)
	require.Len(t, w.init, 1, "the invariant argument is not copied into the loop")
	require.Equal(t, []int{-1, -1}, e.OutputAliases(), "a0 is read after s would overwrite it")
	a0 := f32s(1, 2)
	res, err := e.Run([][]byte{a0, f32s(5, 6), i32s(3)}, []bool{true, false, false})
	require.NoError(t, err)
	require.Equal(t, []float32{10, 12}, toF32(res.Outputs[0]))
	require.Equal(t, []float32{2, 4}, toF32(res.Outputs[1]))
	freeAll(res)
}

func TestScratchSlotsAligned(t *testing.T) {
	e := compile(t, whileModule(false))
	f, err := e.plan.getFrame()
	require.NoError(t, err)
	defer e.plan.putFrame(f)
	n := 0
	for s, c := range e.plan.caps {
		if c > 0 {
			require.Zero(t, uintptr(devmem.Pointer(f.bufs[s]))%64, "slot %d", s)
			require.Equal(t, c, cap(f.bufs[s]), "slot %d", s)
			n++
		}
	}
	require.Equal(t, e.Stats().Slots, n)
}

// A frame's arena over heldArenaMax comes from devmem for each run: counted
// while the run holds it (so the memory limit sees it), given back after.
func TestLargeArenaIsTakenPerRun(t *testing.T) {
	const n = 1 << 16
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(n)}, []ir.Type{f32t(n)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		t1 := b.add(a[0], a[0])
		t2 := b.mul(t1, t1)
		return []*ir.Value{b.add(t2, a[0])}
	})
	e := compile(t, mb.m)
	require.Greater(t, e.plan.arenaBytes, heldArenaMax)
	x := make([]float32, n)
	for i := range x {
		x[i] = 1.5
	}
	in := f32s(x...)
	check := func() {
		for _, v := range toF32(run(t, e, in)[0]) {
			require.Equal(t, float32(10.5), v) // (1.5+1.5)² + 1.5
		}
	}
	before := devmem.ReadStats().BytesInUse
	devmem.ResetPeak()
	check()
	check() // the second run binds a fresh arena to the pooled frame
	require.Equal(t, before, devmem.ReadStats().BytesInUse, "the arena went back after the run")
	require.GreaterOrEqual(t, devmem.ReadStats().PeakBytes-before, int64(e.plan.arenaBytes))

	prev := devmem.Limit()
	defer devmem.SetLimit(prev)
	devmem.SetLimit(before + int64(e.plan.arenaBytes)/2)
	_, err := e.Run([][]byte{in}, nil)
	var oom *devmem.OutOfMemoryError
	require.ErrorAs(t, err, &oom)
	require.Contains(t, err.Error(), "the program's temporaries need")
	devmem.SetLimit(-1)
	check()
}
