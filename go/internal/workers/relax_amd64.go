package workers

// cpuRelax is one spin-wait hint (PAUSE).
func cpuRelax()
