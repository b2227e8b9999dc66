package vhlo

import "github.com/gojax/gojax/go/ir"

// Every op looks up its result types. The attribute/type table memoizes
// them, but behind a call, state checks and an interface; this dense
// per-decoder table (indexed like the table, sized on first use) makes the
// common repeat a slice load. (Locations, one per op and mostly distinct,
// would need a table as long as the attribute table for little gain.)

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
