// Package shardy reads the Shardy (sdy) annotations gojax needs to run SPMD
// programs: device meshes, per-dimension shardings and manual axes, and maps
// a partition number to the block of a global array it holds. GSPMD
// (mhlo.sharding) annotations are read into the same model (gspmd.go).
package shardy

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gojax/gojax/go/ir"
)

// Axis is one named mesh axis, or in a sharding a sub-axis of it: Pre > 1
// (Shardy's "a":(Pre)Size) takes the axis coordinate divided by Pre, modulo
// Size.
type Axis struct {
	Name string
	Size int
	Pre  int
}

// Mesh is a device mesh. Mesh position i (row-major over Axes) holds device
// (partition) DeviceIDs[i]; nil DeviceIDs is the identity order. A mesh with
// no axes and one device id is a maximal mesh: values on it live on that
// device alone. A mesh with no axes and no ids is the empty mesh: values on
// it are replicated.
type Mesh struct {
	Axes      []Axis
	DeviceIDs []int
}

// Size is the number of devices of the mesh.
func (m *Mesh) Size() int {
	n := 1
	for _, a := range m.Axes {
		n *= a.Size
	}
	return n
}

// Empty reports whether m is the empty mesh (no axes, no devices named).
func (m *Mesh) Empty() bool { return len(m.Axes) == 0 && len(m.DeviceIDs) == 0 }

// Maximal returns the one device of a maximal mesh.
func (m *Mesh) Maximal() (int, bool) {
	if len(m.Axes) == 0 && len(m.DeviceIDs) == 1 {
		return m.DeviceIDs[0], true
	}
	return 0, false
}

// Device is the partition at mesh position pos.
func (m *Mesh) Device(pos int) int {
	if m.DeviceIDs == nil {
		return pos
	}
	return m.DeviceIDs[pos]
}

// position is partition p's mesh position.
func (m *Mesh) position(p int) int {
	if m.DeviceIDs == nil {
		return p
	}
	for i, d := range m.DeviceIDs {
		if d == p {
			return i
		}
	}
	return p
}

// Coord returns partition p's coordinate along the named axis (0 for an axis
// the mesh does not have).
func (m *Mesh) Coord(p int, name string) int {
	return m.coordAt(m.position(p), name)
}

func (m *Mesh) coordAt(pos int, name string) int {
	stride := 1
	for i := len(m.Axes) - 1; i >= 0; i-- {
		if m.Axes[i].Name == name {
			return (pos / stride) % m.Axes[i].Size
		}
		stride *= m.Axes[i].Size
	}
	return 0
}

// AxisCoord is partition p's coordinate along a (sub-)axis of a sharding.
func (m *Mesh) AxisCoord(p int, a Axis) int {
	c := m.Coord(p, a.Name)
	if a.Pre > 1 {
		c /= a.Pre
	}
	return c % a.Size
}

// Axis finds an axis by name.
func (m *Mesh) Axis(name string) (Axis, bool) {
	for _, a := range m.Axes {
		if a.Name == name {
			return a, true
		}
	}
	return Axis{}, false
}

// Sharding says, per dimension, which mesh axes (major to minor) cut it, on
// which mesh (nil when the caller keeps the mesh beside it).
type Sharding struct {
	Dims [][]Axis
	// Open marks the dimensions written {…, ?}: sharding propagation may
	// add axes to them (nil: all closed).
	Open []bool
	Mesh *Mesh
	// Unreduced lists the mesh axes along which the value is unreduced: the
	// devices along them hold partial values whose sum is the value.
	// Reduced lists axes along which it is replicated and whose gradient
	// will be unreduced; the data is laid out as if replicated.
	Unreduced []string
	Reduced   []string
	// Reduction is how the partial values of an unreduced value combine:
	// "sum" (Shardy's default), "max" or "min".
	Reduction string
}

var (
	meshAxisRE = regexp.MustCompile(`^"([^"]+)"\s*=\s*(\d+)$`)
	meshRE     = regexp.MustCompile(`^(?:#sdy\.)?mesh<\s*\[(.*?)\]\s*(?:,\s*device_ids\s*=\s*\[([0-9,\s]*)\])?\s*>$`)
	shardRE    = regexp.MustCompile(`^(?:#sdy\.sharding)?<\s*(@[A-Za-z0-9_.$-]+|(?:#sdy\.)?mesh<[^>]*>)\s*,\s*\[(.*)\]\s*(,.*)?>$`)
	subAxisRE  = regexp.MustCompile(`^"([^"]+)"\s*(?::\s*\((\d+)\)\s*(\d+))?$`)
	manualRE   = regexp.MustCompile(`^#sdy<manual_axes\{(.*)\}>$`)
	// The text form writes the reduction before the axes (unreduced=max{"x"}),
	// the bytecode reader after them (unreduced={"x"}, reduction=max).
	reductionRE = regexp.MustCompile(`\breduction\s*=\s*([a-z]+)`)
	axisSetRE   = regexp.MustCompile(`\b(unreduced|reduced)\s*=\s*([a-z]*)\s*\{([^}]*)\}`)
)

// ParseMesh reads #sdy.mesh<["a"=2, "b"=4]>, optionally with an explicit
// device order (device_ids=[...], a permutation of the mesh's devices), and
// the maximal mesh #sdy.mesh<[], device_ids=[N]>.
func ParseMesh(text string) (*Mesh, error) {
	m := meshRE.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return nil, fmt.Errorf("unsupported mesh %s", text)
	}
	out := &Mesh{}
	if strings.TrimSpace(m[1]) != "" {
		for _, part := range strings.Split(m[1], ",") {
			a := meshAxisRE.FindStringSubmatch(strings.TrimSpace(part))
			if a == nil {
				return nil, fmt.Errorf("unsupported mesh axis %q in %s", part, text)
			}
			n, err := strconv.Atoi(a[2])
			if err != nil || n < 1 {
				return nil, fmt.Errorf("mesh axis %q has an invalid size in %s", part, text)
			}
			if _, dup := out.Axis(a[1]); dup {
				return nil, fmt.Errorf("mesh axis %q appears twice in %s", a[1], text)
			}
			out.Axes = append(out.Axes, Axis{Name: a[1], Size: n})
		}
	}
	if strings.TrimSpace(m[2]) != "" {
		for _, part := range strings.Split(m[2], ",") {
			id, err := strconv.Atoi(strings.TrimSpace(part))
			if err != nil || id < 0 {
				return nil, fmt.Errorf("mesh %s has an invalid device id %q", text, part)
			}
			out.DeviceIDs = append(out.DeviceIDs, id)
		}
		if err := out.checkDeviceIDs(); err != nil {
			return nil, fmt.Errorf("mesh %s: %v", text, err)
		}
	}
	return out, nil
}

// checkDeviceIDs requires a maximal mesh's one id, or a permutation of
// 0..Size-1.
func (m *Mesh) checkDeviceIDs() error {
	if m.DeviceIDs == nil {
		return nil
	}
	if len(m.Axes) == 0 {
		if len(m.DeviceIDs) != 1 {
			return fmt.Errorf("a mesh without axes names %d devices (a maximal mesh names one)", len(m.DeviceIDs))
		}
		return nil
	}
	if len(m.DeviceIDs) != m.Size() {
		return fmt.Errorf("%d device ids for %d devices", len(m.DeviceIDs), m.Size())
	}
	seen := make([]bool, len(m.DeviceIDs))
	for _, d := range m.DeviceIDs {
		if d >= len(seen) || seen[d] {
			return fmt.Errorf("device ids %v are not a permutation of 0..%d", m.DeviceIDs, len(seen)-1)
		}
		seen[d] = true
	}
	return nil
}

// Meshes collects a module's sdy.mesh declarations by symbol name.
func Meshes(m *ir.Module) (map[string]*Mesh, error) {
	meshes := map[string]*Mesh{}
	for _, g := range m.Globals {
		if g.Name != "sdy.mesh" {
			continue
		}
		name, _ := g.Attrs.Str("sym_name")
		text, ok := g.Attrs["mesh"].(ir.OpaqueAttr)
		if !ok {
			return nil, fmt.Errorf("sdy.mesh @%s has no mesh attribute", name)
		}
		ms, err := ParseMesh(text.Text)
		if err != nil {
			return nil, err
		}
		meshes[name] = ms
	}
	return meshes, nil
}

// ParseSharding reads #sdy.sharding<@mesh, [{"a"}, {}]> (or the bare
// <@mesh, [...]> of a per-value list, or either with an inline mesh<...> in
// place of @mesh) against the meshes. Open dimensions ("?") and priorities
// do not change where data lives, so they are read past.
func ParseSharding(text string, meshes map[string]*Mesh, rank int) (*Sharding, *Mesh, error) {
	m := shardRE.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return nil, nil, fmt.Errorf("unsupported sharding %s", text)
	}
	var ms *Mesh
	if name, ok := strings.CutPrefix(m[1], "@"); ok {
		if ms, ok = meshes[name]; !ok {
			return nil, nil, fmt.Errorf("sharding %s names unknown mesh @%s", text, name)
		}
	} else {
		var err error
		if ms, err = ParseMesh(m[1]); err != nil {
			return nil, nil, err
		}
	}
	s := &Sharding{Mesh: ms}
	body := strings.TrimSpace(m[2])
	for body != "" {
		if body[0] != '{' {
			return nil, nil, fmt.Errorf("unsupported sharding %s", text)
		}
		end := strings.IndexByte(body, '}')
		if end < 0 {
			return nil, nil, fmt.Errorf("unsupported sharding %s", text)
		}
		var axes []Axis
		open := false
		for _, name := range strings.Split(body[1:end], ",") {
			name = strings.TrimSpace(name)
			open = open || name == "?"
			if name == "" || name == "?" {
				continue
			}
			sub := subAxisRE.FindStringSubmatch(name)
			if sub == nil {
				return nil, nil, fmt.Errorf("unsupported dimension sharding {%s} in %s", body[1:end], text)
			}
			a, found := ms.Axis(sub[1])
			if !found {
				return nil, nil, fmt.Errorf("sharding %s uses unknown mesh axis %s", text, name)
			}
			if sub[2] != "" {
				pre, _ := strconv.Atoi(sub[2])
				size, _ := strconv.Atoi(sub[3])
				if pre < 1 || size < 1 || a.Size%(pre*size) != 0 {
					return nil, nil, fmt.Errorf("sub-axis %s does not divide mesh axis %q of size %d in %s", name, a.Name, a.Size, text)
				}
				a = Axis{Name: a.Name, Size: size, Pre: pre}
			}
			axes = append(axes, a)
		}
		s.Dims = append(s.Dims, axes)
		s.Open = append(s.Open, open)
		rest := strings.TrimSpace(body[end+1:])
		// A dimension's priority (p0, p1, ...) follows its closing brace.
		if len(rest) > 1 && rest[0] == 'p' && rest[1] >= '0' && rest[1] <= '9' {
			i := 1
			for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
				i++
			}
			rest = rest[i:]
		}
		body = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), ","))
	}
	if len(s.Dims) != rank {
		return nil, nil, fmt.Errorf("sharding %s has %d dimensions for a rank-%d value", text, len(s.Dims), rank)
	}
	for _, set := range axisSetRE.FindAllStringSubmatch(m[3], -1) {
		if set[1] == "unreduced" {
			if r := reductionRE.FindStringSubmatch(m[3]); r != nil && set[2] == "" {
				set[2] = r[1]
			}
			switch set[2] {
			case "", "sum":
				s.Reduction = "sum"
			case "max", "min":
				s.Reduction = set[2]
			default:
				return nil, nil, fmt.Errorf("sharding %s: unreduced values combined with %s are not supported", text, set[2])
			}
		}
		for _, name := range strings.Split(set[3], ",") {
			if name = strings.Trim(strings.TrimSpace(name), `"`); name == "" {
				continue
			}
			if _, found := ms.Axis(name); !found {
				return nil, nil, fmt.Errorf("sharding %s marks unknown mesh axis %q %s", text, name, set[1])
			}
			if s.Uses(name) {
				return nil, nil, fmt.Errorf("sharding %s both splits along and marks %s mesh axis %q", text, set[1], name)
			}
			if set[1] == "unreduced" {
				s.Unreduced = append(s.Unreduced, name)
			} else {
				s.Reduced = append(s.Reduced, name)
			}
		}
	}
	return s, ms, nil
}

// SplitPerValue splits #sdy.sharding_per_value<[<@m, [...]>, <@m, [...]>]>
// into the text of each value's sharding.
func SplitPerValue(text string) ([]string, error) {
	t := strings.TrimSpace(text)
	const pre, suf = "#sdy.sharding_per_value<[", "]>"
	if !strings.HasPrefix(t, pre) || !strings.HasSuffix(t, suf) {
		return nil, fmt.Errorf("unsupported sharding list %s", text)
	}
	t = t[len(pre) : len(t)-len(suf)]
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '<', '[', '{':
			depth++
		case '>', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(t[start:i]))
				start = i + 1
			}
		}
	}
	if rest := strings.TrimSpace(t[start:]); rest != "" {
		out = append(out, rest)
	}
	return out, nil
}

// ParseManualAxes reads #sdy<manual_axes{"a", "b"}>.
func ParseManualAxes(text string) ([]string, error) {
	m := manualRE.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return nil, fmt.Errorf("unsupported manual axes %s", text)
	}
	var out []string
	for _, name := range strings.Split(m[1], ",") {
		if name = strings.TrimSpace(name); name != "" {
			out = append(out, strings.Trim(name, `"`))
		}
	}
	return out, nil
}

// ShardOf returns the shard shape and offset partition p holds of an array
// with dimensions global (a nil sharding is replicated).
func (s *Sharding) ShardOf(m *Mesh, global []int64, p int) (shape, offset []int64, err error) {
	return s.BlockOf(m, global, p, nil)
}

// BlockOf is ShardOf counting only the mesh axes for which only(axis) is
// true (nil: all of them): a manual computation splits its operands over its
// manual axes alone.
func (s *Sharding) BlockOf(m *Mesh, global []int64, p int, only func(string) bool) (shape, offset []int64, err error) {
	shape = append([]int64(nil), global...)
	offset = make([]int64, len(global))
	if s == nil {
		return shape, offset, nil
	}
	for d, axes := range s.Dims {
		n, idx := 1, 0
		for _, a := range axes {
			if only != nil && !only(a.Name) {
				continue
			}
			idx = idx*a.Size + m.AxisCoord(p, a)
			n *= a.Size
		}
		if global[d]%int64(n) != 0 {
			return nil, nil, fmt.Errorf("dimension %d of size %d does not split into %d shards", d, global[d], n)
		}
		shape[d] = global[d] / int64(n)
		offset[d] = int64(idx) * shape[d]
	}
	return shape, offset, nil
}

// UnreducedOn reports whether the value is unreduced along the named axis.
func (s *Sharding) UnreducedOn(name string) bool {
	return s != nil && slices.Contains(s.Unreduced, name)
}

// KeptUnreduced is the axes along which s holds values unreduced (nil for a
// nil sharding).
func (s *Sharding) KeptUnreduced() []string {
	if s == nil {
		return nil
	}
	return s.Unreduced
}

// Holder reports whether partition p sits at coordinate 0 of every unreduced
// axis. Giving it the value's block and the others zeros (for a sum; copies
// of the block for max and min) keeps the reduction over those axes equal to
// the value.
func (s *Sharding) Holder(m *Mesh, p int) bool {
	if s == nil {
		return true
	}
	for _, name := range s.Unreduced {
		if m.Coord(p, name) != 0 {
			return false
		}
	}
	return true
}

// Uses reports whether the sharding cuts any dimension along the named axis.
func (s *Sharding) Uses(name string) bool {
	if s == nil {
		return false
	}
	for _, axes := range s.Dims {
		for _, a := range axes {
			if a.Name == name {
				return true
			}
		}
	}
	return false
}

// CopyBlock copies between a dense shard of dimensions sdims and its block at
// offset of a dense global array of dimensions gdims (es bytes an element).
func CopyBlock(global, shard []byte, gdims, sdims, offset []int64, es int64, toGlobal bool) {
	n := int64(1)
	for _, d := range sdims {
		n *= d
	}
	if n == 0 {
		return
	}
	rank := len(gdims)
	if rank == 0 {
		if toGlobal {
			copy(global, shard)
		} else {
			copy(shard, global)
		}
		return
	}
	gstride := make([]int64, rank)
	acc := es
	for i := rank - 1; i >= 0; i-- {
		gstride[i] = acc
		acc *= gdims[i]
	}
	row := sdims[rank-1] * es // contiguous run along the last dimension
	idx := make([]int64, rank)
	for s := int64(0); s < n; s += sdims[rank-1] {
		g := int64(0)
		for i := 0; i < rank; i++ {
			g += (idx[i] + offset[i]) * gstride[i]
		}
		so := s * es
		if toGlobal {
			copy(global[g:g+row], shard[so:so+row])
		} else {
			copy(shard[so:so+row], global[g:g+row])
		}
		for k := rank - 2; k >= 0; k-- {
			idx[k]++
			if idx[k] < sdims[k] {
				break
			}
			idx[k] = 0
		}
	}
}

// String is the mesh in Shardy's attribute syntax.
func (m *Mesh) String() string {
	parts := make([]string, len(m.Axes))
	for i, a := range m.Axes {
		parts[i] = fmt.Sprintf("%q=%d", a.Name, a.Size)
	}
	ids := ""
	if m.DeviceIDs != nil {
		s := make([]string, len(m.DeviceIDs))
		for i, d := range m.DeviceIDs {
			s[i] = strconv.Itoa(d)
		}
		ids = ", device_ids=[" + strings.Join(s, ", ") + "]"
	}
	return "#sdy.mesh<[" + strings.Join(parts, ", ") + "]" + ids + ">"
}

// Groups lists the device groups a collective over the named axes forms:
// one group per coordinate of the other axes, members ordered by their
// coordinates along axes (in the given order, major to minor).
func (m *Mesh) Groups(axes []string) ([][]int64, error) {
	size := 1
	for _, name := range axes {
		a, ok := m.Axis(name)
		if !ok {
			return nil, fmt.Errorf("mesh %s has no axis %q", m, name)
		}
		size *= a.Size
	}
	byKey := map[string]int{}
	var groups [][]int64
	for pos := 0; pos < m.Size(); pos++ {
		var key strings.Builder
		for _, a := range m.Axes {
			listed := false
			for _, n := range axes {
				listed = listed || n == a.Name
			}
			if !listed {
				fmt.Fprintf(&key, "%d,", m.coordAt(pos, a.Name))
			}
		}
		g, ok := byKey[key.String()]
		if !ok {
			g = len(groups)
			byKey[key.String()] = g
			groups = append(groups, make([]int64, size))
		}
		at := 0
		for _, n := range axes {
			a, _ := m.Axis(n)
			at = at*a.Size + m.coordAt(pos, n)
		}
		groups[g][at] = int64(m.Device(pos))
	}
	return groups, nil
}
