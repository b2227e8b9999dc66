package verify

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// unique2 reports the first entry seen before, short lists (scanned) and
// long ones (a set) alike, across the two lists.
func TestUnique2(t *testing.T) {
	op := &ir.Op{Name: "t.op"}
	long := make([]int64, 20)
	for i := range long {
		long[i] = int64(i)
	}
	for _, tc := range []struct {
		a, b []int64
		dup  string
	}{
		{a: []int64{0, 1}, b: []int64{2, 3}},
		{a: []int64{1, 2, 2, 1}, dup: "entry 2"},
		{a: []int64{0, 1}, b: []int64{3, 1}, dup: "entry 1"},
		{a: []int64{0}, b: []int64{3, 3}, dup: "entry 3"},
		{a: long, b: []int64{20, 21}},
		{a: long, b: []int64{21, 5}, dup: "entry 5"},
		{a: append([]int64{7}, long...), dup: "entry 7"},
	} {
		err := unique2(op, "dims", tc.a, tc.b)
		if tc.dup == "" {
			require.NoError(t, err)
			continue
		}
		require.ErrorContains(t, err, "dims has duplicate "+tc.dup)
	}
}
