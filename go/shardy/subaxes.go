package shardy

import "fmt"

// AxisRef names a mesh axis or a sub-axis of it: Shardy's "x":(pre)size is
// the factor of size size of axis x, with pre devices of x major to it (x of
// size n splits as pre x size x n/(pre*size), major to minor). Size 0 means
// the whole axis.
type AxisRef struct {
	Name          string
	PreSize, Size int
}

// stride and size of the factor r names along its axis of size n.
func (r AxisRef) factor(n int) (stride, size int, err error) {
	if r.Size == 0 {
		return 1, n, nil
	}
	if r.PreSize < 1 || r.Size < 1 || n%(r.PreSize*r.Size) != 0 {
		return 0, 0, fmt.Errorf("sub-axis %q:(%d)%d does not divide axis size %d", r.Name, r.PreSize, r.Size, n)
	}
	return n / (r.PreSize * r.Size), r.Size, nil
}

// SubGroups lists the device groups a collective over the (sub-)axes refs
// forms: one group per coordinate of the rest of the mesh, members ordered
// by their coordinates along refs (major to minor, in the given order).
func (m *Mesh) SubGroups(refs []AxisRef) ([][]int64, error) {
	type part struct{ axis, stride, size int }
	parts := make([]part, len(refs))
	size := 1
	for i, r := range refs {
		ai := -1
		for j, a := range m.Axes {
			if a.Name == r.Name {
				ai = j
			}
		}
		if ai < 0 {
			return nil, fmt.Errorf("mesh %s has no axis %q", m, r.Name)
		}
		st, sz, err := r.factor(m.Axes[ai].Size)
		if err != nil {
			return nil, err
		}
		parts[i] = part{ai, st, sz}
		size *= sz
	}
	byKey := map[string]int{}
	var groups [][]int64
	for p := 0; p < m.Size(); p++ {
		rest := make([]int, len(m.Axes)) // p's coordinates less the listed factors
		for j, a := range m.Axes {
			rest[j] = m.Coord(p, a.Name)
		}
		pos := 0
		for _, pt := range parts {
			c := (m.Coord(p, m.Axes[pt.axis].Name) / pt.stride) % pt.size
			pos = pos*pt.size + c
			rest[pt.axis] -= c * pt.stride
		}
		key := fmt.Sprint(rest)
		g, ok := byKey[key]
		if !ok {
			g = len(groups)
			byKey[key] = g
			groups = append(groups, make([]int64, size))
		}
		groups[g][pos] = int64(p)
	}
	return groups, nil
}
