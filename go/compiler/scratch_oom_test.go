package compiler

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// Test kernels that take scratch 64 times their output's size through
// kernel.Make: in the step, in each parallel chunk, or at Lower (a table
// the executable keeps).
const scratchFactor = 64

func init() {
	copyStep := func(ins, outs [][]byte) { copy(outs[0], ins[0]) }
	kernel.RegisterCustomCall("gojax.test.scratchstep", func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
		return func(ins, outs [][]byte) error {
			s := kernel.Make[byte](scratchFactor * len(outs[0]))
			s[len(s)-1] = 1
			copyStep(ins, outs)
			return nil
		}, nil
	})
	kernel.RegisterCustomCall("gojax.test.scratchchunk", func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
		return func(ins, outs [][]byte) error {
			ctx.Parallel(4, 1, func(lo, hi int) {
				s := kernel.Make[byte](scratchFactor / 4 * len(outs[0]))
				s[0] = 1
			})
			copyStep(ins, outs)
			return nil
		}, nil
	})
	kernel.RegisterCustomCall("gojax.test.scratchlower", func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
		table := kernel.Make[byte](scratchFactor * op.Results[0].Tensor().ByteSize())
		return func(ins, outs [][]byte) error {
			table[0] = 1
			copyStep(ins, outs)
			return nil
		}, nil
	})
}

// Scratch past the memory limit fails the run (or the compile, for a
// Lower-time table) with an out-of-memory error naming the op; the process
// goes on and the same executable runs once there is room.
func TestScratchPastTheLimitIsAnError(t *testing.T) {
	const n = 1 << 12 // 16 KiB of f32: scratch is 1 MiB
	prev := devmem.Limit()
	defer devmem.SetLimit(prev)
	for _, target := range []string{"gojax.test.scratchstep", "gojax.test.scratchchunk", "gojax.test.scratchlower"} {
		t.Run(target, func(t *testing.T) {
			mb := newMod()
			mb.fn("main", "public", []ir.Type{f32t(n)}, []ir.Type{f32t(n)}, func(b *blkB, a []*ir.Value) []*ir.Value {
				return []*ir.Value{b.cc(target, f32t(n), a[0])}
			})
			in := f32s(make([]float32, n)...)
			devmem.SetLimit(devmem.ReadStats().BytesInUse + 256<<10)
			var err error
			if target == "gojax.test.scratchlower" {
				_, err = CompileModule(mb.m, Options{})
			} else {
				e := compile(t, mb.m)
				_, err = e.Run([][]byte{in}, nil)
				devmem.SetLimit(-1)
				run(t, e, in)
			}
			var oom *devmem.OutOfMemoryError
			require.ErrorAs(t, err, &oom)
			require.ErrorContains(t, err, "stablehlo.custom_call at ")
			require.ErrorContains(t, err, "scratch memory of")
			devmem.SetLimit(-1)
			run(t, compile(t, mb.m), in)
		})
	}
}
