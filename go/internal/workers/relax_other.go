//go:build !amd64

package workers

// cpuRelax is a no-op where no spin-wait hint is wired up.
func cpuRelax() {}
