package reduce

import (
	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// argBody describes the (value, index) reduction body jnp.argmax/argmin emit:
//
//	pick = compare(GT|LT, a, b) or compare(NE, a, a)
//	keepIdx = pick or (compare(EQ, a, b) and compare(LT, ai, bi))
//	return select(pick, a, b), select(keepIdx, ai, bi)
//
// with block arguments (a, ai, b, bi).
type argBody struct {
	gt          bool   // argmax (GT) or argmin (LT)
	valType     string // compare_type of the value comparisons
	idxUnsigned bool   // compare_type of the index comparison
}

func matchArgBody(r *ir.Region, ve, ie ir.ElemType) (argBody, bool) {
	var ab argBody
	if len(r.Blocks) != 1 {
		return ab, false
	}
	b := r.Blocks[0]
	if len(b.Args) != 4 || len(b.Ops) != 10 {
		return ab, false
	}
	a, ai, bv, bi := b.Args[0], b.Args[1], b.Args[2], b.Args[3]
	ret := b.Ops[9]
	if ret.Name != "stablehlo.return" || len(ret.Operands) != 2 {
		return ab, false
	}
	selV, selI := ret.Operands[0].Def, ret.Operands[1].Def
	if !isOp(selV, "stablehlo.select", 3) || !isOp(selI, "stablehlo.select", 3) ||
		selV.Operands[1] != a || selV.Operands[2] != bv || selI.Operands[1] != ai || selI.Operands[2] != bi {
		return ab, false
	}
	pick := selV.Operands[0].Def
	if !isOp(pick, "stablehlo.or", 2) {
		return ab, false
	}
	c1, ne := pick.Operands[0].Def, pick.Operands[1].Def
	dir, vt, ok := compareOf(c1, a, bv)
	if !ok || (dir != "GT" && dir != "LT") {
		return ab, false
	}
	if d, t, ok := compareOf(ne, a, a); !ok || d != "NE" || t != vt {
		return ab, false
	}
	keep := selI.Operands[0].Def
	if !isOp(keep, "stablehlo.or", 2) || keep.Operands[0] != pick.Results[0] {
		return ab, false
	}
	and := keep.Operands[1].Def
	if !isOp(and, "stablehlo.and", 2) {
		return ab, false
	}
	if d, t, ok := compareOf(and.Operands[0].Def, a, bv); !ok || d != "EQ" || t != vt {
		return ab, false
	}
	d, it, ok := compareOf(and.Operands[1].Def, ai, bi)
	if !ok || d != "LT" {
		return ab, false
	}
	switch {
	case (ve == ir.F32 || ve == ir.F64 || ve == ir.F16 || ve == ir.BF16) && vt == "FLOAT":
	case ve.IsSigned() && vt == "SIGNED", (ve.IsUnsigned() || ve == ir.Pred) && vt == "UNSIGNED":
	default:
		return ab, false
	}
	switch {
	case ie.IsSigned() && it == "SIGNED":
	case ie.IsUnsigned() && it == "UNSIGNED":
		ab.idxUnsigned = true
	default:
		return ab, false
	}
	ab.gt, ab.valType = dir == "GT", vt
	return ab, true
}

func isOp(o *ir.Op, name string, nOperands int) bool {
	return o != nil && o.Name == name && len(o.Operands) == nOperands && len(o.Results) == 1
}

// compareOf returns a compare's direction and type when it compares x with y.
func compareOf(o *ir.Op, x, y *ir.Value) (dir, typ string, ok bool) {
	if !isOp(o, "stablehlo.compare", 2) || o.Operands[0] != x || o.Operands[1] != y {
		return "", "", false
	}
	dir, _ = o.Attrs.Enum("comparison_direction")
	typ, _ = o.Attrs.Enum("compare_type")
	return dir, typ, true
}

// argStep evaluates the argBody natively, folding each output's elements in
// the same row-major order as the generic path, so both give identical
// results (ties and NaNs included).
func argStep(ctx kernel.Context, lay layout, ab argBody, ve, ie ir.ElemType) kernel.Step {
	ves, ies := ve.ByteSize(), ie.ByteSize()
	isFloat := ab.valType == "FLOAT"
	valKey := sortKey{signed: ve.IsSigned()}
	idxKey := sortKey{signed: !ab.idxUnsigned}
	return func(ins, outs [][]byte) error {
		if lay.kn == 0 {
			return nil
		}
		vals, idxs := ins[0], ins[1]
		work := func(lo, hi int) {
			for k := lo; k < hi; k++ {
				// The accumulator is (buffer, element) for value and index.
				aV, aVi := ins[2], 0
				aI, aIi := ins[3], 0
				kOff := offset(k, lay.kShape, lay.kStride)
				var af float64
				var au uint64
				if isFloat {
					af, _ = floatAt(aV, ve, 0)
				} else {
					au = uintKey(aV, ve, 0, valKey)
				}
				for r := range lay.rn {
					off := kOff + offset(r, lay.rShape, lay.rStride)
					var pick, eq bool
					if isFloat {
						bf, _ := floatAt(vals, ve, off)
						pick = (ab.gt && af > bf) || (!ab.gt && af < bf) || af != af
						eq = af == bf
						if !pick {
							af = bf
						}
					} else {
						bu := uintKey(vals, ve, off, valKey)
						pick = (ab.gt && au > bu) || (!ab.gt && au < bu)
						eq = au == bu
						if !pick {
							au = bu
						}
					}
					keepIdx := pick || (eq && uintKey(aI, ie, aIi, idxKey) < uintKey(idxs, ie, off, idxKey))
					if !pick {
						aV, aVi = vals, off
					}
					if !keepIdx {
						aI, aIi = idxs, off
					}
				}
				copy(outs[0][k*ves:(k+1)*ves], aV[aVi*ves:])
				copy(outs[1][k*ies:(k+1)*ies], aI[aIi*ies:])
			}
		}
		if fast := argRowsFast(lay, ab, ve, ie, ins, outs); fast != nil {
			work = fast
		}
		if ctx == nil || lay.kn < 2 || lay.kn*lay.rn < parallelMin {
			work(0, lay.kn)
		} else {
			ctx.Parallel(lay.kn, max(1, parallelMin/max(1, lay.rn)), work)
		}
		return nil
	}
}

// argRowsFast returns a typed worker for the common layout: f32 or f64
// values with signed 32/64-bit indices, every output folding one
// contiguous run of rn elements (the reduced dims are the innermost ones),
// or nil. It folds in the same order, with the same comparisons, as the
// generic loop, on typed slices instead of per-element offsets and
// conversions.
func argRowsFast(lay layout, ab argBody, ve, ie ir.ElemType, ins, outs [][]byte) func(lo, hi int) {
	if ab.valType != "FLOAT" || ab.idxUnsigned || !contiguousRows(lay) {
		return nil
	}
	switch {
	case ve == ir.F32 && ie == ir.S32:
		return argRows[float32, int32](lay, ab.gt, ins, outs)
	case ve == ir.F32 && ie == ir.S64:
		return argRows[float32, int64](lay, ab.gt, ins, outs)
	case ve == ir.F64 && ie == ir.S32:
		return argRows[float64, int32](lay, ab.gt, ins, outs)
	case ve == ir.F64 && ie == ir.S64:
		return argRows[float64, int64](lay, ab.gt, ins, outs)
	}
	return nil
}

// contiguousRows reports whether output k folds elements
// [offset(k), offset(k)+rn) of the input in order.
func contiguousRows(lay layout) bool {
	want := 1
	for d := len(lay.rShape) - 1; d >= 0; d-- {
		if lay.rShape[d] != 1 && lay.rStride[d] != want {
			return false
		}
		want *= lay.rShape[d]
	}
	return true
}

func argRows[V float32 | float64, I int32 | int64](lay layout, gt bool, ins, outs [][]byte) func(lo, hi int) {
	vals, idxs := byteview.As[V](ins[0]), byteview.As[I](ins[1])
	v0, i0 := byteview.As[V](ins[2])[0], byteview.As[I](ins[3])[0]
	ov, oi := byteview.As[V](outs[0]), byteview.As[I](outs[1])
	return func(lo, hi int) {
		for k := lo; k < hi; k++ {
			base := offset(k, lay.kShape, lay.kStride)
			av, ai := v0, i0
			vs, is := vals[base:base+lay.rn], idxs[base:base+lay.rn]
			for r, bv := range vs {
				// pick: the accumulator wins (larger/smaller, or NaN).
				if (gt && av > bv) || (!gt && av < bv) || av != av {
					continue
				}
				bi := is[r]
				if av == bv && ai < bi {
					av = bv // equal values: the element's value, the lower index
					continue
				}
				av, ai = bv, bi
			}
			ov[k], oi[k] = av, ai
		}
	}
}
