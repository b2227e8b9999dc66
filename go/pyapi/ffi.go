package pyapi

import "github.com/gojax/gojax/go/kernels/ffi"

// RegisterFFITarget registers an XLA FFI handler with gojax, the way
// jax.ffi.register_ffi_target(..., platform="cpu") registers it with XLA.
// The stages are C function addresses (0 = absent; execute is required).
func RegisterFFITarget(name, platform string, instantiate, prepare, initialize, execute uintptr, traits int64) error {
	return ffi.Register(name, platform, ffi.Bundle{
		Instantiate: instantiate, Prepare: prepare, Initialize: initialize, Execute: execute,
	}, uint32(traits))
}

// FFITargetRegistered reports whether gojax has an FFI handler for name.
func FFITargetRegistered(name string) bool { return ffi.Registered(name) }

// RegisterFFIType registers an FFI type whose XLA_FFI_TypeId lives at
// address typeID (0 there asks gojax for an id, which it writes back);
// deleter is the type's C deleter address (0 = none).
func RegisterFFIType(name string, typeID, deleter uintptr) error {
	return ffi.RegisterType(name, typeID, deleter)
}
