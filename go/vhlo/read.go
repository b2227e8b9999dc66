package vhlo

import (
	"fmt"
	"strings"

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

	// users[gv.ID] is the converted form of generic value gv.
	users []*ir.Value

	ops  pieces[ir.Op]
	vals pieces[ir.Value]
	refs pieces[*ir.Value]
	// blockOps holds the op lists of the blocks, types the argument types
	// of the block being converted (scratch).
	blockOps pieces[*ir.Op]
	types    []ir.Type
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
	d := &decoder{f: f, funcTypes: map[string]*vtype{}, opts: opts, funcErrs: map[string]error{}}
	top, err := f.TopLevel(true)
	if err != nil {
		return nil, nil, fmt.Errorf("vhlo: %w", err)
	}
	if len(top) != 1 || top[0].Name != "builtin.module" {
		names := make([]string, len(top))
		for i, op := range top {
			names[i] = op.Name
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

// setUser records v as the converted form of gv.
func (d *decoder) setUser(gv *mlirbc.Value, v *ir.Value) {
	if int(gv.ID) >= len(d.users) {
		d.growUsers()
	}
	d.users[gv.ID] = v
}

// user returns the converted form of gv, nil before its definition.
func (d *decoder) user(gv *mlirbc.Value) *ir.Value {
	if int(gv.ID) < len(d.users) {
		return d.users[gv.ID]
	}
	return nil
}

// growUsers makes room for every value the file has handed out so far.
func (d *decoder) growUsers() {
	if n := d.f.NumValues(); n > len(d.users) {
		d.users = append(d.users, make([]*ir.Value, n-len(d.users))...)
	}
}
