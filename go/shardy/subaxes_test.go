package shardy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSubGroups(t *testing.T) {
	m := &Mesh{Axes: []Axis{{Name: "x", Size: 4}, {Name: "y", Size: 2}}} // device = 2x + y
	// The minor half of x: x = 2*hi + lo; groups pair lo = 0, 1.
	g, err := m.SubGroups([]AxisRef{{"x", 2, 2}})
	require.NoError(t, err)
	require.Equal(t, [][]int64{{0, 2}, {1, 3}, {4, 6}, {5, 7}}, g)
	// Both halves in minor-major order, then y: the order of refs is the
	// order of members.
	g, err = m.SubGroups([]AxisRef{{"x", 2, 2}, {"x", 1, 2}, {Name: "y"}})
	require.NoError(t, err)
	require.Equal(t, [][]int64{{0, 1, 4, 5, 2, 3, 6, 7}}, g)
	// Whole axes agree with Groups.
	want, err := m.Groups([]string{"y", "x"})
	require.NoError(t, err)
	g, err = m.SubGroups([]AxisRef{{Name: "y"}, {Name: "x"}})
	require.NoError(t, err)
	require.Equal(t, want, g)
	_, err = m.SubGroups([]AxisRef{{"x", 1, 3}})
	require.ErrorContains(t, err, "does not divide")
	_, err = m.SubGroups([]AxisRef{{Name: "z"}})
	require.ErrorContains(t, err, "no axis")
}
