package devmem

import (
	"errors"
	"os"
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

// Under a cgroup v1 memory controller (as on hosts without the unified
// hierarchy) the usage reads as a positive byte count and an unlimited
// limit as none.
func TestCgroupV1(t *testing.T) {
	if _, err := os.Stat("/sys/fs/cgroup/memory/memory.usage_in_bytes"); err != nil {
		t.Skip("no cgroup v1 memory controller")
	}
	require.Greater(t, cgroupV1Bytes("memory.usage_in_bytes"), int64(0))
	if lim := cgroupV1Bytes("memory.limit_in_bytes"); lim >= 0 {
		require.Less(t, lim, int64(1)<<62)
	}
	require.Equal(t, int64(-1), cgroupV1Bytes("no_such_file"))
}
