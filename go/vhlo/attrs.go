package vhlo

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/mlirbc"
)

// typeExtensions is VHLO's TypeExtensionsV1Attr (bounds of bounded-dynamic
// tensors); it only ever appears as a tensor encoding.
type typeExtensions []int64

// locAttr is a decoded location attribute.
// Pointer-shaped, it is stored in the attribute cache without boxing; nil is
// the unknown location.
type locAttr struct{ loc *ir.Location }

// newLocAttr keeps one copy of l for all the ops that refer to it; an
// unknown location is nil. Copies come from a slab: an artifact has hundreds.
func (d *decoder) newLocAttr(l ir.Location) locAttr {
	if !l.Known() {
		return locAttr{}
	}
	p := d.locs.One()
	*p = l
	return locAttr{p}
}

func (d *decoder) attrAt(idx uint64) (any, error) {
	return d.f.AttrTypes.DecodeAttr(idx, d.decodeAttrEntry)
}

func (d *decoder) readAttr(r *mlirbc.Reader) (any, error) {
	idx, err := r.VarInt()
	if err != nil {
		return nil, err
	}
	return d.attrAt(idx)
}

// irAttrAt decodes attribute idx as a gojax attribute.
func (d *decoder) irAttrAt(idx uint64) (ir.Attr, error) {
	a, err := d.attrAt(idx)
	if err != nil {
		return nil, err
	}
	return asIR(a)
}

func asIR(a any) (ir.Attr, error) {
	switch a := a.(type) {
	case ir.Attr:
		return a, nil
	case typeExtensions:
		return nil, fmt.Errorf("#stablehlo.bounds used as an attribute value")
	case locAttr:
		return nil, fmt.Errorf("location used as an attribute value")
	case sdyVal:
		return ir.OpaqueAttr{Dialect: "sdy", Text: a.full}, nil
	}
	return nil, fmt.Errorf("unexpected attribute %T", a)
}

func (d *decoder) readIRAttr(r *mlirbc.Reader) (ir.Attr, error) {
	a, err := d.readAttr(r)
	if err != nil {
		return nil, err
	}
	return asIR(a)
}

func (d *decoder) readIRAttrs(r *mlirbc.Reader) ([]ir.Attr, error) {
	n, err := r.Count(1)
	if err != nil {
		return nil, err
	}
	out := make([]ir.Attr, n)
	for i := range out {
		if out[i], err = d.readIRAttr(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (d *decoder) decodeAttrEntry(e mlirbc.Entry) (any, error) {
	r := e.Reader("attribute")
	if !e.Custom {
		text, err := r.CString()
		if err != nil {
			return nil, err
		}
		return ir.OpaqueAttr{Dialect: e.Dialect, Text: string(text)}, nil
	}
	var a any
	var err error
	switch e.Dialect {
	case "vhlo":
		a, err = d.vhloAttr(r)
	case "builtin":
		a, err = d.builtinAttr(r)
	case "sdy":
		// The sdy decoder keeps its reader; give it a copy so that the
		// common reader above can stay on the stack.
		sr := new(mlirbc.Reader)
		*sr = *r
		a, err = d.sdyAttr(sr, e)
		*r = *sr
	default:
		// Foreign dialects pass through mixed serialization unchanged; keep
		// them visible but uninterpreted.
		return ir.OpaqueAttr{Dialect: e.Dialect, Text: fmt.Sprintf("#%s<%x>", e.Dialect, e.Data)}, nil
	}
	if err != nil {
		return nil, err
	}
	if !r.Empty() {
		return nil, r.Errorf("%d trailing bytes after attribute", r.Len())
	}
	return a, nil
}

var enumNames = map[uint64]struct {
	kind   string
	values []string // index = encoded value; "" = invalid
}{
	3:  {"comparison_direction", []string{"EQ", "NE", "GE", "GT", "LE", "LT"}},
	4:  {"comparison_type", []string{"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}},
	5:  {"custom_call_api_version", []string{"API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING", "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"}},
	7:  {"fft_type", []string{"FFT", "IFFT", "RFFT", "IRFFT"}},
	11: {"precision", []string{"DEFAULT", "HIGH", "HIGHEST"}},
	12: {"rng_algorithm", []string{"DEFAULT", "THREE_FRY", "PHILOX"}},
	13: {"rng_distribution", []string{"", "UNIFORM", "NORMAL"}},
	16: {"transpose", []string{"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}},
	19: {"result_accuracy_mode", []string{"DEFAULT", "HIGHEST", "TOLERANCE"}},
}

func (d *decoder) vhloAttr(r *mlirbc.Reader) (any, error) {
	code, err := r.VarInt()
	if err != nil {
		return nil, err
	}
	if en, ok := enumNames[code]; ok {
		v, err := r.VarInt()
		if err != nil {
			return nil, err
		}
		if v >= uint64(len(en.values)) || en.values[v] == "" {
			return nil, r.Errorf("invalid %s value %d", en.kind, v)
		}
		return ir.EnumAttr{Kind: en.kind, Value: en.values[v]}, nil
	}
	switch code {
	case 1: // ArrayV1
		elems, err := d.readIRAttrs(r)
		if err != nil {
			return nil, err
		}
		return ir.ArrayAttr{Elems: elems}, nil
	case 2: // BooleanV1
		v, err := r.VarInt()
		if err != nil {
			return nil, err
		}
		if v > 1 {
			return nil, r.Errorf("invalid boolean %d", v)
		}
		return ir.BoolAttr{Value: v == 1}, nil
	case 6: // DictionaryV1: (name, value) pairs
		n, err := r.Count(2)
		if err != nil {
			return nil, err
		}
		dict := make(ir.Attrs, n)
		for i := 0; i < n; i++ {
			name, err := d.readIRAttr(r)
			if err != nil {
				return nil, err
			}
			s, ok := name.(ir.StringAttr)
			if !ok {
				return nil, r.Errorf("dictionary key is %s, not a string", name)
			}
			if dict[s.Value], err = d.readIRAttr(r); err != nil {
				return nil, err
			}
		}
		return ir.DictAttr{Entries: dict}, nil
	case 8: // FloatV1
		t, err := d.readType(r)
		if err != nil {
			return nil, err
		}
		return d.readFloat(r, t)
	case 9: // IntegerV1
		t, err := d.readType(r)
		if err != nil {
			return nil, err
		}
		return d.readInteger(r, t)
	case 10: // OutputOperandAliasV1
		out, err := r.SignedVarInts()
		if err != nil {
			return nil, err
		}
		idx, err := r.SignedVarInt()
		if err != nil {
			return nil, err
		}
		opnd, err := r.SignedVarInts()
		if err != nil {
			return nil, err
		}
		return ir.OutputOperandAliasAttr{OutputTupleIndices: out, OperandIndex: idx, OperandTupleIndices: opnd}, nil
	case 14: // StringV1
		s, err := d.f.ReadString(r)
		if err != nil {
			return nil, err
		}
		return ir.StringAttr{Value: s}, nil
	case 15: // TensorV1
		t, err := d.readType(r)
		if err != nil {
			return nil, err
		}
		blob, err := r.Blob()
		if err != nil {
			return nil, err
		}
		return tensorAttr(r, t, blob)
	case 17: // TypeV1
		t, err := d.readType(r)
		if err != nil {
			return nil, err
		}
		return d.typeAttr(t), nil
	case 18: // TypeExtensionsV1
		b, err := r.SignedVarInts()
		if err != nil {
			return nil, err
		}
		return typeExtensions(b), nil
	case 20: // ResultAccuracyV1
		atol, _, err := r.APInt(64)
		if err != nil {
			return nil, err
		}
		rtol, _, err := r.APInt(64)
		if err != nil {
			return nil, err
		}
		ulps, err := r.SignedVarInt()
		if err != nil {
			return nil, err
		}
		mode, err := d.readIRAttr(r)
		if err != nil {
			return nil, err
		}
		return ir.DictAttr{Entries: ir.Attrs{
			"atol": ir.FloatAttr{Value: math.Float64frombits(atol), Type: ir.F64},
			"rtol": ir.FloatAttr{Value: math.Float64frombits(rtol), Type: ir.F64},
			"ulps": ir.IntAttr{Value: ulps, Type: ir.S64},
			"mode": mode,
		}}, nil
	case 21: // SubAxisInfoV1
		pre, err := r.SignedVarInt()
		if err != nil {
			return nil, err
		}
		size, err := r.SignedVarInt()
		if err != nil {
			return nil, err
		}
		return ir.DictAttr{Entries: ir.Attrs{"pre_size": ir.IntAttr{Value: pre, Type: ir.S64}, "size": ir.IntAttr{Value: size, Type: ir.S64}}}, nil
	case 22: // AxisRefV1
		name, err := d.readIRAttr(r)
		if err != nil {
			return nil, err
		}
		has, err := r.VarInt()
		if err != nil {
			return nil, err
		}
		e := ir.Attrs{"name": name}
		if has != 0 {
			if e["sub_axis_info"], err = d.readIRAttr(r); err != nil {
				return nil, err
			}
		}
		return ir.DictAttr{Entries: e}, nil
	case 23: // ReplicaGroupMeshAxesV1
		mesh, err := d.readIRAttr(r)
		if err != nil {
			return nil, err
		}
		axes, err := d.readIRAttr(r)
		if err != nil {
			return nil, err
		}
		return ir.DictAttr{Entries: ir.Attrs{"mesh": mesh, "axes": axes}}, nil
	case 24: // MeshAxisV1
		name, err := d.readIRAttr(r)
		if err != nil {
			return nil, err
		}
		size, err := r.SignedVarInt()
		if err != nil {
			return nil, err
		}
		return ir.DictAttr{Entries: ir.Attrs{"name": name, "size": ir.IntAttr{Value: size, Type: ir.S64}}}, nil
	case 25: // MeshV1
		axes, err := d.readIRAttr(r)
		if err != nil {
			return nil, err
		}
		e := ir.Attrs{"axes": axes}
		idx, present, err := r.VarIntWithFlag()
		if err != nil {
			return nil, err
		}
		if present {
			if e["device_ids"], err = d.irAttrAt(idx); err != nil {
				return nil, err
			}
		}
		return ir.DictAttr{Entries: e}, nil
	}
	return nil, r.Errorf("unknown vhlo attribute code %d", code)
}

// funcTypeDialect tags the opaque attribute that carries a function type
// (gojax IR has no function type attribute); decoder.funcTypes resolves it.
const funcTypeDialect = "vhlo.function_type"

// noneTypeAttr is #vhlo.type_v1<!vhlo.none_v1>, VHLO's marker for an unset
// optional attribute (e.g. the dot_general algorithm fields); the reader
// drops such attributes.
var noneTypeAttr = ir.OpaqueAttr{Dialect: "vhlo", Text: "none"}

func (d *decoder) typeAttr(t *vtype) ir.Attr {
	if t.isNone {
		return noneTypeAttr
	}
	if t.kind == kindFunc || (t.kind == kindOther && strings.HasPrefix(t.desc, "(")) {
		d.funcTypes[t.desc] = t
		return ir.OpaqueAttr{Dialect: funcTypeDialect, Text: t.desc}
	}
	if it, err := t.irType(); err == nil {
		return ir.TypeAttr{Type: it}
	}
	if t.kind == kindElem {
		// Element types (e.g. dot algorithm accumulation types) are kept as
		// scalar tensor types so they stay typed.
		return ir.TypeAttr{Type: ir.Tensor(t.elem)}
	}
	return ir.OpaqueAttr{Dialect: "vhlo", Text: t.desc}
}

// readFloat reads an APFloat of the type's width.
func (d *decoder) readFloat(r *mlirbc.Reader, t *vtype) (ir.Attr, error) {
	if t.kind != kindElem || !t.elem.IsFloat() {
		return nil, r.Errorf("float attribute of type %s", t.desc)
	}
	bits, _, err := r.APInt(t.elem.Bits())
	if err != nil {
		return nil, err
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], bits)
	return ir.FloatAttr{Value: floatValue(t.elem, b[:]), Type: t.elem}, nil
}

// readInteger reads an APInt of the type's width; the value is sign- or
// zero-extended according to the type.
func (d *decoder) readInteger(r *mlirbc.Reader, t *vtype) (ir.Attr, error) {
	width := 64
	elem := ir.Invalid // index
	switch t.kind {
	case kindIndex:
	case kindElem:
		if !t.elem.IsInteger() && t.elem != ir.Pred {
			return nil, r.Errorf("integer attribute of type %s", t.desc)
		}
		elem, width = t.elem, t.elem.Bits()
	default:
		return nil, r.Errorf("integer attribute of type %s", t.desc)
	}
	v, wide, err := r.APInt(width)
	if err != nil {
		return nil, err
	}
	if wide {
		return nil, r.Errorf("integer wider than 64 bits")
	}
	if elem == ir.Pred {
		return ir.BoolAttr{Value: v&1 != 0}, nil
	}
	return ir.IntAttr{Value: extend(v, width, elem.IsSigned() || elem == ir.Invalid), Type: elem}, nil
}

// extend sign- or zero-extends the low width bits of v.
func extend(v uint64, width int, signed bool) int64 {
	if width >= 64 {
		return int64(v)
	}
	v &= 1<<width - 1
	if signed && v&(1<<(width-1)) != 0 {
		v |= ^uint64(0) << width
	}
	return int64(v)
}
