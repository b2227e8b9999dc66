package compiler

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/shardy"
)

// spmdInfo prepares Shardy's per-device computations for the kernels: a
// manual computation over more than one partition stays an op (its kernel
// runs the body once per partition, see go/kernels/collective), annotated
// with its mesh; collectives naming their groups by mesh axes get explicit
// device groups.
type spmdInfo struct {
	module *ir.Module
	meshes map[string]*shardy.Mesh
}

func (s *spmdInfo) mesh(name string) (*shardy.Mesh, error) {
	if s.meshes == nil {
		ms, err := shardy.Meshes(s.module)
		if err != nil {
			return nil, err
		}
		s.meshes = ms
	}
	m, ok := s.meshes[name]
	if !ok {
		return nil, fmt.Errorf("unknown mesh @%s", name)
	}
	return m, nil
}

// manualComputation inlines a manual computation over a one-device mesh and
// keeps any other, with attributes gojax.mesh (the mesh text) and
// gojax.mesh_name added for its kernel.
func (s *spmdInfo) manualComputation(op *ir.Op, repl map[*ir.Value]*ir.Value) (bool, []*ir.Op, error) {
	name, err := manualMeshName(op)
	if err != nil {
		return false, nil, err
	}
	m, err := s.mesh(name)
	if err != nil {
		return false, nil, op.Errorf("%v", err)
	}
	axes, err := manualAxes(op)
	if err != nil {
		return false, nil, err
	}
	for _, a := range axes {
		if _, ok := m.Axis(a); !ok {
			return false, nil, op.Errorf("manual axis %q is not an axis of mesh @%s", a, name)
		}
	}
	// Over several devices the body runs once per device even when its
	// manual axes span one: its collectives and partition ids name devices
	// of the whole mesh.
	if m.Size() == 1 {
		body, err := inlineRegion(op, repl)
		return false, body, err
	}
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
		return false, nil, op.Errorf("expected one single-block region")
	}
	if t := op.Regions[0].Blocks[0].Terminator(); t != nil && t.Name == "sdy.return" {
		t.Name = "stablehlo.return" // the planner's region terminator
	}
	attrs := make(ir.Attrs, len(op.Attrs)+2)
	for k, v := range op.Attrs {
		attrs[k] = v
	}
	attrs["gojax.mesh"] = ir.OpaqueAttr{Dialect: "sdy", Text: m.String()}
	attrs["gojax.mesh_name"] = ir.StringAttr{Value: name}
	op.Attrs = attrs // a fresh map: decoded ops may share theirs
	return true, nil, nil
}

func manualAxes(op *ir.Op) ([]string, error) {
	a, ok := op.Attrs["manual_axes"].(ir.OpaqueAttr)
	if !ok {
		return nil, op.Errorf("manual_axes attribute missing or not a Shardy attribute")
	}
	axes, err := shardy.ParseManualAxes(a.Text)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	return axes, nil
}

// manualMeshName is the mesh the op's shardings name (all must name one).
func manualMeshName(op *ir.Op) (string, error) {
	name := ""
	for _, key := range []string{"in_shardings", "out_shardings"} {
		a, ok := op.Attrs[key].(ir.OpaqueAttr)
		if !ok {
			continue
		}
		parts, err := shardy.SplitPerValue(a.Text)
		if err != nil {
			return "", op.Errorf("%s: %v", key, err)
		}
		for _, p := range parts {
			at := strings.Index(p, "@")
			end := strings.IndexAny(p[at+1:], ", >")
			if at < 0 || end < 0 {
				return "", op.Errorf("%s: sharding %s does not name a mesh (inline meshes are not supported)", key, p)
			}
			n := p[at+1 : at+1+end]
			if name != "" && n != name {
				return "", op.Errorf("shardings name two meshes, @%s and @%s", name, n)
			}
			name = n
		}
	}
	if name == "" {
		return "", op.Errorf("no sharding names a mesh")
	}
	return name, nil
}

// explicitReplicaGroups rewrites replica_groups given as mesh axes
// (#stablehlo.replica_group_mesh_axes, decoded as a dictionary) into the
// explicit [groups, size] form the kernels read.
func (s *spmdInfo) explicitReplicaGroups(op *ir.Op) error {
	d, ok := op.Attrs["replica_groups"].(ir.DictAttr)
	if !ok {
		return nil
	}
	var m *shardy.Mesh
	var err error
	switch v := d.Entries["mesh"].(type) {
	case ir.StringAttr:
		m, err = s.mesh(strings.TrimPrefix(v.Value, "@"))
	case ir.SymbolRefAttr:
		m, err = s.mesh(strings.TrimPrefix(v.Name, "@"))
	case ir.DictAttr: // an inline #stablehlo.mesh
		m, err = inlineMesh(v)
	default:
		return op.Errorf("replica_groups %s: mesh is neither a symbol nor a mesh", d)
	}
	if err != nil {
		return op.Errorf("replica_groups: %v", err)
	}
	list, ok := d.Entries["axes"].(ir.ArrayAttr)
	if !ok {
		return op.Errorf("replica_groups %s: axes is not a list", d)
	}
	var axes []shardy.AxisRef
	for _, a := range list.Elems {
		ad, ok := a.(ir.DictAttr)
		if !ok {
			return op.Errorf("replica_groups %s: unexpected axis %s", d, a)
		}
		n, ok := ad.Entries["name"].(ir.StringAttr)
		if !ok {
			return op.Errorf("replica_groups %s: axis without a name", d)
		}
		ref := shardy.AxisRef{Name: n.Value}
		if sub, ok := ad.Entries["sub_axis_info"]; ok {
			sd, _ := sub.(ir.DictAttr)
			pre, ok1 := sd.Entries.Int("pre_size")
			size, ok2 := sd.Entries.Int("size")
			if !ok1 || !ok2 {
				return op.Errorf("replica_groups %s: unexpected sub-axis %s", d, sub)
			}
			ref.PreSize, ref.Size = int(pre), int(size)
		}
		axes = append(axes, ref)
	}
	groups, err := m.SubGroups(axes)
	if err != nil {
		return op.Errorf("replica_groups: %v", err)
	}
	size := 0
	if len(groups) > 0 {
		size = len(groups[0])
	}
	t := ir.Tensor(ir.S64, int64(len(groups)), int64(size))
	data := make([]byte, 0, 8*len(groups)*size)
	for _, g := range groups {
		for _, id := range g {
			data = binary.LittleEndian.AppendUint64(data, uint64(id))
		}
	}
	attrs := make(ir.Attrs, len(op.Attrs))
	for k, v := range op.Attrs {
		attrs[k] = v
	}
	attrs["replica_groups"] = &ir.ElementsAttr{Type: t, Data: data}
	op.Attrs = attrs
	return nil
}

// inlineMesh reads #stablehlo.mesh<axes = [#stablehlo.mesh_axis<...>, ...]>
// (decoded as a dictionary).
func inlineMesh(d ir.DictAttr) (*shardy.Mesh, error) {
	if _, ok := d.Entries["device_ids"]; ok {
		return nil, fmt.Errorf("mesh %s: device_ids are not supported in replica groups", d)
	}
	list, ok := d.Entries["axes"].(ir.ArrayAttr)
	if !ok {
		return nil, fmt.Errorf("mesh %s has no axis list", d)
	}
	m := &shardy.Mesh{}
	for _, a := range list.Elems {
		ad, _ := a.(ir.DictAttr)
		name, ok1 := ad.Entries["name"].(ir.StringAttr)
		size, ok2 := ad.Entries.Int("size")
		if !ok1 || !ok2 || size < 1 {
			return nil, fmt.Errorf("mesh %s: unexpected axis %s", d, a)
		}
		m.Axes = append(m.Axes, shardy.Axis{Name: name.Value, Size: int(size)})
	}
	return m, nil
}
