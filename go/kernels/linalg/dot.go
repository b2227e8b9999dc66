package linalg

import (
	"fmt"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/floatconv"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func init() {
	kernel.RegisterOp("stablehlo.dot_general", lowerDotGeneral, kernel.Traits{Cost: dotCost})
	kernel.RegisterOp("stablehlo.dot", lowerDot, kernel.Traits{Cost: dotCost})
}

// dotCost: one multiply-add (two flops) per result element and
// contracting index.
func dotCost(op *ir.Op) kernel.Work {
	if len(op.Operands) != 2 || len(op.Results) != 1 {
		return kernel.Work{}
	}
	lt := op.Operands[0].StaticTensor()
	if lt == nil || lt.Rank() == 0 {
		return kernel.Work{}
	}
	contract := []int64{int64(lt.Rank() - 1)} // legacy dot
	if op.Name == "stablehlo.dot_general" {
		contract, _, _ = i64List(op, "lhs_contracting_dimensions")
	}
	k := int64(1)
	for _, d := range contract {
		if d >= 0 && int(d) < lt.Rank() {
			k *= lt.Shape[d]
		}
	}
	return kernel.Work{Flops: 2 * kernel.Elements(op.Results[0]) * k}
}

// dotDims are dot_general's dimension numbers.
type dotDims struct {
	lhsBatch, rhsBatch, lhsContract, rhsContract []int64
}

func lowerDotGeneral(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 2 || len(op.Results) != 1 {
		return nil, op.Errorf("want 2 operands and 1 result, have %d and %d", len(op.Operands), len(op.Results))
	}
	var d dotDims
	for _, f := range []struct {
		name string
		dst  *[]int64
	}{
		{"lhs_batching_dimensions", &d.lhsBatch},
		{"rhs_batching_dimensions", &d.rhsBatch},
		{"lhs_contracting_dimensions", &d.lhsContract},
		{"rhs_contracting_dimensions", &d.rhsContract},
	} {
		v, _, err := i64List(op, f.name)
		if err != nil {
			return nil, err
		}
		*f.dst = v
	}
	if err := checkPrecision(op, 2); err != nil {
		return nil, err
	}
	if err := checkDotAlgorithm(op); err != nil {
		return nil, err
	}
	return buildDot(ctx, op, d)
}

// checkDotAlgorithm looks at dot_general_v2's algorithm fields. Every dot
// here runs at the full precision of its compute type (f32 for f32 and
// narrower floats, f64 otherwise), which is at least as accurate as any
// algorithm preset asks for, so valid values are accepted as they are.
func checkDotAlgorithm(op *ir.Op) error {
	for _, name := range []string{"lhs_component_count", "rhs_component_count", "num_primitive_operations"} {
		if v, ok := op.Attrs[name].(ir.IntAttr); ok && v.Value < 0 {
			return op.Errorf("%s = %d must not be negative", name, v.Value)
		}
	}
	return nil
}

// lowerDot handles legacy stablehlo.dot: vector·vector, matrix·vector,
// matrix·matrix, contracting lhs's last dim with rhs's first.
func lowerDot(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 2 || len(op.Results) != 1 {
		return nil, op.Errorf("want 2 operands and 1 result, have %d and %d", len(op.Operands), len(op.Results))
	}
	lt, rt := op.Operands[0].Tensor(), op.Operands[1].Tensor()
	if lt == nil || rt == nil {
		return nil, op.Errorf("operands must be tensors")
	}
	if lt.Rank() < 1 || lt.Rank() > 2 || rt.Rank() < 1 || rt.Rank() > 2 {
		return nil, op.Errorf("operands must have rank 1 or 2, have %s and %s", lt, rt)
	}
	if err := checkPrecision(op, 2); err != nil {
		return nil, err
	}
	return buildDot(ctx, op, dotDims{lhsContract: []int64{int64(lt.Rank() - 1)}, rhsContract: []int64{0}})
}

// dimTable lists element offsets of every multi-index over dims (row-major in
// the listed order) for a tensor with the given strides.
func dimTable(shape, strides []int64, dims []int64) []int {
	n := 1
	for _, d := range dims {
		n *= int(shape[d])
	}
	out := kernel.Make[int](n)
	if n == 0 {
		return out
	}
	idx := make([]int64, len(dims))
	off := 0
	for i := range out {
		out[i] = off
		for j := len(dims) - 1; j >= 0; j-- {
			d := dims[j]
			idx[j]++
			off += int(strides[d])
			if idx[j] < shape[d] {
				break
			}
			off -= int(idx[j] * strides[d])
			idx[j] = 0
		}
	}
	return out
}

// freeDims are the dims of a rank-r tensor not in any of the lists, ascending.
func freeDims(rank int, lists ...[]int64) []int64 {
	used := make([]bool, rank)
	for _, l := range lists {
		for _, d := range l {
			used[d] = true
		}
	}
	var out []int64
	for d := 0; d < rank; d++ {
		if !used[d] {
			out = append(out, int64(d))
		}
	}
	return out
}

// checkDims validates a dims list against rank and records uses.
func checkDims(op *ir.Op, what string, dims []int64, rank int, used []bool) error {
	for _, d := range dims {
		if d < 0 || int(d) >= rank {
			return op.Errorf("%s: dimension %d out of range for rank %d", what, d, rank)
		}
		if used[d] {
			return op.Errorf("%s: dimension %d used twice", what, d)
		}
		used[d] = true
	}
	return nil
}

// planDot validates dimension numbers and builds the gemm plan.
func planDot(op *ir.Op, lt, rt, ot *ir.TensorType, d dotDims) (*gemmPlan, error) {
	if len(d.lhsBatch) != len(d.rhsBatch) {
		return nil, op.Errorf("lhs has %d batching dimensions, rhs %d", len(d.lhsBatch), len(d.rhsBatch))
	}
	if len(d.lhsContract) != len(d.rhsContract) {
		return nil, op.Errorf("lhs has %d contracting dimensions, rhs %d", len(d.lhsContract), len(d.rhsContract))
	}
	lu, ru := make([]bool, lt.Rank()), make([]bool, rt.Rank())
	if err := checkDims(op, "lhs dimensions", d.lhsBatch, lt.Rank(), lu); err != nil {
		return nil, err
	}
	if err := checkDims(op, "lhs dimensions", d.lhsContract, lt.Rank(), lu); err != nil {
		return nil, err
	}
	if err := checkDims(op, "rhs dimensions", d.rhsBatch, rt.Rank(), ru); err != nil {
		return nil, err
	}
	if err := checkDims(op, "rhs dimensions", d.rhsContract, rt.Rank(), ru); err != nil {
		return nil, err
	}
	for i := range d.lhsBatch {
		if lt.Shape[d.lhsBatch[i]] != rt.Shape[d.rhsBatch[i]] {
			return nil, op.Errorf("batching dimension %d: lhs size %d, rhs size %d", i, lt.Shape[d.lhsBatch[i]], rt.Shape[d.rhsBatch[i]])
		}
	}
	for i := range d.lhsContract {
		if lt.Shape[d.lhsContract[i]] != rt.Shape[d.rhsContract[i]] {
			return nil, op.Errorf("contracting dimension %d: lhs size %d, rhs size %d", i, lt.Shape[d.lhsContract[i]], rt.Shape[d.rhsContract[i]])
		}
	}
	lf := freeDims(lt.Rank(), d.lhsBatch, d.lhsContract)
	rf := freeDims(rt.Rank(), d.rhsBatch, d.rhsContract)
	var want []int64
	for _, x := range d.lhsBatch {
		want = append(want, lt.Shape[x])
	}
	for _, x := range lf {
		want = append(want, lt.Shape[x])
	}
	for _, x := range rf {
		want = append(want, rt.Shape[x])
	}
	if !ir.Tensor(ot.Elem, want...).Equal(ot) {
		return nil, op.Errorf("result type %s, want shape %v", ot, want)
	}
	ls, rs := lt.Strides(), rt.Strides()
	p := &gemmPlan{
		lhsBatch: dimTable(lt.Shape, ls, d.lhsBatch),
		rhsBatch: dimTable(rt.Shape, rs, d.rhsBatch),
		lhsRow:   dimTable(lt.Shape, ls, lf),
		lhsK:     dimTable(lt.Shape, ls, d.lhsContract),
		rhsK:     dimTable(rt.Shape, rs, d.rhsContract),
		rhsCol:   dimTable(rt.Shape, rs, rf),
	}
	p.batch, p.m, p.n, p.k = len(p.lhsBatch), len(p.lhsRow), len(p.rhsCol), len(p.lhsK)
	p.lhsKUnit, p.rhsColUnit = unitStride(p.lhsK), unitStride(p.rhsCol)
	return p, nil
}

// computeKind picks the arithmetic a dot runs in from its element types.
type computeKind int

const (
	computeF32 computeKind = iota
	computeF64
	computeC64
	computeC128
	computeInt
)

func dotCompute(types ...ir.ElemType) (computeKind, error) {
	var anyComplex, anyF64, anyFloat, anyInt bool
	for _, t := range types {
		switch {
		case t.IsComplex():
			anyComplex = true
			anyF64 = anyF64 || t == ir.C128
		case t == ir.F64:
			anyF64, anyFloat = true, true
		case isFloatLike(t):
			anyFloat = true
			if !narrowConvertible(t) {
				return 0, fmt.Errorf("element type %s is not supported (no conversion to and from f32)", t)
			}
		case t.IsInteger() || t.IsBool():
			anyInt = true
		default:
			return 0, fmt.Errorf("element type %s is not supported", t)
		}
	}
	switch {
	case anyComplex && anyF64:
		return computeC128, nil
	case anyComplex:
		return computeC64, nil
	case anyFloat && anyInt:
		return 0, fmt.Errorf("mixed integer and floating-point element types %v", types)
	case anyF64:
		return computeF64, nil
	case anyFloat:
		return computeF32, nil
	}
	return computeInt, nil
}

func buildDot(ctx kernel.Context, op *ir.Op, d dotDims) (kernel.Step, error) {
	lt, rt, ot := op.Operands[0].Tensor(), op.Operands[1].Tensor(), op.Results[0].Tensor()
	if lt == nil || rt == nil || ot == nil {
		return nil, op.Errorf("operands and result must be tensors")
	}
	p, err := planDot(op, lt, rt, ot, d)
	if err != nil {
		return nil, err
	}
	kind, err := dotCompute(lt.Elem, rt.Elem, ot.Elem)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	if ot.Elem.IsComplex() != (kind == computeC64 || kind == computeC128) {
		return nil, op.Errorf("result type %s does not match complex operands %s, %s", ot, lt, rt)
	}
	return dotStep(kind, p, lt.Elem, rt.Elem, ot.Elem, ctx.Parallel), nil
}

// dotStep returns the run-time step for a planned dot. It is shared with
// convolution, which feeds it its own plan.
func dotStep(kind computeKind, p *gemmPlan, le, re, oe ir.ElemType, par parallelFn) kernel.Step {
	switch kind {
	case computeF32:
		return func(ins, outs [][]byte) error {
			if (le == ir.BF16 || re == ir.BF16) && p.packedOnly() {
				// bf16 operands are widened while packing, in parallel,
				// instead of in whole-array passes first.
				a, ar := srcF32(ins[0], le)
				b, br := srcF32(ins[1], re)
				c, cr := viewF32Out(outs[0], oe)
				var fin func(off, rows, cols, ldc int)
				if cr != nil {
					// Narrow each block of output rows as its worker finishes it.
					out := outs[0]
					es := oe.ByteSize()
					fin = func(off, rows, cols, ldc int) {
						for i := 0; i < rows; i++ {
							o := off + i*ldc
							if oe == ir.BF16 {
								narrowRowBF16(byteview.As[uint16](out[2*o:2*(o+cols)]), c[o:o+cols])
								continue
							}
							fromF32(out[o*es:(o+cols)*es], c[o:o+cols], oe)
						}
					}
				}
				uk := ukF32
				if le == ir.BF16 && re == ir.BF16 && ukBF16 != nil {
					uk = *ukBF16
				}
				gemmSrc(p, uk, a, b, c, par, f32scratch, fin)
				if cr != nil {
					cr.release()
				}
				releaseAll(ar, br)
				return nil
			}
			a, ar := viewF32(ins[0], le)
			b, br := viewF32(ins[1], re)
			c, cr := viewF32Out(outs[0], oe)
			gemm(p, ukF32, a, b, c, par, f32scratch)
			if cr != nil {
				fromF32(outs[0], c, oe)
				cr.release()
			}
			releaseAll(ar, br)
			return nil
		}
	case computeF64:
		return func(ins, outs [][]byte) error {
			a, ar := viewF64(ins[0], le)
			b, br := viewF64(ins[1], re)
			c, cr := viewF64Out(outs[0], oe)
			gemm(p, ukF64, a, b, c, par, f64scratch)
			if cr != nil {
				fromF64(outs[0], c, oe)
				cr.release()
			}
			releaseAll(ar, br)
			return nil
		}
	case computeC64:
		return func(ins, outs [][]byte) error {
			a := c64scratch(len(ins[0]) / le.ByteSize())
			b := c64scratch(len(ins[1]) / re.ByteSize())
			c := c64scratch(p.batch * p.m * p.n)
			toC64(a.s, ins[0], le)
			toC64(b.s, ins[1], re)
			naiveDot(p, a.s, b.s, c.s, par)
			fromC64(outs[0], c.s, oe)
			a.release()
			b.release()
			c.release()
			return nil
		}
	case computeC128:
		return func(ins, outs [][]byte) error {
			a := c128scratch(len(ins[0]) / le.ByteSize())
			b := c128scratch(len(ins[1]) / re.ByteSize())
			c := c128scratch(p.batch * p.m * p.n)
			toC128(a.s, ins[0], le)
			toC128(b.s, ins[1], re)
			naiveDot(p, a.s, b.s, c.s, par)
			fromC128(outs[0], c.s, oe)
			a.release()
			b.release()
			c.release()
			return nil
		}
	}
	if useI8GEMM(le, re, oe, p.k) {
		return i8DotStep(p, le, re, oe, par)
	}
	if narrowInt(le) && narrowInt(re) && oe != ir.Pred && p.k <= maxExactK {
		// Products of 8- and 16-bit integers are below 2^32 in magnitude,
		// so sums of up to 2^21 of them are exact in float64: the float64
		// GEMM gives the integer sums, which then wrap to the result type
		// as the int64 loop's would. (8-bit operands take the int32 GEMM above.)
		return func(ins, outs [][]byte) error {
			a := f64scratch(len(ins[0]) / le.ByteSize())
			b := f64scratch(len(ins[1]) / re.ByteSize())
			c := f64scratch(p.batch * p.m * p.n)
			intsToF64(a.s, ins[0], le)
			intsToF64(b.s, ins[1], re)
			gemm(p, ukF64, a.s, b.s, c.s, par, f64scratch)
			ci := i64scratch(len(c.s))
			for i, v := range c.s {
				ci.s[i] = int64(v)
			}
			fromI64(outs[0], ci.s, oe)
			releaseAll(a, b, c)
			ci.release()
			return nil
		}
	}
	return func(ins, outs [][]byte) error {
		a := i64scratch(len(ins[0]) / le.ByteSize())
		b := i64scratch(len(ins[1]) / re.ByteSize())
		c := i64scratch(p.batch * p.m * p.n)
		toI64(a.s, ins[0], le)
		toI64(b.s, ins[1], re)
		if oe == ir.Pred {
			// i1 arithmetic: multiply is AND, add is OR; summing 0/1 products
			// and testing for nonzero is the same thing.
			for i, v := range a.s {
				a.s[i] = b2i(v != 0)
			}
			for i, v := range b.s {
				b.s[i] = b2i(v != 0)
			}
		}
		naiveDot(p, a.s, b.s, c.s, par)
		fromI64(outs[0], c.s, oe)
		a.release()
		b.release()
		c.release()
		return nil
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func releaseAll[T any](bs ...*buf[T]) {
	for _, b := range bs {
		if b != nil {
			b.release()
		}
	}
}

// viewF32 returns the operand as f32, converting into scratch when needed.
func viewF32(b []byte, t ir.ElemType) ([]float32, *buf[float32]) {
	if t == ir.F32 {
		return byteview.As[float32](b), nil
	}
	s := f32scratch(len(b) / t.ByteSize())
	toF32(s.s, b, t)
	return s.s, s
}

// srcF32 is viewF32 for gemmSrc: bf16 operands are read as they are.
func srcF32(b []byte, t ir.ElemType) (operand[float32], *buf[float32]) {
	if t == ir.BF16 {
		v := byteview.As[uint16](b)
		if v == nil {
			v = []uint16{} // a non-nil bf16 is what marks the operand as bf16
		}
		return operand[float32]{bf16: v}, nil
	}
	v, r := viewF32(b, t)
	return operand[float32]{v: v}, r
}

func viewF32Out(b []byte, t ir.ElemType) ([]float32, *buf[float32]) {
	if t == ir.F32 {
		return byteview.As[float32](b), nil
	}
	s := f32scratch(len(b) / t.ByteSize())
	return s.s, s
}

func viewF64(b []byte, t ir.ElemType) ([]float64, *buf[float64]) {
	if t == ir.F64 {
		return byteview.As[float64](b), nil
	}
	s := f64scratch(len(b) / t.ByteSize())
	toF64(s.s, b, t)
	return s.s, s
}

func viewF64Out(b []byte, t ir.ElemType) ([]float64, *buf[float64]) {
	if t == ir.F64 {
		return byteview.As[float64](b), nil
	}
	s := f64scratch(len(b) / t.ByteSize())
	return s.s, s
}

// naiveDot is the straightforward batched product for integer and complex
// element types, parallel over output rows.
func naiveDot[T int64 | complex64 | complex128](p *gemmPlan, a, b, c []T, par parallelFn) {
	rows := p.batch * p.m
	if rows == 0 || p.n == 0 {
		return
	}
	work := func(lo, hi int) {
		for r := lo; r < hi; r++ {
			bi, i := r/p.m, r%p.m
			ao := p.lhsBatch[bi] + p.lhsRow[i]
			bo := p.rhsBatch[bi]
			out := c[r*p.n : (r+1)*p.n]
			for j := range out {
				var s T
				bj := bo + p.rhsCol[j]
				for kk, lk := range p.lhsK {
					s += a[ao+lk] * b[bj+p.rhsK[kk]]
				}
				out[j] = s
			}
		}
	}
	grain := 1 + 1<<16/(1+p.n*p.k)
	if rows <= grain {
		work(0, rows)
		return
	}
	par(rows, grain, work)
}

// narrowBF16Go is narrowRowBF16 in plain Go.
func narrowBF16Go(dst []uint16, src []float32) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = floatconv.F32ToBF16(v)
	}
}

// maxExactK is the longest contraction whose float64 sums of products of
// 16-bit integers are exact (2^21 terms below 2^32 each: under 2^53).
const maxExactK = 1 << 21

// narrowInt reports integer types of at most 16 bits (booleans excluded).
func narrowInt(t ir.ElemType) bool {
	return t.IsInteger() && t != ir.Pred && t.Bits() <= 16
}

// intsToF64 widens integers of type t exactly.
func intsToF64(dst []float64, src []byte, t ir.ElemType) {
	tmp := i64scratch(len(dst))
	toI64(tmp.s, src, t)
	for i, v := range tmp.s {
		dst[i] = float64(v)
	}
	tmp.release()
}
