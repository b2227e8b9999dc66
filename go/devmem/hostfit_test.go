package devmem

import (
	"errors"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckHostBytes(t *testing.T) {
	require.NoError(t, CheckHostBytes(1<<20), "small sizes are not checked")
	if hostRoom() < 0 {
		require.NotEqual(t, "linux", runtime.GOOS, "/proc/meminfo unreadable")
		t.Skip("this system does not say how much memory it has")
	}
	err := CheckHostBytes(1 << 62) // no host has 4 EiB
	var oom *OutOfMemoryError
	require.True(t, errors.As(err, &oom), "%v", err)
	require.Equal(t, 1<<62, oom.Bytes)
	require.NoError(t, CheckHostBytes(hostCheckMin), "64 MiB fits any host that runs the tests")
}
