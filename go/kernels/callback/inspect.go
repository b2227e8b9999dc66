package callback

/*
#include <stdlib.h>
#include <string.h>

// jaxlib's ABI for jax.debug.inspect_array_sharding: the InspectSharding
// custom call's backend config holds {call, data}; the partitioner calls
// call(data, args) with the serialized xla.OpSharding of the inspected value.
typedef struct gojax_inspect_args {
	char* sharding_spec;
	size_t sharding_spec_size;
	const char* error_txt;
	void* error_scratch;
	void (*free_error)(struct gojax_inspect_args*);
} gojax_inspect_args;

typedef struct {
	void (*call)(void* data, gojax_inspect_args* args);
	void* data;
} gojax_inspect_callback;

// Returns NULL, or the callback's error as a malloc'ed string.
static char* gojax_inspect(const void* config, char* spec, size_t n) {
	gojax_inspect_callback cb;
	memcpy(&cb, config, sizeof cb);
	gojax_inspect_args a = {spec, n, NULL, NULL, NULL};
	cb.call(cb.data, &a);
	if (!a.error_txt) return NULL;
	size_t len = strlen(a.error_txt);
	char* m = malloc(len + 1);
	memcpy(m, a.error_txt, len + 1);
	if (a.free_error) a.free_error(&a);
	return m;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"
)

// InspectTarget is the custom call jax.debug.inspect_array_sharding lowers
// to in programs over several devices.
const InspectTarget = "InspectSharding"

// InspectSharding hands the serialized xla.OpSharding of an inspected value
// to the callback encoded in an InspectSharding custom call's backend
// config, as XLA's partitioner does at compile time (the callback takes the
// GIL itself).
func InspectSharding(config []byte, opSharding []byte) error {
	var cb C.gojax_inspect_callback
	if len(config) != int(unsafe.Sizeof(cb)) {
		return fmt.Errorf("%s: backend config has %d bytes, not a callback (%d)", InspectTarget, len(config), unsafe.Sizeof(cb))
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cfg := C.CBytes(config)
	defer C.free(cfg)
	spec := C.CBytes(append([]byte{0}, opSharding...)) // never a NULL pointer
	defer C.free(spec)
	msg := C.gojax_inspect(cfg, (*C.char)(unsafe.Add(spec, 1)), C.size_t(len(opSharding)))
	if msg == nil {
		return nil
	}
	defer C.free(unsafe.Pointer(msg))
	return errors.New(C.GoString(msg))
}
