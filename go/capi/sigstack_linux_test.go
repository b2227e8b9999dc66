package capi

import (
	"runtime"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// stackT is the kernel's stack_t on 64-bit Linux.
type stackT struct {
	sp    uintptr
	flags int32
	_     int32
	size  uintptr
}

func sigaltstack(t *testing.T, ss, old *stackT) {
	t.Helper()
	_, _, e := syscall.RawSyscall(syscall.SYS_SIGALTSTACK, uintptr(unsafe.Pointer(ss)), uintptr(unsafe.Pointer(old)), 0)
	require.Zero(t, e, "sigaltstack")
}

// A thread whose alternate stack is too small for a frame with tile state
// (libraries install 8-20 KiB ones) gets a 64 KiB one; a thread
// with a large enough one or none keeps what it has.
func TestWidenSigstack(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var goStack stackT
	sigaltstack(t, nil, &goStack)
	defer sigaltstack(t, &goStack, nil) // Go's own, back before the thread runs anything else

	small := make([]byte, 16<<10)
	sigaltstack(t, &stackT{sp: uintptr(unsafe.Pointer(&small[0])), size: uintptr(len(small))}, nil)
	require.Equal(t, 1, widenSigstack())
	var now stackT
	sigaltstack(t, nil, &now)
	require.EqualValues(t, 64<<10, now.size)
	require.NotEqual(t, uintptr(unsafe.Pointer(&small[0])), now.sp)
	require.Equal(t, 0, widenSigstack(), "a 64 KiB stack is kept")

	big := make([]byte, 32<<10)
	sigaltstack(t, &stackT{sp: uintptr(unsafe.Pointer(&big[0])), size: uintptr(len(big))}, nil)
	require.Equal(t, 0, widenSigstack(), "Go's own size (32 KiB) is kept")
	sigaltstack(t, nil, &now)
	require.Equal(t, uintptr(unsafe.Pointer(&big[0])), now.sp)

	const ssDisable = 2
	sigaltstack(t, &stackT{flags: ssDisable}, nil)
	require.Equal(t, 0, widenSigstack(), "no stack: Go installs its own")
	sigaltstack(t, nil, &now)
	require.NotZero(t, now.flags&ssDisable)
	runtime.KeepAlive(small)
	runtime.KeepAlive(big)
}
