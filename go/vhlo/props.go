package vhlo

import (
	"fmt"
	"strings"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/mlirbc"
)

// opAttrs collects an op's attributes: the discardable dictionary, then the
// inherent attributes from its properties (format >= 5).
func (d *decoder) opAttrs(op *mlirbc.Op) (ir.Attrs, error) {
	var dict ir.DictAttr
	if op.HasAttrs {
		a, err := d.irAttrAt(op.Attrs)
		if err != nil {
			return nil, err
		}
		var ok bool
		if dict, ok = a.(ir.DictAttr); !ok {
			return nil, fmt.Errorf("attribute dictionary is %s", a)
		}
	}
	props, known := propertyLayout(op.Name())
	// Sized once: growing a map is most of what building attributes costs.
	attrs := make(ir.Attrs, len(dict.Entries)+len(props))
	if op.HasAttrs {
		for k, v := range dict.Entries {
			attrs[k] = v
		}
	}
	if !op.HasProps {
		return attrs, nil
	}
	if !op.Registered {
		a, err := d.irAttrAt(op.PropsAttr)
		if err != nil {
			return nil, err
		}
		if dict, ok := a.(ir.DictAttr); ok {
			for k, v := range dict.Entries {
				attrs[k] = v
			}
		} else {
			attrs["properties"] = a
		}
		return attrs, nil
	}
	r := op.PropsReader()
	if !known {
		// An op gojax has no property layout for: keep the raw blob visible.
		b, _ := r.Bytes(uint64(r.Len()))
		attrs["properties"] = ir.OpaqueAttr{Dialect: op.Dialect(), Text: fmt.Sprintf("<properties %x>", b)}
		return attrs, nil
	}
	for _, p := range props {
		name := p.name
		var idx uint64
		var err error
		if p.optional {
			var present bool
			idx, present, err = r.VarIntWithFlag()
			if err != nil {
				return nil, err
			}
			if !present {
				continue
			}
		} else if idx, err = r.VarInt(); err != nil {
			return nil, err
		}
		if attrs[name], err = d.irAttrAt(idx); err != nil {
			return nil, fmt.Errorf("property %s: %w", name, err)
		}
	}
	if !r.Empty() {
		return nil, r.Errorf("%d trailing bytes in the properties of %s", r.Len(), op.Name())
	}
	return attrs, nil
}

// propertyLayout gives the property layout of an op: attributes in
// bytecode order, each required or optional.
func propertyLayout(name string) ([]prop, bool) {
	if short, ok := strings.CutPrefix(name, "vhlo."); ok {
		props, ok := vhloProps[short]
		return props, ok
	}
	if props, ok := otherProps[name]; ok {
		return props, true
	}
	return nil, false
}

// vhloProps is vhloOps' property lists as layouts; VHLO attributes are all
// required.
var vhloProps = func() map[string][]prop {
	m := make(map[string][]prop, len(vhloOps))
	for name, info := range vhloOps {
		props := make([]prop, len(info.props))
		for i, p := range info.props {
			props[i] = prop{name: p}
		}
		m[name] = props
	}
	return m
}()

// prop is one inherent attribute in an op's property blob.
type prop struct {
	name     string
	optional bool // written with a presence flag (OptionalAttr, DefaultValuedAttr)
}

// otherProps gives the property layout (ODS: attributes sorted by name) of
// the non-VHLO ops that appear in mixed-serialization artifacts: builtin and
// Shardy (openxla/shardy shardy/dialect/sdy/ir/ops.td).
var otherProps = map[string][]prop{
	"builtin.module":                     {{"sym_name", true}, {"sym_visibility", true}},
	"builtin.unrealized_conversion_cast": {},
	"sdy.mesh":                           {{"mesh", false}, {"sym_name", false}},
	"sdy.sharding_constraint":            {{"sharding", false}},
	"sdy.reshard":                        {{"sharding", false}},
	"sdy.return":                         {},
	"sdy.manual_computation":             {{"in_shardings", false}, {"manual_axes", false}, {"out_shardings", false}},
	"sdy.sharding_group":                 {{"group_id", false}},
	"sdy.constant":                       {{"value", false}},
	"sdy.data_flow_edge":                 {{"sharding", true}},
	"sdy.propagation_barrier":            {{"allowed_direction", false}},
	"sdy.named_computation":              {{"in_shardings", true}, {"name", false}, {"out_shardings", true}},
	"sdy.all_gather":                     {{"gathering_axes", false}, {"out_sharding", false}},
	"sdy.all_slice":                      {{"out_sharding", false}, {"slicing_axes", false}},
	"sdy.all_to_all":                     {{"out_sharding", false}, {"params", false}},
	"sdy.collective_permute":             {{"out_sharding", false}},
	"sdy.all_reduce":                     {{"out_sharding", false}, {"reduction_axes", false}, {"reduction_op", true}},
	"sdy.reduce_scatter":                 {{"out_sharding", false}, {"reduce_scatter_axes", false}, {"reduction_op", true}},
	"sdy.sharded_to_unreduced":           {{"axes", false}, {"out_sharding", false}},
	"sdy.replicated_to_unreduced":        {{"axes", false}, {"out_sharding", false}},
	"sdy.func_data_flow_edge":            {},
}
