package capi

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBufferTable(t *testing.T) {
	var tab bufferTable
	a, b := &buffer{}, &buffer{}
	ha := tab.add(a)
	hb := tab.add(b)
	require.NotZero(t, ha)
	require.NotEqual(t, ha, hb)
	require.Same(t, a, tab.get(ha))
	require.Same(t, b, tab.get(hb))
	tab.remove(ha)
	require.Nil(t, tab.get(ha), "destroyed")
	tab.remove(ha) // twice: harmless
	c := &buffer{}
	hc := tab.add(c) // reuses a's slot with a new generation
	require.Equal(t, uint32(ha), uint32(hc))
	require.NotEqual(t, ha, hc)
	require.Nil(t, tab.get(ha), "stale handle of a reused slot")
	require.Same(t, c, tab.get(hc))
	for _, h := range []uintptr{0, 1 << 32, 12345, 1<<handleIndexBits + 1} {
		require.Nil(t, tab.get(h))
	}
	for i := 0; i < 5000; i++ { // past one chunk
		require.NotZero(t, tab.add(&buffer{}))
	}
}
