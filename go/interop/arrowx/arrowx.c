#include "arrowx.h"

#include <stdatomic.h>
#include <stdlib.h>

struct ArrowSchema* arrowx_schema_at(uintptr_t addr) { return (struct ArrowSchema*)addr; }
struct ArrowArray* arrowx_array_at(uintptr_t addr) { return (struct ArrowArray*)addr; }
const void* arrowx_data_ptr(uintptr_t addr) { return (const void*)addr; }

// Cleared at interpreter shutdown: a hook into a finalizing Python must not run.
static atomic_int hooks_enabled = 1;

void arrowx_set_hooks_enabled(int on) { atomic_store(&hooks_enabled, on); }

struct owner {
  int64_t handle;
  arrowx_release_hook hook;
};

// Every string, child and array hung off an exported schema is malloc'ed by
// gojax, so release frees them all.
void arrowx_release_schema(struct ArrowSchema* s) {
  if (s == NULL || s->release == NULL) return;
  free((void*)s->format);
  free((void*)s->name);
  free((void*)s->metadata);
  for (int64_t i = 0; i < s->n_children; i++) {
    struct ArrowSchema* c = s->children[i];
    if (c == NULL) continue;
    if (c->release != NULL) c->release(c);
    free(c);
  }
  free(s->children);
  s->release = NULL;
}

void arrowx_release_array(struct ArrowArray* a) {
  if (a == NULL || a->release == NULL) return;
  for (int64_t i = 0; i < a->n_children; i++) {
    struct ArrowArray* c = a->children[i];
    if (c == NULL) continue;
    if (c->release != NULL) c->release(c);
    free(c);
  }
  free(a->children);
  free((void*)a->buffers);
  struct owner* o = (struct owner*)a->private_data;
  a->release = NULL;
  a->private_data = NULL;
  if (o != NULL) {
    if (o->hook != NULL && atomic_load(&hooks_enabled)) o->hook(o->handle);
    free(o);
  }
}

void arrowx_set_owner(struct ArrowArray* a, int64_t handle, uintptr_t hook) {
  struct owner* o = malloc(sizeof *o);
  if (o == NULL) abort();
  o->handle = handle;
  o->hook = (arrowx_release_hook)hook;
  a->private_data = o;
}

void arrowx_free_schema(struct ArrowSchema* s) {
  if (s == NULL) return;
  if (s->release != NULL) s->release(s);
  free(s);
}

void arrowx_free_array(struct ArrowArray* a) {
  if (a == NULL) return;
  if (a->release != NULL) a->release(a);
  free(a);
}

uintptr_t arrowx_free_schema_addr(void) { return (uintptr_t)&arrowx_free_schema; }
uintptr_t arrowx_free_array_addr(void) { return (uintptr_t)&arrowx_free_array; }

static _Atomic(arrowx_capsule_get_pointer) capsule_get_pointer = NULL;

void arrowx_set_capsule_get_pointer(uintptr_t fn) {
  atomic_store(&capsule_get_pointer, (arrowx_capsule_get_pointer)fn);
}

void arrowx_capsule_free_schema(void* capsule) {
  arrowx_capsule_get_pointer get = atomic_load(&capsule_get_pointer);
  if (get != NULL) arrowx_free_schema((struct ArrowSchema*)get(capsule, "arrow_schema"));
}

void arrowx_capsule_free_array(void* capsule) {
  arrowx_capsule_get_pointer get = atomic_load(&capsule_get_pointer);
  if (get != NULL) arrowx_free_array((struct ArrowArray*)get(capsule, "arrow_array"));
}

uintptr_t arrowx_capsule_free_schema_addr(void) { return (uintptr_t)&arrowx_capsule_free_schema; }
uintptr_t arrowx_capsule_free_array_addr(void) { return (uintptr_t)&arrowx_capsule_free_array; }

static atomic_llong recorded_last = -1;
static atomic_llong recorded_calls = 0;

void arrowx_recording_hook(int64_t handle) {
  atomic_store(&recorded_last, handle);
  atomic_fetch_add(&recorded_calls, 1);
}
uintptr_t arrowx_recording_hook_addr(void) { return (uintptr_t)&arrowx_recording_hook; }
int64_t arrowx_recorded_last(void) { return atomic_load(&recorded_last); }
int64_t arrowx_recorded_calls(void) { return atomic_load(&recorded_calls); }

static const char* fake_last_name = NULL;

static void* fake_get_pointer(void* capsule, const char* name) {
  fake_last_name = name;
  return capsule;
}
uintptr_t arrowx_fake_get_pointer_addr(void) { return (uintptr_t)&fake_get_pointer; }
const char* arrowx_fake_get_pointer_last_name(void) { return fake_last_name; }
