package kernel

import "sync"

// HostCallbacks is the table of host (Python) callables an executable's
// callback custom calls refer to by index. JAX attaches the callables to the
// loaded executable and hands their addresses to every execution (through the
// PJRT execute context); the runtime stores them here before a run and the
// callback kernels read them while it runs. The callables stay owned by JAX's
// executable, which outlives every run of ours.
type HostCallbacks struct {
	mu   sync.RWMutex
	used bool
	ptrs []uintptr
}

// Require records that a kernel of this executable calls callback index i.
func (h *HostCallbacks) Require(i uint64) {
	h.mu.Lock()
	h.used = true
	h.mu.Unlock()
}

// Used reports whether any kernel calls a host callback.
func (h *HostCallbacks) Used() bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.used
}

// Set installs the callables' addresses for the next runs.
func (h *HostCallbacks) Set(ptrs []uintptr) {
	h.mu.Lock()
	h.ptrs = append(h.ptrs[:0], ptrs...)
	h.mu.Unlock()
}

// At returns callable i, or false when none was installed.
func (h *HostCallbacks) At(i uint64) (uintptr, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if i >= uint64(len(h.ptrs)) || h.ptrs[i] == 0 {
		return 0, false
	}
	return h.ptrs[i], true
}

// HostCallbackContext is implemented by compile contexts whose executables
// can run host callbacks.
type HostCallbackContext interface {
	HostCallbacks() *HostCallbacks
}
