package devmem

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLimitRefusesAllocationsPastIt(t *testing.T) {
	prev := Limit()
	t.Cleanup(func() { SetLimit(prev) })

	held, err := Alloc(1 << 20)
	require.NoError(t, err)
	defer Free(held)
	in := ReadStats().BytesInUse
	SetLimit(in + 3<<20)
	require.Equal(t, in+3<<20, Limit())

	b, err := Alloc(2 << 20) // fits: 1 MiB of room stays
	require.NoError(t, err)
	_, err = Alloc(2 << 20)
	var oom *OutOfMemoryError
	require.ErrorAs(t, err, &oom)
	require.Equal(t, 2<<20, oom.Bytes)
	require.Equal(t, in+3<<20, oom.Limit)
	require.Equal(t, in+2<<20, oom.InUse)
	require.Contains(t, err.Error(), "memory limit")

	// Program-sized Go-heap allocations are held to the room left too,
	// even below the size the host check starts at.
	require.Error(t, CheckHostBytes(2<<20))
	require.NoError(t, CheckHostBytes(1<<20))

	// Freeing makes room; removing the limit leaves only the host's.
	Free(b)
	b, err = Alloc(2 << 20)
	require.NoError(t, err)
	Free(b)
	SetLimit(-1)
	require.Equal(t, int64(-1), Limit())
	require.NoError(t, CheckHostBytes(64<<20))
	b, err = Alloc(8 << 20)
	require.NoError(t, err)
	Free(b)
	require.False(t, errors.As(CheckHostBytes(1), &oom))
}

// The memory limit is the Go runtime's soft limit too, and without one the
// soft limit is what the host could give at load (unless GOMEMLIMIT was set);
// a tiny limit gives the floor.
func TestGoMemoryLimitFollowsTheLimit(t *testing.T) {
	if goLimitUser {
		t.Skip("GOMEMLIMIT is set")
	}
	prev := Limit()
	t.Cleanup(func() { SetLimit(prev) })
	PaceGoHeap()
	SetLimit(3 << 30)
	require.Equal(t, int64(3<<30), GoMemoryLimit())
	SetLimit(1 << 20)
	require.Equal(t, int64(goLimitFloor), GoMemoryLimit())
	SetLimit(-1)
	if goLimitHost > 0 {
		require.Equal(t, goLimitHost, GoMemoryLimit())
	}
}

// Under memory overcommit mmap never fails, so a request past what the
// machine can ever hold (RAM within the cgroup limit, plus swap) must be
// refused before any page is touched, with or without a memory limit.
func TestAllocPastTheMachineIsRefused(t *testing.T) {
	m := MachineBytes()
	if m <= 0 {
		t.Skip("this machine's memory is unknown")
	}
	require.Equal(t, m, MachineBytes()) // read once
	prev := Limit()
	t.Cleanup(func() { SetLimit(prev) })
	for _, lim := range []int64{-1, 1 << 62} {
		SetLimit(lim)
		_, err := Alloc(int(m) + 1)
		var oom *OutOfMemoryError
		require.ErrorAs(t, err, &oom)
		require.Equal(t, m, oom.Machine, "limit %d, in use %d: %v", lim, ReadStats().BytesInUse, err)
		require.Equal(t, int(m)+1, oom.Bytes)
		require.Contains(t, err.Error(), "more than this machine can hold")
		require.ErrorAs(t, CheckHostBytes(m+1), &oom)
		b, err := Alloc(1 << 20)
		require.NoError(t, err)
		Free(b)
	}
}
