package devmem

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Go's runtime ends the process when the system refuses it memory, so a
// Go-heap allocation sized by a program (a compile-time table, the arena of
// a run's temporaries) is checked first against what the system could give
// now: available RAM plus free swap, within the cgroup's limit. Sizes no
// host could hold then fail as OutOfMemoryError (RESOURCE_EXHAUSTED)
// instead. The check is a bound, not a reservation: concurrent allocations
// can still exhaust memory between the check and the allocation.

// machineBytes is the most memory this process could ever hold: its RAM
// (MemTotal, or the cgroup's limit when lower) plus swap. Under memory
// overcommit (vm.overcommit_memory=1) mmap never fails, and touching pages
// past this gets the process killed by the OOM killer instead of an error,
// so allocations that would take the bytes in use past it are refused up
// front. Read once: the machine does not change under a running process.
// -1 when unknown (then nothing is refused for it).
var machineBytes = sync.OnceValue(func() int64 {
	ram := meminfoBytes("MemTotal:")
	if ram <= 0 {
		ram = physBytes()
	}
	if ram <= 0 {
		return -1
	}
	if lim := cgroupBytes("memory.max"); lim >= 0 {
		ram = min(ram, lim)
	}
	if lim := cgroupV1Bytes("memory.limit_in_bytes"); lim >= 0 {
		ram = min(ram, lim)
	}
	if swap := meminfoBytes("SwapTotal:"); swap > 0 {
		ram += swap
	}
	return ram
})

// MachineBytes is the machine's memory ceiling for this process (RAM
// within the cgroup limit, plus swap; -1 when unknown): device memory in
// use never passes it.
func MachineBytes() int64 { return machineBytes() }

// hostCheckMin is the size below which allocations are not checked (the
// check reads /proc).
const hostCheckMin = 64 << 20

// CheckHostBytes returns an *OutOfMemoryError when n bytes exceed the
// memory limit's room (SetLimit) or the memory the system could give now,
// else nil (also when it cannot tell).
func CheckHostBytes(n int64) error {
	if err := overLimit(n); err != nil {
		return err
	}
	if n < hostCheckMin {
		return nil
	}
	if room := hostRoom(); room >= 0 && n > room {
		return &OutOfMemoryError{Bytes: int(min(n, int64(^uint(0)>>1)))}
	}
	return nil
}

// hostRoom is MemAvailable + SwapFree, capped by the cgroup v2 limit's
// headroom; -1 when unknown.
func hostRoom() int64 {
	avail := memAvailable()
	if avail < 0 {
		return -1
	}
	if swap := meminfoBytes("SwapFree:"); swap > 0 {
		avail += swap
	}
	if lim, cur := cgroupBytes("memory.max"), cgroupBytes("memory.current"); lim >= 0 && cur >= 0 {
		avail = min(avail, max(0, lim-cur))
	}
	if lim, cur := cgroupV1Bytes("memory.limit_in_bytes"), cgroupV1Bytes("memory.usage_in_bytes"); lim >= 0 && cur >= 0 {
		avail = min(avail, max(0, lim-cur))
	}
	return avail
}

// HostRoom is what the host could give this process now: available RAM
// plus free swap, within the cgroup's limit (v2 or v1); -1 when unknown.
func HostRoom() int64 { return hostRoom() }

// meminfoBytes reads one field of /proc/meminfo in bytes (-1: unknown).
func meminfoBytes(field string) int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, field); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return -1
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// cgroupBytes reads a cgroup v2 memory file of this process's cgroup (-1:
// none, unlimited or unreadable).
func cgroupBytes(name string) int64 {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return -1
	}
	var path string
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok {
			path = rest
		}
	}
	if path == "" {
		return -1
	}
	v, err := os.ReadFile("/sys/fs/cgroup" + path + "/" + name)
	if err != nil {
		return -1
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(v)), 10, 64)
	if err != nil {
		return -1 // "max": no limit
	}
	return n
}

// cgroupV1Bytes reads a file of this process's cgroup v1 memory controller
// (-1: none, unlimited or unreadable). Inside a container the controller's
// path may not exist under /sys/fs/cgroup/memory, whose top is then the
// container's own cgroup.
func cgroupV1Bytes(name string) int64 {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return -1
	}
	path, found := "", false
	for line := range strings.Lines(string(data)) {
		f := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(f) == 3 && slices.Contains(strings.Split(f[1], ","), "memory") {
			path, found = f[2], true
		}
	}
	if !found {
		return -1
	}
	v, err := os.ReadFile("/sys/fs/cgroup/memory" + path + "/" + name)
	if err != nil {
		if v, err = os.ReadFile("/sys/fs/cgroup/memory/" + name); err != nil {
			return -1
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(v)), 10, 64)
	if err != nil || n >= 1<<62 {
		return -1 // v1 writes "no limit" as a page-rounded MaxInt64
	}
	return n
}
