package vhlo

import "github.com/gojax/gojax/go/ir"

// Every op looks up its location and its result types. The attribute/type
// table memoizes them, but behind a call, state checks and an interface;
// these dense per-decoder tables (indexed like the table, sized on first
// use) make the common repeat a slice load.

// resultType is the ir type of type entry idx for a value.
func (d *decoder) resultType(idx uint64) (ir.Type, error) {
	if idx < uint64(len(d.valTypes)) {
		if t := d.valTypes[idx]; t != nil {
			return t, nil
		}
	}
	t, err := d.typeAt(idx)
	if err != nil {
		return nil, err
	}
	it, err := t.irType()
	if err != nil {
		return nil, err
	}
	if d.valTypes == nil {
		d.valTypes = make([]ir.Type, d.f.AttrTypes.NumTypes())
	}
	d.valTypes[idx] = it // idx is in range: typeAt succeeded
	return it, nil
}

// locEntry is a decoded location (nil: unknown) once done is set.
type locEntry struct {
	loc  *ir.Location
	done bool
}

// cachedLoc is locAt through the dense table.
func (d *decoder) cachedLoc(idx uint64) *ir.Location {
	if idx < uint64(len(d.locCache)) && d.locCache[idx].done {
		return d.locCache[idx].loc
	}
	l := d.locAt(idx)
	if idx < uint64(d.f.AttrTypes.NumAttrs()) {
		if d.locCache == nil {
			d.locCache = make([]locEntry, d.f.AttrTypes.NumAttrs())
		}
		d.locCache[idx] = locEntry{l, true}
	}
	return l
}
