// PyCapsule destructors and the release-hook call: the two things cgo cannot
// express in Go (taking a C function's address that C code calls, and calling
// a C function pointer). Struct handling is Arrow Go's (see structs.go).
#include <stdatomic.h>
#include <stdint.h>

#include "_cgo_export.h"

typedef void* (*get_pointer_fn)(void* capsule, const char* name);
static _Atomic(get_pointer_fn) get_pointer = NULL;

void arrowx_set_get_pointer(uintptr_t fn) { atomic_store(&get_pointer, (get_pointer_fn)fn); }

void arrowx_capsule_free_schema(void* capsule) {
  get_pointer_fn get = atomic_load(&get_pointer);
  if (get != NULL) arrowxFreeSchema(get(capsule, "arrow_schema"));
}

void arrowx_capsule_free_array(void* capsule) {
  get_pointer_fn get = atomic_load(&get_pointer);
  if (get != NULL) arrowxFreeArray(get(capsule, "arrow_array"));
}

void arrowx_call_hook(uintptr_t fn, int64_t handle) { ((void (*)(int64_t))fn)(handle); }
