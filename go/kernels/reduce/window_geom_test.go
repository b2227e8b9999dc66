package reduce

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/floatconv"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
)

// refWindowOffsets lists, for every output and window position in row-major
// order, the input offset read (-1 for padding or a hole), by mapping padded
// coordinates back to input coordinates.
func refWindowOffsets(c rwCase) [][]int64 {
	r := len(c.shape)
	back := make([]map[int64]int64, r) // padded coordinate -> input coordinate
	for d := range r {
		back[d] = map[int64]int64{}
		for i := range c.shape[d] {
			back[d][c.pads[2*d]+i*c.bdil[d]] = i
		}
	}
	inSt := stridesOf(c.shape)
	out := c.outShape()
	var res [][]int64
	for o := range lowerutil.Numel(out) {
		oi := unravel(o, out)
		var offs []int64
		for w := range lowerutil.Numel(c.win) {
			wi := unravel(w, c.win)
			off := int64(0)
			for d := range r {
				i, ok := back[d][oi[d]*c.strides[d]+wi[d]*c.wdil[d]]
				if !ok || off < 0 {
					off = -1
					continue
				}
				off += i * inSt[d]
			}
			offs = append(offs, off)
		}
		res = append(res, offs)
	}
	return res
}

// TestWindowGeometry: the run-time coordinate arithmetic (general walk and
// interior shortcut) matches a brute-force padded/dilated reference.
func TestWindowGeometry(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for it := range 400 {
		r := 1 + rng.Intn(3)
		c := rwCase{name: fmt.Sprint(it), shape: make([]int64, r), win: make([]int64, r), strides: make([]int64, r),
			bdil: make([]int64, r), wdil: make([]int64, r), pads: make([]int64, 2*r)}
		for d := range r {
			c.shape[d] = int64(rng.Intn(6))
			c.win[d] = int64(1 + rng.Intn(4))
			c.strides[d] = int64(1 + rng.Intn(3))
			c.bdil[d] = int64(1 + rng.Intn(3)*rng.Intn(2))
			c.wdil[d] = int64(1 + rng.Intn(3)*rng.Intn(2))
			c.pads[2*d] = int64(rng.Intn(5) - 1)
			c.pads[2*d+1] = int64(rng.Intn(5) - 1)
		}
		if it%5 == 0 { // cumulative shapes, forward and reverse
			d := rng.Intn(r)
			c.shape[d] = int64(2 + rng.Intn(5))
			c.win[d], c.strides[d], c.bdil[d], c.wdil[d] = c.shape[d], 1, 1, 1
			c.pads[2*d], c.pads[2*d+1] = c.shape[d]-1, 0
			if rng.Intn(2) == 0 {
				c.pads[2*d], c.pads[2*d+1] = 0, c.shape[d]-1
			}
		}
		out := c.outShape()
		bad := false
		for d := range r {
			padded := c.pads[2*d] + c.pads[2*d+1]
			if c.shape[d] > 0 {
				padded += (c.shape[d]-1)*c.bdil[d] + 1
			}
			if padded < 0 {
				bad = true
			}
		}
		if bad {
			continue
		}
		op := rwOp(c, ir.F32, binRegion("stablehlo.add", ir.F32))
		g, err := newWindowGeom(op, c.shape, out, "base_dilations")
		require.NoError(t, err, "%+v", c)
		want := refWindowOffsets(c)
		sc := g.scratch()
		for o, w := range want {
			var got []int64
			g.forWindow(int64(o), sc, func(off int64) { got = append(got, off) })
			if len(w) == 0 {
				require.Empty(t, got, "%+v output %d", c, o)
				continue
			}
			require.Equal(t, w, got, "%+v output %d", c, o)
			if g.runsOK() {
				got = got[:0]
				g.forWindowRuns(int64(o), sc, func(off int64, k int) {
					require.Positive(t, k)
					for j := range int64(k) {
						if off < 0 {
							got = append(got, -1)
						} else {
							got = append(got, off+j)
						}
					}
				})
				require.Equal(t, w, got, "%+v output %d (runs)", c, o)
			}
			inside := true
			for _, x := range w {
				inside = inside && x >= 0
			}
			base, ok := g.interiorBase(int64(o))
			require.Equal(t, inside && g.noHoles, ok, "%+v output %d", c, o)
			if ok {
				for k, rel := range g.rel {
					require.Equal(t, w[k], int64(base+rel), "%+v output %d", c, o)
				}
			}
		}
	}
}

// genElems returns n random elements of et, with NaNs, infinities, signed
// zeros and arbitrary bit patterns among the float values.
func genElems(rng *rand.Rand, et ir.ElemType, n int) []byte {
	es := et.ByteSize()
	b := make([]byte, n*es)
	float := func() float64 {
		switch x := rng.Float64(); {
		case x < 0.04:
			return math.NaN()
		case x < 0.06:
			return math.Inf(1)
		case x < 0.08:
			return math.Inf(-1)
		case x < 0.12:
			return math.Copysign(0, -1)
		case x < 0.16:
			return 0
		case x < 0.3:
			return rng.NormFloat64() * 1e30
		}
		return rng.NormFloat64() * 4
	}
	for i := range n {
		e := b[i*es : (i+1)*es]
		switch et {
		case ir.F32:
			v := math.Float32bits(float32(float()))
			if rng.Intn(8) == 0 {
				v = rng.Uint32()
			}
			binary.LittleEndian.PutUint32(e, v)
		case ir.F64:
			v := math.Float64bits(float())
			if rng.Intn(8) == 0 {
				v = rng.Uint64()
			}
			binary.LittleEndian.PutUint64(e, v)
		case ir.F16:
			binary.LittleEndian.PutUint16(e, floatconv.F64ToF16(float()))
		case ir.BF16:
			binary.LittleEndian.PutUint16(e, floatconv.F64ToBF16(float()))
		case ir.C64:
			binary.LittleEndian.PutUint32(e, math.Float32bits(float32(float())))
			binary.LittleEndian.PutUint32(e[4:], math.Float32bits(float32(float())))
		case ir.C128:
			binary.LittleEndian.PutUint64(e, math.Float64bits(float()))
			binary.LittleEndian.PutUint64(e[8:], math.Float64bits(float()))
		case ir.Pred:
			e[0] = byte(rng.Intn(2))
		case ir.S1, ir.S2, ir.S4:
			k := 1 << (et.Bits() - 1)
			e[0] = byte(int8(rng.Intn(2*k) - k))
		case ir.U1, ir.U2, ir.U4:
			e[0] = byte(rng.Intn(1 << et.Bits()))
		default:
			rng.Read(e)
		}
	}
	return b
}

// oneOf encodes 1 in et.
func oneOf(et ir.ElemType) []byte {
	b := make([]byte, et.ByteSize())
	switch et {
	case ir.F32, ir.C64:
		binary.LittleEndian.PutUint32(b, math.Float32bits(1))
	case ir.F64, ir.C128:
		binary.LittleEndian.PutUint64(b, math.Float64bits(1))
	case ir.F16:
		binary.LittleEndian.PutUint16(b, floatconv.F64ToF16(1))
	case ir.BF16:
		binary.LittleEndian.PutUint16(b, floatconv.F64ToBF16(1))
	default:
		b[0] = 1
	}
	return b
}

// TestReduceWindowScanMatchesGeneral: the cumulative fast path (forward for
// every type, reverse for integers, booleans and float max/min) gives the same bits as the
// general window walk, for every type and associative body, with identity
// and other idempotent init values.
func TestReduceWindowScanMatchesGeneral(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	types := []ir.ElemType{ir.F32, ir.F64, ir.F16, ir.BF16, ir.C64, ir.C128, ir.S8, ir.S16, ir.S32, ir.S64,
		ir.U8, ir.U16, ir.U32, ir.U64, ir.S1, ir.S2, ir.S4, ir.U1, ir.U2, ir.U4, ir.Pred}
	bodies := []string{"stablehlo.add", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum",
		"stablehlo.and", "stablehlo.or", "stablehlo.xor"}
	shapes := []struct {
		shape []int64
		axis  int
	}{{[]int64{29}, 0}, {[]int64{4, 29}, 1}, {[]int64{29, 5}, 0}, {[]int64{2, 9, 3}, 1}, {[]int64{2, 7, 1030}, 1}}
	fastRuns := 0
	for _, et := range types {
		for _, body := range bodies {
			kind := binaryBody(binRegion(body, et), et)
			if kind == opNone || newTyped(et, kind) == nil {
				continue
			}
			for si, s := range shapes {
				if si == len(shapes)-1 && et != ir.F32 && et != ir.S32 {
					continue // the wide case (several column chunks) for two types
				}
				for _, rev := range []bool{false, true} {
					c := cumsumCase(s.shape, s.axis)
					if rev {
						c.pads[2*s.axis], c.pads[2*s.axis+1] = 0, s.shape[s.axis]-1
					}
					op := rwOp(c, et, binRegion(body, et))
					in := genElems(rng, et, int(lowerutil.Numel(c.shape)))
					init := make([]byte, et.ByteSize()) // 0: idempotent for add, or, xor, and integer mul
					switch kind {
					case opMul:
						if rng.Intn(2) == 0 || !et.IsInteger() {
							init = oneOf(et)
						}
					case opMax, opMin, opAnd:
						init = genElems(rng, et, 1) // any value is idempotent
					}
					if kind == opAdd && et.IsFloat() && rng.Intn(2) == 0 {
						init = genElems(rng, et, 1)
						if et == ir.F32 {
							binary.LittleEndian.PutUint32(init, 0x80000000) // -0
						}
					}
					// A reverse float sum or product is regrouped (see
					// exactlyAssociative): finite inputs that cannot overflow,
					// compared under the error bound of the fold.
					regrouped := rev && !exactlyAssociative(et) && (kind == opAdd || kind == opMul)
					if regrouped {
						in = moderateElems(rng, et, int(lowerutil.Numel(c.shape)), kind)
						init = moderateElems(rng, et, 1, kind)
					}
					g, err := newWindowGeom(op, c.shape, c.shape, "base_dilations")
					require.NoError(t, err)
					g.directOut = !subByte(et)
					dim, r := scanForm(op, c.shape)
					require.Equal(t, s.axis, dim)
					require.Equal(t, rev, r)
					general := newTyped(et, kind).windowStep(nil, g)
					want := make([]byte, len(in))
					require.NoError(t, general([][]byte{in, init}, [][]byte{want}))
					fastRuns++
					for _, ctx := range testCtxs {
						name := fmt.Sprint(et, body, s.shape, rev, ctx.chunk)
						got := runOp(t, ctx, op, in, init)
						if regrouped {
							requireWithinFoldBound(t, et, kind, s.shape, s.axis, in, init, want, got[0], name)
						} else {
							requireSameUpToNaNPayload(t, et, want, got[0], name)
						}
					}
				}
			}
		}
	}
	require.Greater(t, fastRuns, 100)
}

// requireSameUpToNaNPayload requires equal bits, except that any NaN
// matches any NaN. Which NaN an x86 operation returns when several meet
// (an operand's, or the default one an invalid operation makes) depends
// on the order of its operands, which the Go compiler picks freely for
// commutative operations and differently under -race; StableHLO does not
// specify NaN payloads or signs, and neither does XLA.
func requireSameUpToNaNPayload(t *testing.T, et ir.ElemType, want, got []byte, name string) {
	t.Helper()
	require.Equal(t, len(want), len(got), name)
	var w int // bytes per float component; 0: compare bits
	switch et {
	case ir.F64, ir.C128:
		w = 8
	case ir.F32, ir.C64:
		w = 4
	}
	if w == 0 {
		require.Equal(t, want, got, name)
		return
	}
	isNaN := func(b []byte) bool {
		if w == 8 {
			return math.IsNaN(math.Float64frombits(binary.LittleEndian.Uint64(b)))
		}
		f := math.Float32frombits(binary.LittleEndian.Uint32(b))
		return f != f
	}
	for i := 0; i < len(want); i += w {
		a, b := want[i:i+w], got[i:i+w]
		if isNaN(a) && isNaN(b) {
			continue
		}
		require.Equal(t, a, b, "%s: component %d", name, i/w)
	}
}

// moderateElems makes n finite values of a float or complex type whose sums
// and products over a thousand terms stay far from overflow and underflow:
// N(0, 4) terms for add, factors near ±1 for multiply.
func moderateElems(rng *rand.Rand, et ir.ElemType, n int, kind opKind) []byte {
	val := func() float64 {
		if kind == opMul {
			v := 0.97 + 0.06*rng.Float64()
			if rng.Intn(2) == 0 {
				v = -v
			}
			return v
		}
		return rng.NormFloat64() * 4
	}
	b := make([]byte, n*et.ByteSize())
	for i := range n {
		switch et {
		case ir.C64:
			binary.LittleEndian.PutUint32(b[8*i:], math.Float32bits(float32(val()/2)))
			binary.LittleEndian.PutUint32(b[8*i+4:], math.Float32bits(float32(val()/2)))
		case ir.C128:
			binary.LittleEndian.PutUint64(b[16*i:], math.Float64bits(val()/2))
			binary.LittleEndian.PutUint64(b[16*i+8:], math.Float64bits(val()/2))
		default:
			encode(b[i*et.ByteSize():], scalar{f: val(), t: et})
		}
	}
	return b
}

// elemC reads element i of a float or complex buffer.
func elemC(et ir.ElemType, b []byte, i int) complex128 {
	switch et {
	case ir.C64:
		return complex(float64(math.Float32frombits(binary.LittleEndian.Uint32(b[8*i:]))),
			float64(math.Float32frombits(binary.LittleEndian.Uint32(b[8*i+4:]))))
	case ir.C128:
		return complex(math.Float64frombits(binary.LittleEndian.Uint64(b[16*i:])),
			math.Float64frombits(binary.LittleEndian.Uint64(b[16*i+8:])))
	}
	return complex(decode(b[i*et.ByteSize():], et).f, 0)
}

// requireWithinFoldBound checks a regrouped reverse scan against the
// left-to-right fold: two roundings of the same n terms differ by at most
// 2·n·u·(|init| + Σ|x|) for a sum and 2·n·u·|product| (4·n·u for complex,
// whose multiply rounds twice per part) for a product, u the unit roundoff.
func requireWithinFoldBound(t *testing.T, et ir.ElemType, kind opKind, shape []int64, axis int, in, init, want, got []byte, name string) {
	t.Helper()
	u := map[ir.ElemType]float64{ir.F16: 0x1p-11, ir.BF16: 0x1p-8, ir.F32: 0x1p-24, ir.C64: 0x1p-24, ir.F64: 0x1p-53, ir.C128: 0x1p-53}[et]
	require.NotZero(t, u, "no unit roundoff for %s", et)
	n := int(shape[axis])
	inner := 1
	for _, d := range shape[axis+1:] {
		inner *= int(d)
	}
	c := 2.0
	if et == ir.C64 || et == ir.C128 {
		c = 4
	}
	i0 := cmplx.Abs(elemC(et, init, 0))
	for p := range int(lowerutil.Numel(shape)) {
		a := (p / inner) % n
		w, g := elemC(et, want, p), elemC(et, got, p)
		var tol float64
		if kind == opAdd {
			sum := i0
			for k := a; k < n; k++ {
				sum += cmplx.Abs(elemC(et, in, p+(k-a)*inner))
			}
			tol = c * float64(n+1) * u * sum
		} else {
			tol = c * float64(n+1) * u * max(cmplx.Abs(w), cmplx.Abs(g))
		}
		require.LessOrEqual(t, cmplx.Abs(w-g), tol, "%s: element %d: left to right %v, regrouped %v", name, p, w, g)
	}
}
