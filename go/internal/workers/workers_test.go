package workers

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSetKeepsASpareP(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { n.Store(0); runtime.GOMAXPROCS(old) })

	require.Equal(t, old, Count(), "unset: follows GOMAXPROCS")
	Set(3)
	require.Equal(t, 3, Count())
	require.Equal(t, 4, runtime.GOMAXPROCS(0))
	Set(1)
	require.Equal(t, 1, Count())
	require.Equal(t, 2, runtime.GOMAXPROCS(0))
	Set(0)
	def := Count()
	require.GreaterOrEqual(t, def, 1)
	require.Equal(t, def+1, runtime.GOMAXPROCS(0))
}
