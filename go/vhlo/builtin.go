package vhlo

import (
	"fmt"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/mlirbc"
)

// builtinAttr decodes builtin dialect attributes (BuiltinDialectBytecode):
// locations, the module and discardable attribute dictionaries, and values
// mixed serialization leaves in builtin form.
func (d *decoder) builtinAttr(r *mlirbc.Reader) (any, error) {
	code, err := r.VarInt()
	if err != nil {
		return nil, err
	}
	switch code {
	case 0: // ArrayAttr
		elems, err := d.readIRAttrs(r)
		if err != nil {
			return nil, err
		}
		return ir.ArrayAttr{Elems: elems}, nil
	case 1: // DictionaryAttr: (StringAttr name, attr) pairs
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
	case 2: // StringAttr
		s, err := d.f.ReadString(r)
		if err != nil {
			return nil, err
		}
		return ir.StringAttr{Value: s}, nil
	case 3: // StringAttrWithType
		s, err := d.f.ReadString(r)
		if err != nil {
			return nil, err
		}
		if _, err := d.readType(r); err != nil {
			return nil, err
		}
		return ir.StringAttr{Value: s}, nil
	case 4: // FlatSymbolRefAttr
		name, err := d.readIRAttr(r)
		if err != nil {
			return nil, err
		}
		s, ok := name.(ir.StringAttr)
		if !ok {
			return nil, r.Errorf("symbol reference to %s", name)
		}
		return ir.SymbolRefAttr{Name: s.Value}, nil
	case 5: // SymbolRefAttr: root + nested references
		name, err := d.readIRAttr(r)
		if err != nil {
			return nil, err
		}
		nested, err := d.readIRAttrs(r)
		if err != nil {
			return nil, err
		}
		s, ok := name.(ir.StringAttr)
		if !ok {
			return nil, r.Errorf("symbol reference to %s", name)
		}
		full := s.Value
		for _, n := range nested {
			if ref, ok := n.(ir.SymbolRefAttr); ok {
				full += "::" + ref.Name
			}
		}
		return ir.SymbolRefAttr{Name: full}, nil
	case 6: // TypeAttr
		t, err := d.readType(r)
		if err != nil {
			return nil, err
		}
		return d.typeAttr(t), nil
	case 7:
		return ir.UnitAttr{}, nil
	case 8: // IntegerAttr
		t, err := d.readType(r)
		if err != nil {
			return nil, err
		}
		return d.readInteger(r, t)
	case 9: // FloatAttr
		t, err := d.readType(r)
		if err != nil {
			return nil, err
		}
		return d.readFloat(r, t)
	case 10, 11, 12, 13, 14, 15, 22:
		return d.location(r, code)
	case 16: // DenseResourceElementsAttr: type, resource handle
		t, err := d.readType(r)
		if err != nil {
			return nil, err
		}
		h, err := r.VarInt()
		if err != nil {
			return nil, err
		}
		if h >= uint64(len(d.f.Resources)) {
			return nil, r.Errorf("resource handle %d out of range (%d resources)", h, len(d.f.Resources))
		}
		res := d.f.Resources[h]
		if res.Kind != mlirbc.ResourceBlob || res.Blob == nil {
			return nil, r.Errorf("dense_resource %q has no blob data", res.Key)
		}
		return tensorAttr(r, t, res.Blob)
	case 17: // DenseArrayAttr: element type, count, raw data
		t, err := d.readType(r)
		if err != nil {
			return nil, err
		}
		n, err := r.VarInt()
		if err != nil {
			return nil, err
		}
		blob, err := r.Blob()
		if err != nil {
			return nil, err
		}
		return denseArray(r, t, n, blob)
	case 18: // DenseIntOrFPElementsAttr: type, raw data
		t, err := d.readType(r)
		if err != nil {
			return nil, err
		}
		blob, err := r.Blob()
		if err != nil {
			return nil, err
		}
		return tensorAttr(r, t, blob)
	case 21: // DistinctAttr
		return d.readAttr(r)
	}
	// String/sparse elements and anything newer: keep visible, uninterpreted.
	r.Skip(uint64(r.Len()))
	return ir.OpaqueAttr{Dialect: "builtin", Text: fmt.Sprintf("#builtin<attr code %d>", code)}, nil
}

func denseArray(r *mlirbc.Reader, t *vtype, n uint64, blob []byte) (ir.Attr, error) {
	if t.kind != kindElem && t.kind != kindIndex {
		return nil, r.Errorf("dense array of %s", t.desc)
	}
	if t.kind == kindIndex || t.elem.IsInteger() {
		w := 8
		if t.kind == kindElem {
			w = t.elem.ByteSize()
		}
		if n > uint64(len(blob)) {
			return nil, r.Errorf("dense array of %d elements has %d bytes", n, len(blob))
		}
		vals, err := int64List(r, blob, int64(n), w)
		if err != nil {
			return nil, err
		}
		return ir.DenseI64Attr{Values: vals}, nil
	}
	if t.elem == ir.Pred {
		if n != uint64(len(blob)) {
			return nil, r.Errorf("dense bool array of %d elements has %d bytes", n, len(blob))
		}
		vals := make([]bool, n)
		for i, b := range blob {
			vals[i] = b != 0
		}
		return ir.DenseBoolAttr{Values: vals}, nil
	}
	size := uint64(t.elem.ByteSize())
	if n*size != uint64(len(blob)) || n > uint64(len(blob)) {
		return nil, r.Errorf("dense array of %d %s has %d bytes", n, t.desc, len(blob))
	}
	elems := make([]ir.Attr, n)
	for i := range elems {
		elems[i] = ir.FloatAttr{Value: floatValue(t.elem, pad8(blob[uint64(i)*size:uint64(i+1)*size])), Type: t.elem}
	}
	return ir.ArrayAttr{Elems: elems}, nil
}

func pad8(b []byte) []byte {
	var out [8]byte
	copy(out[:], b)
	return out[:]
}

// location decodes builtin location attributes into JAX's name and
// file:line:col. CallSiteLoc(callee, caller): the callee is the innermost
// frame, so it wins; NameLoc contributes the outermost name.
func (d *decoder) location(r *mlirbc.Reader, code uint64) (any, error) {
	switch code {
	case 10: // CallSiteLoc
		callee, err := d.readLoc(r)
		if err != nil {
			return nil, err
		}
		caller, err := d.readLoc(r)
		if err != nil {
			return nil, err
		}
		l := callee
		if l.File == "" {
			l.File, l.Line, l.Col = caller.File, caller.Line, caller.Col
		}
		if l.Name == "" {
			l.Name = caller.Name
		}
		return d.newLocAttr(l), nil
	case 11: // FileLineColLoc: filename StringAttr, line, column
		file, err := d.readIRAttr(r)
		if err != nil {
			return nil, err
		}
		line, err := r.VarInt()
		if err != nil {
			return nil, err
		}
		col, err := r.VarInt()
		if err != nil {
			return nil, err
		}
		s, _ := file.(ir.StringAttr)
		return d.newLocAttr(ir.Location{File: s.Value, Line: int(line), Col: int(col)}), nil
	case 22: // FileLineColRange: filename, then [start line, start col, …]
		file, err := d.readIRAttr(r)
		if err != nil {
			return nil, err
		}
		lc, err := r.VarInts()
		if err != nil {
			return nil, err
		}
		s, _ := file.(ir.StringAttr)
		l := ir.Location{File: s.Value}
		if len(lc) > 0 {
			l.Line = int(lc[0])
		}
		if len(lc) > 1 {
			l.Col = int(lc[1])
		}
		return d.newLocAttr(l), nil
	case 12, 13: // FusedLoc [WithMetadata]: first known part wins
		n, err := r.Count(1)
		if err != nil {
			return nil, err
		}
		var l ir.Location
		for i := 0; i < n; i++ {
			part, err := d.readLoc(r)
			if err != nil {
				return nil, err
			}
			if l.File == "" && part.File != "" {
				l.File, l.Line, l.Col = part.File, part.Line, part.Col
			}
			if l.Name == "" {
				l.Name = part.Name
			}
		}
		if code == 13 {
			if _, err := d.readAttr(r); err != nil {
				return nil, err
			}
		}
		return d.newLocAttr(l), nil
	case 14: // NameLoc: name StringAttr, child location
		name, err := d.readIRAttr(r)
		if err != nil {
			return nil, err
		}
		child, err := d.readLoc(r)
		if err != nil {
			return nil, err
		}
		s, _ := name.(ir.StringAttr)
		child.Name = s.Value
		return d.newLocAttr(child), nil
	}
	return locAttr{}, nil // UnknownLoc
}

// readLoc reads a location attribute reference and returns a copy of the
// location (the zero Location when unknown) for composing a new one.
func (d *decoder) readLoc(r *mlirbc.Reader) (ir.Location, error) {
	idx, err := r.VarInt()
	if err != nil {
		return ir.Location{}, err
	}
	if l := d.locAt(idx); l != nil {
		return *l, nil
	}
	return ir.Location{}, nil
}

// locAt decodes a location attribute once and hands out the same pointer to
// every op that carries it. Locations only inform diagnostics, so a location
// that cannot be decoded (or is not a location) gives an unknown location
// (nil) rather than failing the read.
func (d *decoder) locAt(idx uint64) *ir.Location {
	a, err := d.attrAt(idx)
	if err != nil {
		return nil
	}
	if l, ok := a.(locAttr); ok {
		return l.loc
	}
	return nil
}
