package engine

import (
	"unsafe"

	"github.com/gojax/gojax/go/kernels/kernel"
)

// UserData is one piece of FFI user data the framework attached to an
// execution (PJRT execute context): an XLA FFI type id and a pointer.
type UserData = kernel.UserData

// hostCallbackProgram is implemented by compiled programs that may call host
// callbacks (*compiler.Executable).
type hostCallbackProgram interface {
	HostCallbacks() *kernel.HostCallbacks
}

// UsesHostCallbacks reports whether the program calls host callbacks or
// hands FFI user data to its handlers, i.e. whether Execute reads
// ExecuteOptions.UserData (callers may skip building it otherwise).
func (e *Executable) UsesHostCallbacks() bool {
	hp, ok := e.prog.(hostCallbackProgram)
	return ok && hp.HostCallbacks() != nil && hp.HostCallbacks().Used()
}

// maxHostCallbacks bounds the callable count read from JAX's user data.
const maxHostCallbacks = 1 << 16

// installHostCallbacks installs the execution's user data for the run's FFI
// handlers and, when the program calls host callbacks, finds JAX's callables
// among it and installs them. JAX attaches an FfiLoadedHostCallbacks
// struct, {void** callbacks; uint32 num_callbacks}, whose type id is private
// to jaxlib; it is the only user data JAX attaches to executions, so the
// first entry that has that shape is taken.
func installHostCallbacks(table *kernel.HostCallbacks, data []UserData) error {
	table.SetUserData(data)
	if !table.CallbacksUsed() {
		return nil
	}
	for _, d := range data {
		if d.Data == nil {
			continue
		}
		// The struct lives in jaxlib's memory for the whole execution.
		hdr := (*struct {
			callbacks *uintptr
			num       uint32
		})(d.Data)
		if hdr.callbacks == nil || hdr.num == 0 || hdr.num > maxHostCallbacks {
			continue
		}
		table.Set(unsafe.Slice(hdr.callbacks, hdr.num))
		return nil
	}
	return Errorf(CodeFailedPrecondition, "the program calls host callbacks (jax.pure_callback, io_callback, debug.print), "+
		"but the framework attached none to this execution")
}

// syncRunError is the first error of executions that already ran
// synchronously (programs with host callbacks), with their outputs deleted.
// XLA:CPU reports such a failure (a callback's exception, a wrong result
// shape) from Execute itself; returned through the events instead, JAX would
// keep the failed execution's token and raise the error again at exit.
func syncRunError(outs [][]*Buffer, events []*Event) error {
	for _, ev := range events {
		if err := ev.Err(); err != nil {
			for _, o := range outs {
				for _, b := range o {
					b.Delete()
				}
			}
			return err
		}
	}
	return nil
}
