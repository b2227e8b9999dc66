package vhlo

import (
	"fmt"
	"strings"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/mlirbc"
)

// sdyVal is a decoded Shardy attribute. gojax keeps Shardy shardings as
// ir.OpaqueAttr whose text is Shardy's own syntax (full); body is the form
// used when nested in another Shardy attribute.
type sdyVal struct{ full, body string }

// Shardy attribute codes (openxla/shardy shardy/dialect/sdy/ir/bytecode.td).
const (
	sdyManualAxes = iota
	sdyMeshAxis
	sdyMesh
	sdySubAxisInfo
	sdyAxisRef
	sdyDimSharding
	sdyTensorShardingV1
	sdyPerValueV1
	sdyDimMapping
	sdyTensorMapping
	sdyOpShardingRule
	sdyAxisRefList
	sdyListOfAxisRefLists
	sdyAllToAllParam
	sdyAllToAllParamList
	sdyTensorShardingV2
	sdyPerValueV2
	sdyTensorShardingV3
)

var sdyReductions = []string{"sum", "max", "min", "product"}

func (d *decoder) sdyAttr(r *mlirbc.Reader, e mlirbc.Entry) (any, error) {
	code, err := r.VarInt()
	if err != nil {
		return nil, err
	}
	both := func(s string) sdyVal { return sdyVal{full: s, body: s} }
	switch code {
	case sdyManualAxes:
		names, err := d.sdyList(r, d.sdyNested)
		if err != nil {
			return nil, err
		}
		return both("#sdy<manual_axes{" + names + "}>"), nil
	case sdyMeshAxis:
		name, err := d.f.ReadString(r)
		if err != nil {
			return nil, err
		}
		size, err := r.SignedVarInt()
		if err != nil {
			return nil, err
		}
		return both(fmt.Sprintf("%q=%d", name, size)), nil
	case sdyMesh:
		axes, err := d.sdyList(r, d.sdyNested)
		if err != nil {
			return nil, err
		}
		ids, err := r.SignedVarInts()
		if err != nil {
			return nil, err
		}
		body := "[" + axes + "]"
		if len(ids) > 0 {
			body += ", device_ids=" + strings.ReplaceAll(fmt.Sprint(ids), " ", ", ")
		}
		return sdyVal{full: "#sdy.mesh<" + body + ">", body: "<" + body + ">"}, nil
	case sdySubAxisInfo:
		pre, err := r.SignedVarInt()
		if err != nil {
			return nil, err
		}
		size, err := r.SignedVarInt()
		if err != nil {
			return nil, err
		}
		return both(fmt.Sprintf("(%d)%d", pre, size)), nil
	case sdyAxisRef:
		name, err := d.f.ReadString(r)
		if err != nil {
			return nil, err
		}
		s := fmt.Sprintf("%q", name)
		idx, present, err := r.VarIntWithFlag()
		if err != nil {
			return nil, err
		}
		if present {
			sub, err := d.sdyAt(idx)
			if err != nil {
				return nil, err
			}
			s += ":" + sub
		}
		return both(s), nil
	case sdyDimSharding:
		axes, err := d.sdyList(r, d.sdyNested)
		if err != nil {
			return nil, err
		}
		closed, err := r.Byte()
		if err != nil {
			return nil, err
		}
		prio, hasPrio, err := r.VarIntWithFlag()
		if err != nil {
			return nil, err
		}
		s := "{" + axes
		if closed == 0 {
			if axes != "" {
				s += ", "
			}
			s += "?"
		}
		s += "}"
		if hasPrio {
			s += fmt.Sprintf("p%d", prio)
		}
		return both(s), nil
	case sdyTensorShardingV1, sdyTensorShardingV2, sdyTensorShardingV3:
		mesh, err := d.sdyNested(r)
		if err != nil {
			return nil, err
		}
		dims, err := d.sdyList(r, d.sdyNested)
		if err != nil {
			return nil, err
		}
		body := mesh + ", [" + dims + "]"
		repl, err := d.sdyList(r, d.sdyNested)
		if err != nil {
			return nil, err
		}
		if repl != "" {
			body += ", replicated={" + repl + "}"
		}
		if code != sdyTensorShardingV1 {
			unred, err := d.sdyList(r, d.sdyNested)
			if err != nil {
				return nil, err
			}
			if unred != "" {
				body += ", unreduced={" + unred + "}"
			}
		}
		if code == sdyTensorShardingV3 {
			op, err := r.SignedVarInt()
			if err != nil {
				return nil, err
			}
			if op < 0 || op >= int64(len(sdyReductions)) {
				return nil, r.Errorf("invalid sdy reduction %d", op)
			}
			body += ", reduction=" + sdyReductions[op]
		}
		return sdyVal{full: "#sdy.sharding<" + body + ">", body: "<" + body + ">"}, nil
	case sdyPerValueV1, sdyPerValueV2:
		list, err := d.sdyList(r, d.sdyNested)
		if err != nil {
			return nil, err
		}
		return both("#sdy.sharding_per_value<[" + list + "]>"), nil
	case sdyDimMapping:
		f, err := r.SignedVarInts()
		if err != nil {
			return nil, err
		}
		var parts []string
		for _, x := range f {
			parts = append(parts, factorName(x))
		}
		return both(strings.Join(parts, "")), nil
	case sdyTensorMapping:
		dims, err := d.sdyList(r, d.sdyNested)
		if err != nil {
			return nil, err
		}
		return both("[" + dims + "]"), nil
	case sdyOpShardingRule:
		return d.sdyRule(r)
	case sdyAxisRefList:
		list, err := d.sdyList(r, d.sdyNested)
		if err != nil {
			return nil, err
		}
		return both("{" + list + "}"), nil
	case sdyListOfAxisRefLists, sdyAllToAllParamList:
		list, err := d.sdyList(r, d.sdyNested)
		if err != nil {
			return nil, err
		}
		return both("[" + list + "]"), nil
	case sdyAllToAllParam:
		axes, err := d.sdyList(r, d.sdyNested)
		if err != nil {
			return nil, err
		}
		src, err := r.SignedVarInt()
		if err != nil {
			return nil, err
		}
		tgt, err := r.SignedVarInt()
		if err != nil {
			return nil, err
		}
		return both(fmt.Sprintf("{%s}: %d->%d", axes, src, tgt)), nil
	}
	// A newer Shardy attribute: keep it, uninterpreted.
	rest, _ := r.Bytes(uint64(r.Len()))
	return both(fmt.Sprintf("#sdy<code %d: %x>", code, rest)), nil
}

func (d *decoder) sdyRule(r *mlirbc.Reader) (any, error) {
	sizes, err := r.SignedVarInts()
	if err != nil {
		return nil, err
	}
	ops, err := d.sdyList(r, d.sdyNested)
	if err != nil {
		return nil, err
	}
	res, err := d.sdyList(r, d.sdyNested)
	if err != nil {
		return nil, err
	}
	s := "#sdy.op_sharding_rule<(" + ops + ")->(" + res + ")"
	var fs []string
	for i, n := range sizes {
		fs = append(fs, fmt.Sprintf("%s=%d", factorName(int64(i)), n))
	}
	s += " {" + strings.Join(fs, ", ") + "}"
	for _, kind := range []string{"reduction", "need_replication", "permutation", "blocked_propagation"} {
		f, err := r.SignedVarInts()
		if err != nil {
			return nil, err
		}
		if len(f) > 0 {
			var names []string
			for _, x := range f {
				names = append(names, factorName(x))
			}
			s += " " + kind + "={" + strings.Join(names, ", ") + "}"
		}
	}
	custom, err := r.Byte()
	if err != nil {
		return nil, err
	}
	if custom != 0 {
		s += ", custom"
	}
	return sdyVal{full: s + ">", body: s + ">"}, nil
}

// factorName spells factor i as Shardy does: i, j, …, z, then z_1, z_2, ….
func factorName(i int64) string {
	if i < 0 {
		return fmt.Sprintf("?%d", i)
	}
	if i < 18 {
		return string(rune('i' + i))
	}
	return fmt.Sprintf("z_%d", i-17)
}

// sdyList reads a varint count then that many elements, comma-joined.
func (d *decoder) sdyList(r *mlirbc.Reader, elem func(*mlirbc.Reader) (string, error)) (string, error) {
	n, err := r.Count(1)
	if err != nil {
		return "", err
	}
	parts := make([]string, n)
	for i := range parts {
		if parts[i], err = elem(r); err != nil {
			return "", err
		}
	}
	return strings.Join(parts, ", "), nil
}

// sdyNested reads an attribute reference and renders it as Shardy spells it
// inside another attribute.
func (d *decoder) sdyNested(r *mlirbc.Reader) (string, error) {
	idx, err := r.VarInt()
	if err != nil {
		return "", err
	}
	return d.sdyAt(idx)
}

func (d *decoder) sdyAt(idx uint64) (string, error) {
	a, err := d.attrAt(idx)
	if err != nil {
		return "", err
	}
	switch a := a.(type) {
	case sdyVal:
		return a.body, nil
	case ir.StringAttr:
		return fmt.Sprintf("%q", a.Value), nil
	case ir.Attr:
		return a.String(), nil
	}
	return "", fmt.Errorf("unexpected attribute %T inside a Shardy attribute", a)
}
