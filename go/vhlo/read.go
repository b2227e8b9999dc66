package vhlo

import (
	"fmt"
	"strings"

	"github.com/gojax/gojax/go/internal/slab"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/mlirbc"
)

// decoder holds the per-artifact state.
type decoder struct {
	f *mlirbc.File
	// funcTypes resolves function types carried as opaque attributes.
	funcTypes map[string]*vtype
	opts      readOptions
	funcErrs  map[string]error
	// opIndex (dense, see denseOpIndex) gives 1 + the position in opSlots
	// of an op's decoded name and attributes; opCache takes what it cannot.
	opIndex        []int32
	opSlots        []opSlot
	nProps, nAttrs int
	opCache        map[opKey]decodedOp
	// refs collects the symbols referred to by the ops decoded since the
	// module walk last reset it (one function's worth).
	symRefs []string

	// The values of the function being converted sit in table, at their
	// generic value's ID less tableLo (a function's ids are contiguous);
	// users[id] holds the few converted elsewhere (ops outside
	// functions).
	table   []ir.Value
	tableLo int
	users   []*ir.Value

	ops  slab.Slab[ir.Op]
	vals slab.Slab[ir.Value]
	refs slab.Slab[*ir.Value]
	// blockOps holds the op lists of the blocks.
	blockOps slab.Slab[*ir.Op]
	// The regions and blocks of ops, the lists that hold them, and the
	// decoded locations.
	blocks     slab.Slab[ir.Block]
	regions    slab.Slab[ir.Region]
	blockRefs  slab.Slab[*ir.Block]
	regionRefs slab.Slab[*ir.Region]
	locs       slab.Slab[ir.Location]
	// valTypes caches result types (see cache.go).
	valTypes []ir.Type
}

// Read decodes a portable artifact into a module. Only the entry function
// ("main", or every public function when there is no main) and the functions
// it reaches through symbol references are decoded and returned.
func Read(code []byte) (*ir.Module, error) {
	m, _, err := read(code, readOptions{})
	return m, err
}

// readOptions tune how much of the module is decoded.
type readOptions struct {
	// allFuncs decodes every function, not only those reachable from the
	// entry function.
	allFuncs bool
	// lenient records per-function failures in funcErrs instead of failing.
	lenient bool
}

func read(code []byte, opts readOptions) (*ir.Module, map[string]error, error) {
	f, err := mlirbc.Parse(code)
	if err != nil {
		return nil, nil, fmt.Errorf("vhlo: %w", err)
	}
	if err := checkProducer(f.Producer); err != nil {
		return nil, nil, err
	}
	// The generic ops are garbage once converted; nothing of them escapes.
	defer f.Release()
	d := &decoder{f: f, funcTypes: map[string]*vtype{}, opts: opts}
	if opts.lenient {
		d.funcErrs = map[string]error{} // the only mode that records them
	}
	top, err := f.TopLevel(true)
	if err != nil {
		return nil, nil, fmt.Errorf("vhlo: %w", err)
	}
	if len(top) != 1 || top[0].Name() != "builtin.module" {
		names := make([]string, len(top))
		for i, op := range top {
			names[i] = op.Name()
		}
		return nil, nil, fmt.Errorf("vhlo: expected one builtin.module at top level, got [%s]", strings.Join(names, ", "))
	}
	m, err := d.module(top[0])
	if err != nil {
		return nil, nil, fmt.Errorf("vhlo: %w", err)
	}
	m.Producer = f.Producer
	return m, d.funcErrs, nil
}

// value returns the ir value that generic value gv converts to, allocating
// it on first use; defined reports whether it was converted already.
func (d *decoder) value(id uint32) (v *ir.Value, defined bool) {
	if i := int(id) - d.tableLo; i >= 0 && i < len(d.table) {
		v = &d.table[i]
		return v, v.Def != nil || v.Block != nil
	}
	if int(id) >= len(d.users) {
		d.growUsers()
	}
	if v = d.users[id]; v != nil {
		return v, v.Def != nil || v.Block != nil
	}
	v = &d.vals.Take(1)[0]
	d.users[id] = v
	return v, false
}

// growUsers makes room for every value the file has handed out so far.
func (d *decoder) growUsers() {
	if n := d.f.NumValues(); n > len(d.users) {
		d.users = append(d.users, make([]*ir.Value, n-len(d.users))...)
	}
}
