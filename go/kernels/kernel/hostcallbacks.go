package kernel

import (
	"sync"
	"unsafe"
)

// HostCallbacks is the table of host (Python) callables an executable's
// callback custom calls refer to by index. JAX attaches the callables to the
// loaded executable and hands their addresses to every execution (through the
// PJRT execute context); the runtime stores them here before a run and the
// callback kernels read them while it runs. The callables stay owned by JAX's
// executable, which outlives every run of ours. The table also carries the
// execution's whole FFI user data, which XLA FFI handlers may ask for.
type HostCallbacks struct {
	mu        sync.RWMutex
	callbacks bool // a kernel calls host callbacks
	userData  bool // a kernel reads the execution's FFI user data
	ptrs      []uintptr
	data      []UserData
	parts     map[uint64][][]Block // partitioned callbacks' operand blocks
}

// UserData is one piece of FFI user data the framework attached to an
// execution (PJRT execute context): an XLA FFI type id and a pointer it owns.
type UserData struct {
	TypeID int64
	Data   unsafe.Pointer
}

// Require records that a kernel of this executable calls callback index i.
func (h *HostCallbacks) Require(i uint64) {
	h.mu.Lock()
	h.callbacks = true
	h.mu.Unlock()
}

// RequireUserData records that a kernel reads the execution's user data.
func (h *HostCallbacks) RequireUserData() {
	h.mu.Lock()
	h.userData = true
	h.mu.Unlock()
}

// Used reports whether any kernel needs what the framework attaches to an
// execution: host callbacks or FFI user data.
func (h *HostCallbacks) Used() bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.callbacks || h.userData
}

// CallbacksUsed reports whether any kernel calls a host callback.
func (h *HostCallbacks) CallbacksUsed() bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.callbacks
}

// SetUserData installs the execution's FFI user data for the next runs.
func (h *HostCallbacks) SetUserData(d []UserData) {
	h.mu.Lock()
	h.data = append(h.data[:0], d...)
	h.mu.Unlock()
}

// UserData returns a copy of the installed FFI user data.
func (h *HostCallbacks) UserData() []UserData {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return append([]UserData(nil), h.data...)
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

// Block is one partition's piece of an operand: where it starts in the
// global array and its shape.
type Block struct {
	Offset, Shape []int64
}

// SetPartitions records, for the partitioned callback with index i, the
// block of each operand that each of this process's partitions holds
// (parts[k][j] is partition k's block of operand j; a nil Shape is the whole
// operand). The callback then runs once per partition, as XLA's partitioner
// runs it; without an entry it runs once on the whole operands.
func (h *HostCallbacks) SetPartitions(i uint64, parts [][]Block) {
	h.mu.Lock()
	if h.parts == nil {
		h.parts = map[uint64][][]Block{}
	}
	h.parts[i] = parts
	h.mu.Unlock()
}

// Partitions returns what SetPartitions recorded for callback i.
func (h *HostCallbacks) Partitions(i uint64) [][]Block {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.parts[i]
}
