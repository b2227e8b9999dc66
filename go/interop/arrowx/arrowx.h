// Arrow C Data Interface structs (the ABI fixed by the Arrow format spec) and
// the producer-side helpers gojax uses to export dense tensors.
#ifndef GOJAX_ARROWX_H
#define GOJAX_ARROWX_H

#include <stdint.h>

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;
  void (*release)(struct ArrowSchema*);
  void* private_data;
};

struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;
  void (*release)(struct ArrowArray*);
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

// Called once when the consumer releases a top-level exported array: the
// owner registered under handle may now let go of the memory.
typedef void (*arrowx_release_hook)(int64_t handle);

struct ArrowSchema* arrowx_schema_at(uintptr_t addr);
struct ArrowArray* arrowx_array_at(uintptr_t addr);
const void* arrowx_data_ptr(uintptr_t addr);

void arrowx_release_schema(struct ArrowSchema* s);
void arrowx_release_array(struct ArrowArray* a);
void arrowx_set_owner(struct ArrowArray* a, int64_t handle, uintptr_t hook);

// Release (when still owned) and free a struct allocated by gojax; these are
// also the PyCapsule destructors' workers.
void arrowx_free_schema(struct ArrowSchema* s);
void arrowx_free_array(struct ArrowArray* a);
uintptr_t arrowx_free_schema_addr(void);
uintptr_t arrowx_free_array_addr(void);

void arrowx_set_hooks_enabled(int on);

// PyCapsule destructors (void(PyObject*)) for "arrow_schema"/"arrow_array"
// capsules. They reach the struct through PyCapsule_GetPointer, whose address
// the Python side supplies: this library does not link against libpython.
typedef void* (*arrowx_capsule_get_pointer)(void* capsule, const char* name);
void arrowx_set_capsule_get_pointer(uintptr_t fn);
void arrowx_capsule_free_schema(void* capsule);
void arrowx_capsule_free_array(void* capsule);
uintptr_t arrowx_capsule_free_schema_addr(void);
uintptr_t arrowx_capsule_free_array_addr(void);

// Test support: a hook that records the handles it was called with.
void arrowx_recording_hook(int64_t handle);
uintptr_t arrowx_recording_hook_addr(void);
int64_t arrowx_recorded_last(void);
int64_t arrowx_recorded_calls(void);
// A PyCapsule_GetPointer stand-in whose "capsule" is the struct itself and
// that checks the name the destructor asks for.
uintptr_t arrowx_fake_get_pointer_addr(void);
const char* arrowx_fake_get_pointer_last_name(void);

#endif  // GOJAX_ARROWX_H
