package vhlo

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/mlirbc"
)

// typeKind classifies a decoded type.
type typeKind uint8

const (
	kindOther  typeKind = iota // known but not representable in gojax IR
	kindElem                   // a scalar element type (only inside tensors)
	kindIndex                  // index (only in tensors used as integer lists)
	kindTensor                 // ranked static tensor
	kindToken
	kindTuple
	kindFunc
)

// vtype is a decoded VHLO or builtin type. Types gojax cannot represent
// (dynamic shapes, unranked…) decode to kindOther with a reason,
// so they only fail when something actually uses them.
type vtype struct {
	kind  typeKind
	elem  ir.ElemType
	shape []int64 // kindTensor
	ir    ir.Type // kindTensor, kindToken, kindTuple
	fn    *ir.FuncType
	desc  string // spelling for messages
	why   string // kindOther: why gojax cannot use it
	// isNone marks the none type (VHLO's "unset" marker inside TypeV1).
	isNone bool
	// quant is set on the element type !quant.uniform, whose elem is the
	// storage type.
	quant *ir.Quant
}

func (t *vtype) String() string { return t.desc }

// irType returns the value type, or an error explaining why there is none.
func (t *vtype) irType() (ir.Type, error) {
	switch t.kind {
	case kindTensor, kindToken, kindTuple:
		return t.ir, nil
	case kindElem, kindIndex:
		return nil, fmt.Errorf("scalar type %s used as a value type", t.desc)
	case kindFunc:
		return nil, fmt.Errorf("function type %s used as a value type", t.desc)
	}
	return nil, fmt.Errorf("unsupported type %s: %s", t.desc, t.why)
}

// dynamicDim is how MLIR encodes "?" in a shape.
const dynamicDim = math.MinInt64

// vhloScalarTypes maps VHLO type codes without payload to element types.
var vhloScalarTypes = map[uint64]ir.ElemType{
	0: ir.Pred, 2: ir.BF16, 3: ir.F16, 4: ir.F32, 5: ir.F64,
	6: ir.F8E4M3FN, 7: ir.F8E5M2,
	10: ir.S4, 11: ir.S8, 12: ir.S16, 13: ir.S32, 14: ir.S64,
	15: ir.U4, 16: ir.U8, 17: ir.U16, 18: ir.U32, 19: ir.U64,
	27: ir.F8E4M3FNUZ, 28: ir.F8E5M2FNUZ, 29: ir.F8E4M3B11FNUZ,
	31: ir.S2, 32: ir.U2,
	35: ir.F8E4M3, 36: ir.F8E3M4, 37: ir.F4E2M1FN, 38: ir.F6E2M3FN, 39: ir.F6E3M2FN,
	40: ir.F8E8M0FNU,
}

func (d *decoder) typeAt(idx uint64) (*vtype, error) {
	v, err := d.f.AttrTypes.DecodeType(idx, d.decodeTypeEntry)
	if err != nil {
		return nil, err
	}
	return v.(*vtype), nil
}

func (d *decoder) readType(r *mlirbc.Reader) (*vtype, error) {
	idx, err := r.VarInt()
	if err != nil {
		return nil, err
	}
	return d.typeAt(idx)
}

func (d *decoder) readTypes(r *mlirbc.Reader) ([]*vtype, error) {
	n, err := r.Count(1)
	if err != nil {
		return nil, err
	}
	out := make([]*vtype, n)
	for i := range out {
		if out[i], err = d.readType(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (d *decoder) decodeTypeEntry(e mlirbc.Entry) (any, error) {
	r := e.Reader("type")
	if !e.Custom {
		text, err := r.CString()
		if err != nil {
			return nil, err
		}
		return &vtype{kind: kindOther, desc: string(text), why: "textual type entries are not decoded"}, nil
	}
	var t *vtype
	var err error
	switch e.Dialect {
	case "vhlo":
		t, err = d.vhloType(r)
	case "builtin":
		t, err = d.builtinType(r)
	case "stablehlo":
		// Ops the serializer leaves outside VHLO (Shardy's) keep StableHLO
		// types, reached through casts: its one bytecode type, code 0, is
		// the token.
		code, cerr := r.VarInt()
		if cerr != nil {
			return nil, cerr
		}
		if code != 0 {
			return &vtype{kind: kindOther, desc: "!stablehlo.<type>", why: fmt.Sprintf("stablehlo type code %d is not supported", code)}, nil
		}
		t = &vtype{kind: kindToken, ir: &ir.TokenType{}, desc: "!stablehlo.token"}
	default:
		return &vtype{kind: kindOther, desc: "!" + e.Dialect + ".<type>", why: "types of dialect " + e.Dialect + " are not supported"}, nil
	}
	if err != nil {
		return nil, err
	}
	if !r.Empty() {
		return nil, r.Errorf("%d trailing bytes after type %s", r.Len(), t.desc)
	}
	return t, nil
}

func elemType(e ir.ElemType) *vtype { return &vtype{kind: kindElem, elem: e, desc: e.String()} }

func (d *decoder) vhloType(r *mlirbc.Reader) (*vtype, error) {
	code, err := r.VarInt()
	if err != nil {
		return nil, err
	}
	if e, ok := vhloScalarTypes[code]; ok {
		return elemType(e), nil
	}
	switch code {
	case 1: // ComplexV1
		et, err := d.readType(r)
		if err != nil {
			return nil, err
		}
		return complexOf(et), nil
	case 8: // FunctionV1
		ins, err := d.readTypes(r)
		if err != nil {
			return nil, err
		}
		outs, err := d.readTypes(r)
		if err != nil {
			return nil, err
		}
		return funcType(ins, outs), nil
	case 9:
		return &vtype{kind: kindIndex, desc: "index"}, nil
	case 20, 21: // RankedTensorV1 [WithEncoding]
		var enc any
		if code == 21 {
			if enc, err = d.readAttr(r); err != nil {
				return nil, err
			}
		}
		shape, err := r.SignedVarInts()
		if err != nil {
			return nil, err
		}
		et, err := d.readType(r)
		if err != nil {
			return nil, err
		}
		return tensorOf(shape, et, enc), nil
	case 22:
		return &vtype{kind: kindToken, ir: &ir.TokenType{}, desc: "!stablehlo.token"}, nil
	case 23: // TupleV1
		elems, err := d.readTypes(r)
		if err != nil {
			return nil, err
		}
		return tupleOf(elems), nil
	case 24: // UniformQuantizedV1
		return d.quantized(r, false)
	case 30: // UniformQuantizedPerAxisV1
		return d.quantized(r, true)
	case 25: // UnrankedTensorV1
		et, err := d.readType(r)
		if err != nil {
			return nil, err
		}
		return &vtype{kind: kindOther, desc: "tensor<*x" + et.desc + ">", why: "unranked tensors are not supported"}, nil
	case 26:
		return &vtype{kind: kindOther, desc: "!shape.witness", why: "witness types are not supported"}, nil
	case 33:
		return &vtype{kind: kindOther, desc: "none", why: "none type is not a value type", isNone: true}, nil
	case 34:
		return &vtype{kind: kindOther, desc: "tf32", why: "tf32 is not a gojax element type"}, nil
	case 41: // RankedBufferV1
		shape, err := r.SignedVarInts()
		if err != nil {
			return nil, err
		}
		et, err := d.readType(r)
		if err != nil {
			return nil, err
		}
		return &vtype{kind: kindOther, desc: "buffer<" + shapeString(shape) + et.desc + ">", why: "buffer types are not supported"}, nil
	case 42: // FutureV1
		elems, err := d.readTypes(r)
		if err != nil {
			return nil, err
		}
		return &vtype{kind: kindOther, desc: fmt.Sprintf("!stablehlo.future<%d types>", len(elems)), why: "async future types are not supported"}, nil
	}
	return nil, r.Errorf("unknown vhlo type code %d", code)
}

// quantized decodes a !quant.uniform element type. VHLO writes: flags
// (bit 0: signed storage), storage type, expressed type, then per tensor
// scale (an f64 as its bits), zero point, storage min and max; per axis the
// quantized dimension, storage min and max, the scales and the zero points.
func (d *decoder) quantized(r *mlirbc.Reader, perAxis bool) (*vtype, error) {
	flags, err := r.VarInt()
	if err != nil {
		return nil, err
	}
	st, err := d.readType(r)
	if err != nil {
		return nil, err
	}
	et, err := d.readType(r)
	if err != nil {
		return nil, err
	}
	q := &ir.Quant{Axis: -1}
	scale := func() (float64, error) {
		bits, _, err := r.APInt(64)
		return math.Float64frombits(bits), err
	}
	if perAxis {
		axis, err := r.VarInt()
		if err != nil {
			return nil, err
		}
		q.Axis = int(min(axis, math.MaxInt32))
		if q.Min, err = r.SignedVarInt(); err != nil {
			return nil, err
		}
		if q.Max, err = r.SignedVarInt(); err != nil {
			return nil, err
		}
		n, err := r.Count(1)
		if err != nil {
			return nil, err
		}
		q.Scales = make([]float64, n)
		for i := range q.Scales {
			if q.Scales[i], err = scale(); err != nil {
				return nil, err
			}
		}
		if q.ZeroPoints, err = r.SignedVarInts(); err != nil {
			return nil, err
		}
	} else {
		s, err := scale()
		if err != nil {
			return nil, err
		}
		q.Scales = []float64{s}
		zp, err := r.SignedVarInt()
		if err != nil {
			return nil, err
		}
		q.ZeroPoints = []int64{zp}
		if q.Min, err = r.SignedVarInt(); err != nil {
			return nil, err
		}
		if q.Max, err = r.SignedVarInt(); err != nil {
			return nil, err
		}
	}
	return quantElem(flags&1 != 0, st, et, q), nil
}

// quantElem checks the parameters the spec requires of a quantized element
// type (constraints C1-C9 of "QuantizedTensorElementType") and makes it an
// element type whose elem is the storage type. A type that breaks them
// decodes to kindOther, failing only where a value has it.
func quantElem(signed bool, st, et *vtype, q *ir.Quant) *vtype {
	desc := "!quant.uniform<" + st.desc + ":" + et.desc + ">"
	bad := func(why string) *vtype { return &vtype{kind: kindOther, desc: desc, why: why} }
	if st.kind != kindElem || !st.elem.IsInteger() && st.elem != ir.Pred {
		return bad("storage type " + st.desc + " is not an integer type")
	}
	// The storage type is signless in MLIR; the flags give its signedness
	// (builtinInts: 1 signed, 2 unsigned).
	signedness := uint64(2)
	if signed {
		signedness = 1
	}
	storage, ok := builtinInts[[2]uint64{uint64(st.elem.Bits()), signedness}]
	if !ok || st.elem.Bits() < 2 {
		return bad("storage type " + st.desc + " is not supported")
	}
	if et.kind != kindElem {
		return bad("expressed type " + et.desc + " is not a float type")
	}
	q.Expressed = et.elem
	if err := ir.CheckQuant(storage, q); err != nil {
		return bad(err.Error())
	}
	return &vtype{kind: kindElem, elem: storage, quant: q, desc: q.ElemString(storage)}
}

func complexOf(et *vtype) *vtype {
	if et.kind == kindElem {
		switch et.elem {
		case ir.F32:
			return elemType(ir.C64)
		case ir.F64:
			return elemType(ir.C128)
		}
	}
	return &vtype{kind: kindOther, desc: "complex<" + et.desc + ">", why: "only complex<f32> and complex<f64> are supported"}
}

func funcType(ins, outs []*vtype) *vtype {
	ft := &ir.FuncType{}
	// Signatures of big functions run to kilobytes: one buffer, sized once.
	n := len("() -> ()")
	for _, ts := range [2][]*vtype{ins, outs} {
		for _, t := range ts {
			n += len(t.desc) + len(", ")
		}
	}
	var b strings.Builder
	b.Grow(n)
	descs := func(ts []*vtype) {
		for i, t := range ts {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(t.desc)
		}
	}
	b.WriteByte('(')
	descs(ins)
	b.WriteString(") -> (")
	descs(outs)
	b.WriteByte(')')
	t := &vtype{kind: kindFunc, fn: ft, desc: b.String()}
	if len(ins) > 0 {
		ft.Inputs = make([]ir.Type, 0, len(ins))
	}
	if len(outs) > 0 {
		ft.Results = make([]ir.Type, 0, len(outs))
	}
	for _, in := range ins {
		it, err := in.irType()
		if err != nil {
			return &vtype{kind: kindOther, desc: t.desc, why: err.Error()}
		}
		ft.Inputs = append(ft.Inputs, it)
	}
	for _, out := range outs {
		ot, err := out.irType()
		if err != nil {
			return &vtype{kind: kindOther, desc: t.desc, why: err.Error()}
		}
		ft.Results = append(ft.Results, ot)
	}
	return t
}

func shapeString(shape []int64) string {
	var b strings.Builder
	for _, d := range shape {
		if d == dynamicDim {
			b.WriteString("?x")
		} else {
			var buf [24]byte
			b.Write(strconv.AppendInt(buf[:0], d, 10))
			b.WriteByte('x')
		}
	}
	return b.String()
}

func tensorOf(shape []int64, et *vtype, encoding any) *vtype {
	desc := "tensor<" + shapeString(shape) + et.desc + ">"
	dynamic := false
	for _, d := range shape {
		if d == dynamicDim {
			dynamic = true
		} else if d < 0 {
			return &vtype{kind: kindOther, desc: desc, why: fmt.Sprintf("negative dimension %d", d)}
		}
	}
	if encoding != nil {
		if bounds, ok := encoding.(typeExtensions); ok {
			desc = strings.TrimSuffix(desc, ">") + fmt.Sprintf(", #stablehlo.bounds<%v>>", []int64(bounds))
			return &vtype{kind: kindOther, desc: desc, why: "bounded-dynamic shapes are not supported"}
		}
		return &vtype{kind: kindOther, desc: desc, why: "tensor encodings are not supported"}
	}
	if dynamic {
		return &vtype{kind: kindOther, desc: desc, why: "dynamic dimensions (shape polymorphism) are not supported; refine the module to static shapes first"}
	}
	elem := et.elem
	if et.kind == kindIndex {
		// gojax has no index element type; index is 64-bit, as in XLA.
		elem = ir.S64
	} else if et.kind != kindElem {
		why := "element type " + et.desc + " is not supported"
		if et.why != "" {
			why = "element type " + et.desc + ": " + et.why
		}
		return &vtype{kind: kindOther, desc: desc, why: why}
	}
	// A dims product that overflows cannot describe real data.
	n := int64(1)
	for _, d := range shape {
		if d != 0 && n > math.MaxInt64/d {
			return &vtype{kind: kindOther, desc: desc, why: "element count overflows"}
		}
		n *= d
	}
	tt := ir.Tensor(elem, shape...)
	if q := et.quant; q != nil {
		if err := ir.CheckQuantShape(q, shape); err != nil {
			return &vtype{kind: kindOther, desc: desc, why: err.Error()}
		}
		tt.Quant = q
	}
	return &vtype{kind: kindTensor, elem: elem, shape: tt.Shape, ir: tt, desc: tt.String()}
}

func tupleOf(elems []*vtype) *vtype {
	tt := &ir.TupleType{}
	parts := make([]string, len(elems))
	for i, e := range elems {
		parts[i] = e.desc
	}
	desc := "tuple<" + strings.Join(parts, ", ") + ">"
	for _, e := range elems {
		et, err := e.irType()
		if err != nil {
			return &vtype{kind: kindOther, desc: desc, why: err.Error()}
		}
		tt.Elems = append(tt.Elems, et)
	}
	return &vtype{kind: kindTuple, ir: tt, desc: desc}
}

// builtinType decodes builtin dialect types (mixed serialization: sdy ops and
// unrealized_conversion_cast use builtin tensor types).
func (d *decoder) builtinType(r *mlirbc.Reader) (*vtype, error) {
	code, err := r.VarInt()
	if err != nil {
		return nil, err
	}
	switch code {
	case 0: // IntegerType: (width<<2)|signedness
		ws, err := r.VarInt()
		if err != nil {
			return nil, err
		}
		return builtinInt(ws>>2, ws&3), nil
	case 1:
		return &vtype{kind: kindIndex, desc: "index"}, nil
	case 2: // FunctionType
		ins, err := d.readTypes(r)
		if err != nil {
			return nil, err
		}
		outs, err := d.readTypes(r)
		if err != nil {
			return nil, err
		}
		return funcType(ins, outs), nil
	case 3:
		return elemType(ir.BF16), nil
	case 4:
		return elemType(ir.F16), nil
	case 5:
		return elemType(ir.F32), nil
	case 6:
		return elemType(ir.F64), nil
	case 7, 8:
		return &vtype{kind: kindOther, desc: []string{"f80", "f128"}[code-7], why: "extended floats are not supported"}, nil
	case 9:
		et, err := d.readType(r)
		if err != nil {
			return nil, err
		}
		return complexOf(et), nil
	case 12:
		return &vtype{kind: kindOther, desc: "none", why: "none type is not a value type", isNone: true}, nil
	case 13, 14: // RankedTensorType [WithEncoding]
		var enc any
		if code == 14 {
			if enc, err = d.readAttr(r); err != nil {
				return nil, err
			}
		}
		shape, err := r.SignedVarInts()
		if err != nil {
			return nil, err
		}
		et, err := d.readType(r)
		if err != nil {
			return nil, err
		}
		return tensorOf(shape, et, enc), nil
	case 15:
		elems, err := d.readTypes(r)
		if err != nil {
			return nil, err
		}
		return tupleOf(elems), nil
	case 18:
		et, err := d.readType(r)
		if err != nil {
			return nil, err
		}
		return &vtype{kind: kindOther, desc: "tensor<*x" + et.desc + ">", why: "unranked tensors are not supported"}, nil
	}
	// Memrefs, vectors and newer builtin float types: keep the entry opaque.
	return &vtype{kind: kindOther, desc: fmt.Sprintf("builtin type #%d", code), why: "builtin type not supported"}, nil
}

// builtinInts maps builtin IntegerType (width, signedness) to element types;
// signedness is 0 signless, 1 signed, 2 unsigned.
var builtinInts = map[[2]uint64]ir.ElemType{
	{1, 0}: ir.Pred, {1, 1}: ir.S1, {1, 2}: ir.U1,
	{2, 0}: ir.S2, {2, 1}: ir.S2, {2, 2}: ir.U2,
	{4, 0}: ir.S4, {4, 1}: ir.S4, {4, 2}: ir.U4,
	{8, 0}: ir.S8, {8, 1}: ir.S8, {8, 2}: ir.U8,
	{16, 0}: ir.S16, {16, 1}: ir.S16, {16, 2}: ir.U16,
	{32, 0}: ir.S32, {32, 1}: ir.S32, {32, 2}: ir.U32,
	{64, 0}: ir.S64, {64, 1}: ir.S64, {64, 2}: ir.U64,
}

func builtinInt(width, signedness uint64) *vtype {
	if e, ok := builtinInts[[2]uint64{width, signedness}]; ok {
		return elemType(e)
	}
	return &vtype{kind: kindOther, desc: fmt.Sprintf("i%d", width), why: "integer width not supported"}
}
