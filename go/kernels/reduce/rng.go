package reduce

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/bits"
	"sync/atomic"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/floatconv"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func init() {
	// Each random element counts as a transcendental, XLA's estimate.
	kernel.RegisterOp("stablehlo.rng_bit_generator", lowerRngBitGenerator, kernel.Traits{Cost: rngCost})
	kernel.RegisterOp("stablehlo.rng", lowerRng, kernel.Traits{Cost: rngCost})
	kernel.RegisterCustomCall("stablehlo.dynamic_rng_bit_generator", lowerDynamicRngBitGenerator)
}

// lowerDynamicRngBitGenerator handles the custom call jax.export emits for
// shape-polymorphic rng_bit_generator, once its result types are static:
// operands (state, output_shape); output_shape is checked at run time.
func lowerDynamicRngBitGenerator(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 2 || len(op.Results) != 2 {
		return nil, op.Errorf("expected (state, output_shape) and 2 results")
	}
	out, err := lowerutil.TensorResult(op, 1)
	if err != nil {
		return nil, err
	}
	sh, err := lowerutil.TensorOperand(op, 1)
	if err != nil {
		return nil, err
	}
	if sh.Rank() != 1 || int(sh.Shape[0]) != out.Rank() || !sh.Elem.IsInteger() {
		return nil, op.Errorf("output_shape %s does not match result %s", sh, out)
	}
	view := &ir.Op{Name: op.Name, Operands: op.Operands[:1], Results: op.Results, Attrs: op.Attrs, Loc: op.Loc}
	st, err := lowerRngBitGenerator(ctx, view)
	if err != nil {
		return nil, err
	}
	return func(ins, outs [][]byte) error {
		for i, d := range out.Shape {
			if v := lowerutil.ReadIndex(ins[1], sh.Elem, i); v != d {
				return op.Errorf("output_shape[%d] = %d, but the static result needs %d", i, v, d)
			}
		}
		return st(ins[:1], outs)
	}, nil
}

// threeFry2x32 is the 20-round Threefry-2x32 block function as XLA's
// prng library computes it (Salmon et al., SC 2011).
func threeFry2x32(x0, x1, k0, k1 uint32) (uint32, uint32) {
	k2 := 0x1BD11BDA ^ k0 ^ k1
	ks := [3]uint32{k0, k1, k2}
	rot := [8]uint{13, 15, 26, 6, 17, 29, 16, 24}
	x0 += k0
	x1 += k1
	for i := 1; i <= 5; i++ {
		r := rot[0:4]
		if i%2 == 0 {
			r = rot[4:8]
		}
		for _, d := range r {
			x0 += x1
			x1 = bits.RotateLeft32(x1, int(d))
			x1 ^= x0
		}
		x0 += ks[i%3]
		x1 += ks[(i+1)%3] + uint32(i)
	}
	return x0, x1
}

const (
	philoxW32A   = 0x9E3779B9
	philoxW32B   = 0xBB67AE85
	philoxM4x32A = 0xD2511F53
	philoxM4x32B = 0xCD9E8D57
)

// philox4x32 is the 10-round Philox-4x32 block function.
func philox4x32(x [4]uint32, k0, k1 uint32) [4]uint32 {
	for range 10 {
		hi0, lo0 := bits.Mul32(x[0], philoxM4x32A)
		hi1, lo1 := bits.Mul32(x[2], philoxM4x32B)
		x = [4]uint32{hi1 ^ x[1] ^ k0, lo1, hi0 ^ x[3] ^ k1, lo0}
		k0 += philoxW32A
		k1 += philoxW32B
	}
	return x
}

// philoxBlock returns the 4 words for counter (lo, hi) + i with 128-bit carry.
func philoxBlock(lo, hi, i uint64, key uint64) [4]uint32 {
	l, c := bits.Add64(lo, i, 0)
	h := hi + c
	return philox4x32([4]uint32{uint32(l), uint32(l >> 32), uint32(h), uint32(h >> 32)}, uint32(key), uint32(key>>32))
}

// bitSink stores the generated bits for element i in the output type.
type bitSink func(out []byte, i int, v uint64)

func sinkFor(et ir.ElemType) (bitSink, int, bool) {
	switch {
	case et == ir.Pred || et.IsComplex() || et == ir.Invalid:
		return nil, 0, false
	case et.Bits() == 64:
		return func(out []byte, i int, v uint64) { binary.LittleEndian.PutUint64(out[8*i:], v) }, 64, true
	case et.Bits() == 32:
		return func(out []byte, i int, v uint64) { binary.LittleEndian.PutUint32(out[4*i:], uint32(v)) }, 32, true
	case et.Bits() == 16:
		return func(out []byte, i int, v uint64) { binary.LittleEndian.PutUint16(out[2*i:], uint16(v)) }, 16, true
	case et.Bits() == 8:
		return func(out []byte, i int, v uint64) { out[i] = byte(v) }, 8, true
	}
	// Sub-byte: the low bits, sign-extended for signed storage.
	b := uint(et.Bits())
	signed := et.IsSigned()
	return func(out []byte, i int, v uint64) {
		u := uint8(v) << (8 - b)
		if signed {
			out[i] = uint8(int8(u) >> (8 - b))
		} else {
			out[i] = u >> (8 - b)
		}
	}, int(b), true
}

// lowerRngBitGenerator follows XLA's RngBitGeneratorExpander bit for bit;
// DEFAULT is PHILOX, as on XLA:CPU.
func lowerRngBitGenerator(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 1 || len(op.Results) != 2 {
		return nil, op.Errorf("expected 1 operand and 2 results")
	}
	st, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	outSt, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	out, err := lowerutil.TensorResult(op, 1)
	if err != nil {
		return nil, err
	}
	alg, ok := op.Attrs.Enum("rng_algorithm")
	if a, present := op.Attrs["rng_algorithm"]; present && !ok {
		return nil, op.Errorf("rng_algorithm %s is not an enum", a)
	}
	if alg == "" {
		alg = "DEFAULT"
	}
	if alg == "DEFAULT" {
		alg = "PHILOX"
	}
	if st.Rank() != 1 || st.Elem != ir.U64 || !st.Equal(outSt) {
		return nil, op.Errorf("state must be a ui64 vector equal to the output state, got %s and %s", st, outSt)
	}
	sink, width, ok := sinkFor(out.Elem)
	if !ok {
		return nil, op.Errorf("unsupported output element type %s", out.Elem)
	}
	n := int(out.NumElements())
	switch alg {
	case "THREE_FRY":
		if st.Shape[0] != 2 {
			return nil, op.Errorf("THREE_FRY needs a ui64[2] state, got %s", st)
		}
		return threeFryStep(ctx, out.Shape, n, width, sink), nil
	case "PHILOX":
		if st.Shape[0] != 2 && st.Shape[0] != 3 {
			return nil, op.Errorf("PHILOX needs a ui64[2] or ui64[3] state, got %s", st)
		}
		return philoxStep(ctx, int(st.Shape[0]), n, width, sink), nil
	}
	return nil, op.Errorf("unknown rng_algorithm %q", alg)
}

// threeFrySplit mirrors XLA's SplitShapeIntoHalves: the first even dim, else
// the largest (first of equals); a scalar is treated as [1] split from [2].
func threeFrySplit(shape []int64) (dim int, half []int64) {
	if len(shape) == 0 {
		return -1, []int64{1}
	}
	dim = -1
	for i, d := range shape {
		if d%2 == 0 {
			dim = i
			break
		}
	}
	if dim < 0 {
		for i, d := range shape {
			if dim < 0 || d > shape[dim] {
				dim = i
			}
		}
	}
	half = append([]int64(nil), shape...)
	half[dim] = (shape[dim] + 1) / 2
	return dim, half
}

func threeFryStep(ctx kernel.Context, shape []int64, n, width int, sink bitSink) kernel.Step {
	if width == 64 {
		return func(ins, outs [][]byte) error {
			key := binary.LittleEndian.Uint64(ins[0])
			s1 := binary.LittleEndian.Uint64(ins[0][8:])
			parallelFor(ctx, n, func(lo, hi int) {
				for j := lo; j < hi; j++ {
					c := s1 + uint64(j)
					a, b := threeFry2x32(uint32(c), uint32(c>>32), uint32(key), uint32(key>>32))
					sink(outs[1], j, uint64(a)|uint64(b)<<32)
				}
			})
			writeState(outs[0], key, s1+uint64(n))
			return nil
		}
	}
	dim, half := threeFrySplit(shape)
	nHalf := 1
	for _, d := range half {
		nHalf *= int(d)
	}
	// Output element at index p along the split dim comes from half index
	// p/2, word p%2; strides let us walk the half shape linearly.
	var inner, split int // elements after the split dim; split dim size
	if dim >= 0 {
		inner = 1
		for _, d := range shape[dim+1:] {
			inner *= int(d)
		}
		split = int(shape[dim])
	}
	return func(ins, outs [][]byte) error {
		key := binary.LittleEndian.Uint64(ins[0])
		s1 := binary.LittleEndian.Uint64(ins[0][8:])
		out := outs[1]
		parallelFor(ctx, nHalf, func(lo, hi int) {
			for j := lo; j < hi; j++ {
				c := s1 + uint64(j)
				a, b := threeFry2x32(uint32(c), uint32(c>>32), uint32(key), uint32(key>>32))
				if dim < 0 {
					sink(out, 0, uint64(a))
					continue
				}
				hh := (j / inner) % int(half[dim])
				outer := j / inner / int(half[dim])
				in := j % inner
				p := 2 * hh
				base := outer*split*inner + in
				sink(out, base+p*inner, uint64(a))
				if p+1 < split {
					sink(out, base+(p+1)*inner, uint64(b))
				}
			}
		})
		writeState(outs[0], key, s1+uint64(nHalf))
		return nil
	}
}

func philoxStep(ctx kernel.Context, stateLen, n, width int, sink bitSink) kernel.Step {
	perBlock := 4 // 32-bit words per Philox block
	if width == 64 {
		perBlock = 2
	}
	blocks := (n + perBlock - 1) / perBlock
	return func(ins, outs [][]byte) error {
		key := binary.LittleEndian.Uint64(ins[0])
		lo := binary.LittleEndian.Uint64(ins[0][8:])
		hi := key // a 2-word state uses (state[1], state[0]) as the 128-bit counter
		if stateLen == 3 {
			hi = binary.LittleEndian.Uint64(ins[0][16:])
		}
		out := outs[1]
		parallelFor(ctx, blocks, func(b0, b1 int) {
			for b := b0; b < b1; b++ {
				w := philoxBlock(lo, hi, uint64(b), key)
				if width == 64 {
					sink(out, 2*b, uint64(w[0])|uint64(w[1])<<32)
					if 2*b+1 < n {
						sink(out, 2*b+1, uint64(w[2])|uint64(w[3])<<32)
					}
					continue
				}
				for c := 0; c < 4 && 4*b+c < n; c++ {
					sink(out, 4*b+c, uint64(w[c]))
				}
			}
		})
		nlo, carry := bits.Add64(lo, uint64(blocks), 0)
		binary.LittleEndian.PutUint64(outs[0], key)
		binary.LittleEndian.PutUint64(outs[0][8:], nlo)
		if stateLen == 3 {
			binary.LittleEndian.PutUint64(outs[0][16:], hi+carry)
		}
		return nil
	}
}

func writeState(b []byte, key, s uint64) {
	binary.LittleEndian.PutUint64(b, key)
	binary.LittleEndian.PutUint64(b[8:], s)
}

// parallelFor splits [0,n) when large; each index is independent.
func parallelFor(ctx kernel.Context, n int, fn func(lo, hi int)) {
	const grain = 1 << 14
	if ctx == nil || n < 2*grain {
		fn(0, n)
		return
	}
	ctx.Parallel(n, grain, fn)
}

// lowerRng implements the legacy stablehlo.rng op, whose numbers the spec
// leaves implementation-defined. gojax draws them from Philox-4x32 with a key
// fixed by the op's source location and a per-op counter that advances on
// every run, so repeated runs give fresh numbers and a program run twice in a
// fresh process gives the same sequence. Bits become values as in XLA's prng
// library: UNIFORM floats take the top mantissa bits scaled into [a, b);
// UNIFORM ints use the two-halves modulo formula into [a, b); NORMAL uses
// Box–Muller on uniform pairs, giving mean a and standard deviation b.
func lowerRng(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 3 || len(op.Results) != 1 {
		return nil, op.Errorf("expected a, b, shape and 1 result")
	}
	a, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	b, err := lowerutil.TensorOperand(op, 1)
	if err != nil {
		return nil, err
	}
	out, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	dist, _ := op.Attrs.Enum("rng_distribution")
	if a.Rank() != 0 || b.Rank() != 0 || a.Elem != out.Elem || b.Elem != out.Elem {
		return nil, op.Errorf("a %s and b %s must be scalars of the result type %s", a, b, out)
	}
	h := fnv.New64a()
	h.Write([]byte(op.Loc.String()))
	key := h.Sum64()
	counter := new(atomic.Uint64)
	n := int(out.NumElements())
	et := out.Elem
	switch {
	case dist == "UNIFORM" && (et == ir.F32 || et == ir.F64 || et == ir.F16 || et == ir.BF16):
	case dist == "UNIFORM" && (et == ir.S32 || et == ir.U32 || et == ir.S64 || et == ir.U64):
	case dist == "NORMAL" && (et == ir.F32 || et == ir.F64 || et == ir.F16 || et == ir.BF16):
	default:
		return nil, op.Errorf("rng_distribution %q on %s is not supported", dist, et)
	}
	draws := 1 // 64-bit draws per element
	if dist == "NORMAL" {
		draws = 2
	}
	blocks := (n*draws + 1) / 2 // two 64-bit draws per Philox block
	return func(ins, outs [][]byte) error {
		start := counter.Add(uint64(blocks)) - uint64(blocks)
		draw := func(k int) uint64 { // the k-th 64 random bits of this run
			w := philoxBlock(start, 0, uint64(k/2), key)
			if k%2 == 0 {
				return uint64(w[0]) | uint64(w[1])<<32
			}
			return uint64(w[2]) | uint64(w[3])<<32
		}
		o := outs[0]
		switch et {
		case ir.S32, ir.U32, ir.S64, ir.U64:
			wide := et.Bits() == 64
			var lo, hi uint64
			if wide {
				lo, hi = binary.LittleEndian.Uint64(ins[0]), binary.LittleEndian.Uint64(ins[1])
			} else {
				lo, hi = uint64(binary.LittleEndian.Uint32(ins[0])), uint64(binary.LittleEndian.Uint32(ins[1]))
			}
			rng := hi - lo
			if !wide {
				rng = uint64(uint32(rng))
			}
			for i := range n {
				v := draw(i)
				if !wide {
					v = uint64(uint32(v))
				}
				var r uint64
				if rng != 0 {
					d := v % rng
					r = lo + d/2 + (d - d/2)
				} else {
					r = lo
				}
				if wide {
					binary.LittleEndian.PutUint64(o[8*i:], r)
				} else {
					binary.LittleEndian.PutUint32(o[4*i:], uint32(r))
				}
			}
			return nil
		}
		fa, fb := readFloat(ins[0], et), readFloat(ins[1], et)
		uni := func(v uint64) float64 {
			if et == ir.F64 {
				return float64(v>>11) * 0x1p-53
			}
			return float64(float32(uint32(v)>>9) * 0x1p-23)
		}
		for i := range n {
			var x float64
			if dist == "UNIFORM" {
				x = uni(draw(i))*(fb-fa) + fa
			} else {
				u1 := math.Max(uni(draw(2*i)), 1e-7)
				u2 := uni(draw(2*i + 1))
				x = math.Sqrt(-2*math.Log(u1))*math.Sin(2*math.Pi*u2)*fb + fa
			}
			writeFloat(o, i, et, x)
		}
		return nil
	}, nil
}

func readFloat(b []byte, et ir.ElemType) float64 {
	switch et {
	case ir.F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	case ir.F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case ir.F16:
		return float64(floatconv.F16ToF32(binary.LittleEndian.Uint16(b)))
	case ir.BF16:
		return float64(floatconv.BF16ToF32(binary.LittleEndian.Uint16(b)))
	}
	return math.NaN()
}

func writeFloat(b []byte, i int, et ir.ElemType, v float64) {
	switch et {
	case ir.F64:
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	case ir.F32:
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(v)))
	case ir.F16:
		binary.LittleEndian.PutUint16(b[2*i:], floatconv.F64ToF16(v))
	case ir.BF16:
		binary.LittleEndian.PutUint16(b[2*i:], floatconv.F64ToBF16(v))
	}
}

func rngCost(op *ir.Op) kernel.Work {
	var n int64
	for _, r := range op.Results {
		n += kernel.Elements(r)
	}
	return kernel.Work{Transcendentals: n}
}
