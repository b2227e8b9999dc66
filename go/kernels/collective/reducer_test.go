package collective

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/gojax/gojax/go/shardy"
)

// f32Body is a reduction region applying one binary f32 op to its two
// scalar arguments.
func f32Body(name string) *ir.Region {
	s := ir.Tensor(ir.F32)
	b := ir.NewBlock(s, s)
	r := b.Append(ir.NewOp(name, []*ir.Value{b.Args[0], b.Args[1]}, []ir.Type{s}, nil))
	b.Append(ir.NewOp("stablehlo.return", []*ir.Value{r.Results[0]}, nil, nil))
	return ir.NewRegion(b)
}

// f32Callable runs an f32 op per element, as a compiled region would.
type f32Callable func(a, b float32) float32

func (f f32Callable) Call(ins, outs [][]byte) error {
	a := math.Float32frombits(binary.LittleEndian.Uint32(ins[0]))
	b := math.Float32frombits(binary.LittleEndian.Uint32(ins[1]))
	binary.LittleEndian.PutUint32(outs[0], math.Float32bits(f(a, b)))
	return nil
}

// regionProcess is a grid process whose regions compile to fn.
type regionProcess struct {
	gridProcess
	fn kernel.Callable
}

func (p regionProcess) CompileRegion(*ir.Region) (kernel.Callable, error) { return p.fn, nil }

// allParts names partitions 0..n-1 as one group (flattened ids).
func allParts(n int) ir.Attrs {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}
	return ir.Attrs{"replica_groups": &ir.ElementsAttr{Type: ir.Tensor(ir.S64, 1, int64(n)), Data: i64s(ids...)},
		"channel_id": ir.IntAttr{Value: 1}, "use_global_device_ids": ir.UnitAttr{}}
}

// runParts lowers op for n partitions of one replica and runs them
// concurrently, partition i reducing ins[i].
func runParts(t *testing.T, n int, op *ir.Op, fn kernel.Callable, ins [][]byte) [][]byte {
	t.Helper()
	meet := kernel.NewRendezvous(n)
	defer RegisterGrid(meet, Grid{Replicas: 1, Partitions: n})()
	l, ok := kernel.Lookup(op.Name)
	require.True(t, ok)
	outs := make([][]byte, n)
	errs := make(chan error, n)
	for i := range n {
		step, err := l(regionProcess{gridProcess{&kernel.Partition{Self: i, Count: n, Meet: meet}}, fn}, op)
		require.NoError(t, err)
		outs[i] = make([]byte, op.Results[0].Tensor().ByteSize())
		go func() { errs <- step([][]byte{ins[i]}, [][]byte{outs[i]}) }()
	}
	for range n {
		require.NoError(t, <-errs)
	}
	return outs
}

func randF32s(rng *rand.Rand, n int) []byte {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * 1e3)
	}
	return f32s(v...)
}

// foldF32 folds the contributions in group order with f, elementwise.
func foldF32(parts [][]byte, f func(a, b float32) float32) []byte {
	out := append([]byte(nil), parts[0]...)
	for _, p := range parts[1:] {
		for e := 0; e < len(out); e += 4 {
			a := math.Float32frombits(binary.LittleEndian.Uint32(out[e:]))
			b := math.Float32frombits(binary.LittleEndian.Uint32(p[e:]))
			binary.LittleEndian.PutUint32(out[e:], math.Float32bits(f(a, b)))
		}
	}
	return out
}

// all_reduce over partitions gives every partition the fold in group order,
// bit for bit, whether the region has a typed loop (add) or is called per
// element (subtract, whose result shows the order), below and above the
// size from which the partitions split the work, with shares that do not
// divide evenly.
func TestAllReduceGroupOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		body string
		f    func(a, b float32) float32
	}{
		{"stablehlo.add", func(a, b float32) float32 { return a + b }},
		{"stablehlo.subtract", func(a, b float32) float32 { return a - b }},
	}
	for _, n := range []int{2, 3, 4} {
		for _, elems := range []int{5, splitMin/4 + 7} {
			for _, c := range cases {
				t.Run(fmt.Sprintf("%s/%d/%d", c.body, n, elems), func(t *testing.T) {
					ty := []ir.Type{ir.Tensor(ir.F32, int64(elems))}
					op := mkOp("stablehlo.all_reduce", ty, ty, allParts(n))
					op.AddRegion(f32Body(c.body))
					ins := make([][]byte, n)
					for i := range ins {
						ins[i] = randF32s(rng, elems)
					}
					want := foldF32(ins, c.f)
					for i, got := range runParts(t, n, op, f32Callable(c.f), ins) {
						require.Equal(t, want, got, "partition %d", i)
					}
				})
			}
		}
	}
}

// reduce_scatter gives each partition its block of the fold in group order,
// for a block that is one run of bytes (dimension 0) and one that is not.
func TestReduceScatterGroupOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sub := func(a, b float32) float32 { return a - b }
	for _, body := range []string{"stablehlo.add", "stablehlo.subtract"} {
		f := sub
		if body == "stablehlo.add" {
			f = func(a, b float32) float32 { return a + b }
		}
		for dim := range 2 {
			const n = 3
			in := []int64{6, 9}
			outShape := append([]int64(nil), in...)
			outShape[dim] /= n
			op := mkOp("stablehlo.reduce_scatter", []ir.Type{ir.Tensor(ir.F32, in...)},
				[]ir.Type{ir.Tensor(ir.F32, outShape...)}, allParts(n))
			op.Attrs["scatter_dimension"] = ir.IntAttr{Value: int64(dim)}
			op.AddRegion(f32Body(body))
			ins := make([][]byte, n)
			for i := range ins {
				ins[i] = randF32s(rng, 54)
			}
			full := foldF32(ins, f)
			got := runParts(t, n, op, f32Callable(f), ins)
			for p := range n {
				for r := range outShape[0] {
					for c := range outShape[1] {
						gr, gc := r, c
						if dim == 0 {
							gr += int64(p) * outShape[0]
						} else {
							gc += int64(p) * outShape[1]
						}
						g := (gr*in[1] + gc) * 4
						o := (r*outShape[1] + c) * 4
						require.Equal(t, full[g:g+4], got[p][o:o+4], "%s dim %d partition %d (%d,%d)", body, dim, p, r, c)
					}
				}
			}
		}
	}
}

// BenchmarkAllReduce measures an f32 sum over n partitions in one process.
func BenchmarkAllReduce(b *testing.B) {
	for _, n := range []int{2, 4, 8} {
		for _, size := range []int{1 << 10, 1 << 20, 16 << 20} {
			b.Run(fmt.Sprintf("n=%d/bytes=%d", n, size), func(b *testing.B) {
				benchAllReduce(b, n, size)
			})
		}
	}
}

func benchAllReduce(b *testing.B, n, size int) {
	meet := kernel.NewRendezvous(n)
	defer RegisterGrid(meet, Grid{Replicas: 1, Partitions: n})()
	ty := []ir.Type{ir.Tensor(ir.F32, int64(size/4))}
	op := mkOp("stablehlo.all_reduce", ty, ty, allParts(n))
	op.AddRegion(f32Body("stablehlo.add"))
	l, _ := kernel.Lookup(op.Name)
	add := f32Callable(func(a, b float32) float32 { return a + b })
	steps := make([]kernel.Step, n)
	ins, outs := make([][]byte, n), make([][]byte, n)
	for i := range n {
		s, err := l(regionProcess{gridProcess{&kernel.Partition{Self: i, Count: n, Meet: meet}}, add}, op)
		if err != nil {
			b.Fatal(err)
		}
		steps[i], ins[i], outs[i] = s, make([]byte, size), make([]byte, size)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	errs := make(chan error, n)
	for i := range n {
		go func() {
			for range b.N {
				if err := steps[i]([][]byte{ins[i]}, [][]byte{outs[i]}); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
}

// copyBetween moves a block between two arrays as a cut into a dense block
// and a join from it would (shardy.CopyBlock twice).
func TestCopyBetween(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		rank := 1 + rng.IntN(4)
		blk, sdims, ddims, so, do := make([]int64, rank), make([]int64, rank), make([]int64, rank), make([]int64, rank), make([]int64, rank)
		for d := range rank {
			blk[d] = int64(rng.IntN(4))
			if rng.IntN(3) > 0 {
				blk[d]++
			}
			sdims[d], ddims[d] = blk[d]+int64(rng.IntN(3)), blk[d]+int64(rng.IntN(3))
			so[d], do[d] = rng.Int64N(sdims[d]-blk[d]+1), rng.Int64N(ddims[d]-blk[d]+1)
		}
		es := int64(1 + rng.IntN(4))
		src := make([]byte, lowerutil.Numel(sdims)*es)
		for i := range src {
			src[i] = byte(rng.Uint32())
		}
		got := make([]byte, lowerutil.Numel(ddims)*es)
		for i := range got {
			got[i] = byte(rng.Uint32())
		}
		want := make([]byte, len(got))
		copy(want, got)
		tmp := make([]byte, lowerutil.Numel(blk)*es)
		shardy.CopyBlock(src, tmp, sdims, blk, so, es, false)
		shardy.CopyBlock(want, tmp, ddims, blk, do, es, true)
		copyBetween(got, src, ddims, sdims, blk, do, so, es)
		require.Equal(t, want, got, "block %v from %v at %v to %v at %v", blk, sdims, so, ddims, do)
	}
}
