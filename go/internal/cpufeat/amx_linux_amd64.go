//go:build !purego

package cpufeat

import "syscall"

// requestAMX asks Linux for the tile data state (XFEATURE_XTILEDATA, 18),
// which a process must hold before its first tile instruction; the grant
// covers every thread of the process.
func requestAMX() bool {
	const archReqXcompPerm = 0x1023
	const xfeatureXtiledata = 18
	_, _, errno := syscall.RawSyscall(syscall.SYS_ARCH_PRCTL, archReqXcompPerm, xfeatureXtiledata, 0)
	return errno == 0
}
