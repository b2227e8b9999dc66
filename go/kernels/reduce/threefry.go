package reduce

import (
	"encoding/binary"
	"math/bits"
	"sync"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// ThreefryRoundsOp is the while loop JAX lowers threefry2x32 to on CPU
// (jax.random's bits), as the compiler recognises it: each iteration runs
// four Threefry rounds on (x0, x1), rotating x1 by the next of four counts
// and adding x0 to it, then injects keys: x0 += ks[i%3], x1 +=
// ks[(i+1)%3] + uint32(counter+i+1); the two sets of four counts alternate
// between iterations. Operands x0, x1 (u32 arrays of one shape) and the key
// schedule ks0, ks1, ks2: u32 scalars, or arrays of one shape that is x's
// with trailing dimensions of size 1 (jax.random under vmap: one key per
// sample, each read by the consecutive elements it spans); attributes
// rotations (the two sets, eight counts), iterations and counter; results
// x0, x1 after the loop.
// The loop as ops made one pass over the arrays per op and iteration; the
// kernel keeps each element's pair in registers for all the rounds.
const ThreefryRoundsOp = "gojax.threefry_rounds"

func init() {
	kernel.RegisterOp(ThreefryRoundsOp, lowerThreefryRounds, kernel.Traits{Cost: threefryCost})
}

// tfMaxIters bounds the iterations the vector loop takes its table for;
// JAX's loop has 5.
const tfMaxIters = 16

// tfParams is what the vector loop reads per iteration: four rotation
// counts and the two key words to add (layout known to threefry_amd64.s).
type tfParams struct {
	iters int
	tab   [tfMaxIters][6]uint32
}

// tfVec runs the rounds on the first n elements (a multiple of
// tfVecBlock, the elements it takes per step) with vector instructions, or
// is nil; threefry_amd64.go selects it.
var (
	tfVec      func(y0, y1, x0, x1 *uint32, n int, p *tfParams)
	tfLanes    func(y0, y1, x0, x1 *uint32, n int, p *tfLaneParams, off int)
	tfVecBlock = 1
)

// tfLaneParams is tfParams for keys that vary by element: per iteration
// the four counts, the counter word, and the key arrays to add to x0 and
// x1 (from element 0; layout known to threefry_amd64.s).
type tfLaneParams struct {
	iters int
	tab   [tfMaxIters]tfLaneIter
}

type tfLaneIter struct {
	rot    [4]uint32
	cnt, _ uint32
	ka, kb *uint32
}

func lowerThreefryRounds(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 5 || len(op.Results) != 2 {
		return nil, op.Errorf("expected operands (x0, x1, ks0, ks1, ks2) and 2 results")
	}
	x, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	var keyT *ir.TensorType
	for i := range 5 {
		t, err := lowerutil.TensorOperand(op, i)
		if err != nil {
			return nil, err
		}
		if t.Elem != ir.U32 || (i < 2 && !t.Equal(x)) || (i >= 2 && !ThreefryKeyShaped(t, x)) || (i > 2 && !t.Equal(keyT)) {
			return nil, op.Errorf("operand %d is %s: x0, x1 must be u32 arrays of one shape and the keys u32 scalars or x's shape with trailing 1s", i, t)
		}
		if i == 2 {
			keyT = t
		}
	}
	for i := range 2 {
		t, err := lowerutil.TensorResult(op, i)
		if err != nil {
			return nil, err
		}
		if !t.Equal(x) {
			return nil, op.Errorf("result %d is %s, operands are %s", i, t, x)
		}
	}
	rot, _ := op.Attrs["rotations"].(ir.DenseI64Attr)
	iters, ok1 := op.Attrs.Int("iterations")
	counter, ok2 := op.Attrs.Int("counter")
	if len(rot.Values) != 8 || !ok1 || !ok2 || iters < 0 {
		return nil, op.Errorf("needs rotations (8 counts), iterations >= 0 and counter attributes")
	}
	var r [8]uint32
	vec := iters <= tfMaxIters
	for i, v := range rot.Values {
		r[i] = uint32(v)
		// The vector rotate takes counts mod 32; shifts by more than 32
		// give 0 in StableHLO, which only the Go loop reproduces.
		vec = vec && v >= 0 && v <= 32
	}
	n := int(x.NumElements())
	if nk := int(keyT.NumElements()); nk > 1 {
		return threefryLaneStep(ctx, n, n/nk, &r, int(iters), int32(counter), vec), nil
	}
	return func(ins, outs [][]byte) error {
		var ks [3]uint32
		for i := range ks {
			ks[i] = binary.LittleEndian.Uint32(ins[2+i])
		}
		var p tfParams
		p.iters = int(iters)
		inj := make([][2]uint32, iters)
		for it := range inj {
			inj[it] = [2]uint32{ks[it%3], ks[(it+1)%3] + uint32(int32(counter)+int32(it)+1)}
			if vec {
				s := r[(it%2)*4:]
				p.tab[it] = [6]uint32{s[0], s[1], s[2], s[3], inj[it][0], inj[it][1]}
			}
		}
		x0, x1 := byteview.As[uint32](ins[0]), byteview.As[uint32](ins[1])
		y0, y1 := byteview.As[uint32](outs[0]), byteview.As[uint32](outs[1])
		parallelFor(ctx, n, func(lo, hi int) {
			if vec && tfVec != nil && iters > 0 {
				block := tfVecBlock
				m := (hi - lo) / block * block
				if m > 0 {
					tfVec(&y0[lo], &y1[lo], &x0[lo], &x1[lo], m, &p)
					lo += m
				}
			}
			threefryRoundsGo(y0[lo:hi], y1[lo:hi], x0[lo:hi], x1[lo:hi], &r, inj)
		})
		return nil
	}, nil
}

// ThreefryKeyShaped reports a scalar key, or one whose shape is x's with
// some trailing dimensions 1 (each key word then covers a run of elements):
// the keys gojax.threefry_rounds takes.
func ThreefryKeyShaped(k, x *ir.TensorType) bool {
	if k.Rank() == 0 {
		return true
	}
	if k.Rank() != x.Rank() {
		return false
	}
	d := 0
	for d < k.Rank() && k.Shape[d] == x.Shape[d] {
		d++
	}
	for ; d < k.Rank(); d++ {
		if k.Shape[d] != 1 {
			return false
		}
	}
	return true
}

// threefryLaneStep runs the rounds with a key word per run of inner
// elements: the keys are widened to one word per element (when inner > 1)
// and added lane by lane.
func threefryLaneStep(ctx kernel.Context, n, inner int, r *[8]uint32, iters int, counter int32, vec bool) kernel.Step {
	wide := sync.Pool{New: func() any { s := kernel.Make[uint32](3 * n); return &s }}
	return func(ins, outs [][]byte) error {
		var ks [3][]uint32
		var buf *[]uint32
		if inner > 1 {
			buf = wide.Get().(*[]uint32)
			defer wide.Put(buf)
		}
		for i := range ks {
			k := byteview.As[uint32](ins[2+i])
			if inner == 1 {
				ks[i] = k
				continue
			}
			w := (*buf)[i*n : (i+1)*n]
			for j, v := range k {
				for q := range inner {
					w[j*inner+q] = v
				}
			}
			ks[i] = w
		}
		x0, x1 := byteview.As[uint32](ins[0]), byteview.As[uint32](ins[1])
		y0, y1 := byteview.As[uint32](outs[0]), byteview.As[uint32](outs[1])
		var p tfLaneParams
		if vec && n > 0 {
			p.iters = iters
			for it := range iters {
				s := r[(it%2)*4:]
				p.tab[it] = tfLaneIter{rot: [4]uint32{s[0], s[1], s[2], s[3]}, cnt: uint32(counter + int32(it) + 1),
					ka: &ks[it%3][0], kb: &ks[(it+1)%3][0]}
			}
		}
		parallelFor(ctx, n, func(lo, hi int) {
			if vec && tfLanes != nil && iters > 0 {
				block := tfVecBlock
				m := (hi - lo) / block * block
				if m > 0 {
					tfLanes(&y0[lo], &y1[lo], &x0[lo], &x1[lo], m, &p, lo)
					lo += m
				}
			}
			for i := lo; i < hi; i++ {
				a, b := x0[i], x1[i]
				for it := range iters {
					a, b = fourRounds(a, b, r[(it&1)*4:(it&1)*4+4])
					a += ks[it%3][i]
					b += ks[(it+1)%3][i] + uint32(counter+int32(it)+1)
				}
				y0[i], y1[i] = a, b
			}
		})
		return nil
	}
}

// fourRounds is one iteration's rounds; rotl follows StableHLO's shifts.
func fourRounds(a, b uint32, s []uint32) (uint32, uint32) {
	for _, c := range s {
		a += b
		b = (b<<c | b>>(32-c)) ^ a
	}
	return a, b
}

// threefryRoundsGo is the loop's definition, element by element. With
// counts of at most 32 a rotation is the shifts' result (a count of 32
// gives v either way); larger counts shift everything out in StableHLO.
func threefryRoundsGo(y0, y1, x0, x1 []uint32, r *[8]uint32, inj [][2]uint32) {
	plain := true
	for _, c := range r {
		plain = plain && c <= 32
	}
	for i := range y0 {
		a, b := x0[i], x1[i]
		for it, k := range inj {
			s := r[(it&1)*4 : (it&1)*4+4]
			if plain {
				a += b
				b = bits.RotateLeft32(b, int(s[0])) ^ a
				a += b
				b = bits.RotateLeft32(b, int(s[1])) ^ a
				a += b
				b = bits.RotateLeft32(b, int(s[2])) ^ a
				a += b
				b = bits.RotateLeft32(b, int(s[3])) ^ a
			} else {
				for _, c := range s {
					a += b
					b = (b<<c | b>>(32-c)) ^ a
				}
			}
			a += k[0]
			b += k[1]
		}
		y0[i], y1[i] = a, b
	}
}

func threefryCost(op *ir.Op) kernel.Work {
	it, _ := op.Attrs.Int("iterations")
	n := kernel.Elements(op.Results[0])
	return kernel.Work{Flops: n * it * 14}
}
