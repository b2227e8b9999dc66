/* The XLA FFI function table gojax hands to handlers, the handler and type
 * registries, and the call trampoline (Go cannot call C function pointers). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xla_ffi.h"

struct XLA_FFI_Error {
  int code;
  char* msg;
};

XLA_FFI_Error* gojax_ffi_new_error(int code, const char* msg) {
  XLA_FFI_Error* e = (XLA_FFI_Error*)malloc(sizeof *e);
  if (e == NULL) return NULL; /* nothing better to report without memory */
  e->code = code;
  e->msg = strdup(msg ? msg : "");
  return e;
}

static XLA_FFI_Error* errorf(int code, const char* fmt, const char* a) {
  char buf[512];
  snprintf(buf, sizeof buf, fmt, a);
  return gojax_ffi_new_error(code, buf);
}

char* gojax_ffi_error_take(XLA_FFI_Error* err, int* code) {
  *code = err->code;
  char* msg = err->msg ? err->msg : strdup("");
  free(err);
  return msg;
}

/* ---- errors --------------------------------------------------------------- */

static XLA_FFI_Error* api_error_create(XLA_FFI_Error_Create_Args* a) {
  return gojax_ffi_new_error(a->errc, a->message);
}

static void api_error_get_details(XLA_FFI_Error_GetDetails_Args* a) {
  a->message = a->error ? a->error->msg : "";
  a->errc = a->error ? a->error->code : GOJAX_FFI_OK;
}

static void api_error_destroy(XLA_FFI_Error_Destroy_Args* a) {
  if (a->error == NULL) return;
  free(a->error->msg);
  free(a->error);
}

/* ---- registries ----------------------------------------------------------- */

typedef struct handler_entry {
  char* name;
  size_t name_len;
  XLA_FFI_Handler_Bundle bundle;
  uint32_t traits;
  struct handler_entry* next;
} handler_entry;

typedef struct type_entry {
  char* name;
  size_t name_len;
  int64_t id;
  void (*deleter)(void*);
  struct type_entry* next;
} type_entry;

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static handler_entry* handlers;
static type_entry* types;
/* Ids gojax hands out; far above those XLA's registry gives the same types
 * when a type is registered with both. */
static int64_t next_type_id = 1 << 20;

static char* dup_span(const char* s, size_t n) {
  char* d = (char*)malloc(n + 1);
  if (d == NULL) return NULL;
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

static char* message(const char* fmt, const char* name) {
  char buf[512];
  snprintf(buf, sizeof buf, fmt, name);
  return strdup(buf);
}

int gojax_ffi_register(const char* name, size_t name_len, const char* platform, size_t platform_len,
                       const XLA_FFI_Handler_Bundle* bundle, uint32_t traits, char** err) {
  /* gojax runs on the host: it takes handlers for the platforms JAX and XLA
   * call the CPU ("cpu" and "Host"). */
  if (!((platform_len == 3 && strncasecmp(platform, "cpu", 3) == 0) ||
        (platform_len == 4 && strncasecmp(platform, "host", 4) == 0))) {
    char* plat = dup_span(platform, platform_len);
    *err = message("gojax runs FFI handlers for platform \"cpu\" (or \"Host\"), not \"%s\"", plat ? plat : "");
    free(plat);
    return 0;
  }
  if (bundle->execute == NULL) {
    *err = strdup("an FFI handler bundle must have an execute handler");
    return 0;
  }
  pthread_mutex_lock(&registry_mu);
  for (handler_entry* h = handlers; h != NULL; h = h->next) {
    if (h->name_len == name_len && memcmp(h->name, name, name_len) == 0) {
      int same = memcmp(&h->bundle, bundle, sizeof *bundle) == 0 && h->traits == traits;
      pthread_mutex_unlock(&registry_mu);
      if (same) return 1; /* registering the same handler again is harmless */
      char* n = dup_span(name, name_len);
      *err = message("FFI target \"%s\" is already registered with a different handler", n ? n : "");
      free(n);
      return 0;
    }
  }
  handler_entry* h = (handler_entry*)calloc(1, sizeof *h);
  char* n = dup_span(name, name_len);
  if (h == NULL || n == NULL) {
    pthread_mutex_unlock(&registry_mu);
    free(h);
    free(n);
    *err = strdup("out of memory");
    return 0;
  }
  h->name = n;
  h->name_len = name_len;
  h->bundle = *bundle;
  h->traits = traits;
  h->next = handlers;
  handlers = h;
  pthread_mutex_unlock(&registry_mu);
  return 1;
}

int gojax_ffi_lookup(const char* name, size_t name_len, XLA_FFI_Handler_Bundle* bundle, uint32_t* traits) {
  pthread_mutex_lock(&registry_mu);
  for (handler_entry* h = handlers; h != NULL; h = h->next) {
    if (h->name_len == name_len && memcmp(h->name, name, name_len) == 0) {
      *bundle = h->bundle;
      *traits = h->traits;
      pthread_mutex_unlock(&registry_mu);
      return 1;
    }
  }
  pthread_mutex_unlock(&registry_mu);
  return 0;
}

int gojax_ffi_type_register(const char* name, size_t name_len, int64_t* type_id, void (*deleter)(void*), char** err) {
  pthread_mutex_lock(&registry_mu);
  for (type_entry* t = types; t != NULL; t = t->next) {
    if (t->name_len == name_len && memcmp(t->name, name, name_len) == 0) {
      if (*type_id == 0 || *type_id == t->id) {
        *type_id = t->id;
        if (t->deleter == NULL) t->deleter = deleter;
        pthread_mutex_unlock(&registry_mu);
        return 1;
      }
      pthread_mutex_unlock(&registry_mu);
      char* n = dup_span(name, name_len);
      *err = message("FFI type \"%s\" is already registered with another id", n ? n : "");
      free(n);
      return 0;
    }
    if (*type_id != 0 && t->id == *type_id) {
      pthread_mutex_unlock(&registry_mu);
      char* n = dup_span(name, name_len);
      *err = message("FFI type id of \"%s\" is already taken by another type", n ? n : "");
      free(n);
      return 0;
    }
  }
  type_entry* t = (type_entry*)calloc(1, sizeof *t);
  char* n = dup_span(name, name_len);
  if (t == NULL || n == NULL) {
    pthread_mutex_unlock(&registry_mu);
    free(t);
    free(n);
    *err = strdup("out of memory");
    return 0;
  }
  if (*type_id == 0) *type_id = next_type_id++;
  t->name = n;
  t->name_len = name_len;
  t->id = *type_id;
  t->deleter = deleter;
  t->next = types;
  types = t;
  pthread_mutex_unlock(&registry_mu);
  return 1;
}

static void (*type_deleter(int64_t id))(void*) {
  void (*d)(void*) = NULL;
  pthread_mutex_lock(&registry_mu);
  for (type_entry* t = types; t != NULL; t = t->next) {
    if (t->id == id) {
      d = t->deleter;
      break;
    }
  }
  pthread_mutex_unlock(&registry_mu);
  return d;
}

static XLA_FFI_Error* api_handler_register(XLA_FFI_Handler_Register_Args* a) {
  char* err = NULL;
  if (!gojax_ffi_register(a->name.ptr, a->name.len, a->platform.ptr, a->platform.len, &a->bundle, a->traits, &err)) {
    XLA_FFI_Error* e = gojax_ffi_new_error(GOJAX_FFI_INVALID_ARGUMENT, err);
    free(err);
    return e;
  }
  return NULL;
}

static XLA_FFI_Error* api_type_register(XLA_FFI_Type_Register_Args* a) {
  char* err = NULL;
  void (*deleter)(void*) = a->type_info ? a->type_info->deleter : NULL;
  if (!gojax_ffi_type_register(a->name.ptr, a->name.len, &a->type_id->type_id, deleter, &err)) {
    XLA_FFI_Error* e = gojax_ffi_new_error(GOJAX_FFI_ALREADY_EXISTS, err);
    free(err);
    return e;
  }
  return NULL;
}

/* ---- the invoke context --------------------------------------------------- */

static XLA_FFI_Error* api_stream_get(XLA_FFI_Stream_Get_Args* a) {
  (void)a;
  return gojax_ffi_new_error(GOJAX_FFI_UNIMPLEMENTED, "gojax runs on the host CPU and has no device streams");
}

static XLA_FFI_Error* api_user_data_get(XLA_FFI_InvokeContext_Get_Args* a) {
  const XLA_FFI_InvokeContext* c = a->ctx;
  for (int64_t i = 0; c != NULL && i < c->num_user_data; i++) {
    if (c->user_data[i].type_id == a->type_id->type_id) {
      a->data = c->user_data[i].data;
      return NULL;
    }
  }
  char id[32];
  snprintf(id, sizeof id, "%lld", (long long)a->type_id->type_id);
  return errorf(GOJAX_FFI_NOT_FOUND, "no user data of type id %s is attached to this execution", id);
}

static int stage_ok(int stage) {
  return stage >= GOJAX_FFI_STAGE_INSTANTIATE && stage <= GOJAX_FFI_STAGE_INITIALIZE;
}

static XLA_FFI_Error* api_state_set(XLA_FFI_State_Set_Args* a) {
  XLA_FFI_InvokeContext* c = a->ctx;
  if (!stage_ok(a->stage))
    return gojax_ffi_new_error(GOJAX_FFI_INVALID_ARGUMENT, "state can be set only by the instantiate, prepare or initialize stage");
  if (c->state[a->stage] != NULL)
    return gojax_ffi_new_error(GOJAX_FFI_ALREADY_EXISTS, "this stage's state is already set");
  c->state_type[a->stage] = a->type_id->type_id;
  c->state[a->stage] = a->state;
  return NULL;
}

static XLA_FFI_Error* api_state_get(XLA_FFI_State_Get_Args* a) {
  XLA_FFI_InvokeContext* c = a->ctx;
  if (!stage_ok(a->stage))
    return gojax_ffi_new_error(GOJAX_FFI_INVALID_ARGUMENT, "state exists only for the instantiate, prepare and initialize stages");
  if (c->state[a->stage] == NULL)
    return gojax_ffi_new_error(GOJAX_FFI_NOT_FOUND, "no state was set by that stage");
  if (c->state_type[a->stage] != a->type_id->type_id)
    return gojax_ffi_new_error(GOJAX_FFI_INVALID_ARGUMENT, "the stage's state has another type");
  a->state = c->state[a->stage];
  return NULL;
}

static XLA_FFI_Error* api_memory_allocate(XLA_FFI_DeviceMemory_Allocate_Args* a) {
  size_t align = a->alignment < sizeof(void*) ? sizeof(void*) : a->alignment;
  if ((align & (align - 1)) != 0)
    return gojax_ffi_new_error(GOJAX_FFI_INVALID_ARGUMENT, "alignment must be a power of two");
  void* p = NULL;
  if (posix_memalign(&p, align, a->size ? a->size : 1) != 0)
    return gojax_ffi_new_error(GOJAX_FFI_RESOURCE_EXHAUSTED, "out of host memory for an FFI scratch allocation");
  a->data = p;
  return NULL;
}

static XLA_FFI_Error* api_memory_free(XLA_FFI_DeviceMemory_Free_Args* a) {
  free(a->data);
  return NULL;
}

typedef struct task {
  XLA_FFI_Task* fn;
  void* data;
} task;

static void* run_task(void* p) {
  task t = *(task*)p;
  free(p);
  t.fn(t.data);
  return NULL;
}

/* Each task gets a thread of its own: a handler may block on its tasks, so
 * none may wait behind the caller. */
static XLA_FFI_Error* api_schedule(XLA_FFI_ThreadPool_Schedule_Args* a) {
  task* t = (task*)malloc(sizeof *t);
  if (t == NULL) return gojax_ffi_new_error(GOJAX_FFI_RESOURCE_EXHAUSTED, "out of memory");
  t->fn = a->task;
  t->data = a->data;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t th;
  int rc = pthread_create(&th, &attr, run_task, t);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    free(t);
    return gojax_ffi_new_error(GOJAX_FFI_RESOURCE_EXHAUSTED, "cannot start a thread for an FFI task");
  }
  return NULL;
}

static XLA_FFI_Error* api_num_threads(XLA_FFI_ThreadPool_NumThreads_Args* a) {
  *a->num_threads = a->ctx->num_threads;
  return NULL;
}

/* A step learns its execution from the run's context, which reaches the
 * steps of a program's top level and control flow, not those of kernel
 * regions (reduce bodies, comparators) nor the instantiate stage. */
static XLA_FFI_Error* api_run_id(XLA_FFI_RunId_Get_Args* a) {
  if (a->ctx == NULL || !a->ctx->has_run) {
    return gojax_ffi_new_error(GOJAX_FFI_UNIMPLEMENTED, "this FFI call does not know which execution it runs for");
  }
  a->run_id = a->ctx->run_id;
  return NULL;
}

static XLA_FFI_Error* api_device_ordinal(XLA_FFI_DeviceOrdinal_Get_Args* a) {
  if (a->ctx == NULL || !a->ctx->has_run) {
    return gojax_ffi_new_error(GOJAX_FFI_UNIMPLEMENTED, "this FFI call does not know which device it runs for");
  }
  a->device_ordinal = a->ctx->device_ordinal;
  return NULL;
}

static XLA_FFI_Error* api_find_extension(XLA_FFI_InvokeContext_FindExtension_Args* a) {
  a->extension = NULL;
  return gojax_ffi_new_error(GOJAX_FFI_NOT_FOUND, "gojax offers no invoke-context extensions");
}

static const XLA_FFI_Attrs no_options = {GOJAX_FFI_SIZE(XLA_FFI_Attrs, attrs), NULL, 0, NULL, NULL, NULL};

static XLA_FFI_Error* api_custom_options(XLA_FFI_CustomOptions_Get_Args* a) {
  a->attrs = &no_options; /* gojax's compile options carry none */
  return NULL;
}

/* ---- futures -------------------------------------------------------------- */

struct XLA_FFI_Future {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
  XLA_FFI_Error* err;
};

static XLA_FFI_Error* api_future_create(XLA_FFI_Future_Create_Args* a) {
  XLA_FFI_Future* f = (XLA_FFI_Future*)calloc(1, sizeof *f);
  if (f == NULL) return gojax_ffi_new_error(GOJAX_FFI_RESOURCE_EXHAUSTED, "out of memory");
  pthread_mutex_init(&f->mu, NULL);
  pthread_cond_init(&f->cv, NULL);
  a->future = f;
  return NULL;
}

static XLA_FFI_Error* complete(XLA_FFI_Future* f, XLA_FFI_Error* err) {
  pthread_mutex_lock(&f->mu);
  if (f->done) {
    pthread_mutex_unlock(&f->mu);
    return gojax_ffi_new_error(GOJAX_FFI_FAILED_PRECONDITION, "the future was already completed");
  }
  f->done = 1;
  f->err = err;
  pthread_cond_broadcast(&f->cv);
  pthread_mutex_unlock(&f->mu);
  return NULL;
}

static XLA_FFI_Error* api_future_available(XLA_FFI_Future_SetAvailable_Args* a) { return complete(a->future, NULL); }

static XLA_FFI_Error* api_future_error(XLA_FFI_Future_SetError_Args* a) {
  XLA_FFI_Error* err = a->error ? a->error : gojax_ffi_new_error(GOJAX_FFI_INTERNAL, "FFI future failed");
  return complete(a->future, err);
}

/* wait blocks until the handler's future completes, then frees it. */
static XLA_FFI_Error* wait(XLA_FFI_Future* f) {
  pthread_mutex_lock(&f->mu);
  while (!f->done) pthread_cond_wait(&f->cv, &f->mu);
  XLA_FFI_Error* err = f->err;
  pthread_mutex_unlock(&f->mu);
  pthread_cond_destroy(&f->cv);
  pthread_mutex_destroy(&f->mu);
  free(f);
  return err;
}

const XLA_FFI_Api gojax_ffi_api = {
    .struct_size = GOJAX_FFI_SIZE(XLA_FFI_Api, XLA_FFI_CustomOptions_Get),
    .extension_start = NULL,
    .api_version = {GOJAX_FFI_SIZE(XLA_FFI_Api_Version, minor_version), NULL, GOJAX_FFI_API_MAJOR, GOJAX_FFI_API_MINOR},
    .internal_api = NULL,
    .XLA_FFI_Error_Create = api_error_create,
    .XLA_FFI_Error_GetDetails = api_error_get_details,
    .XLA_FFI_Error_Destroy = api_error_destroy,
    .XLA_FFI_Handler_Register = api_handler_register,
    .XLA_FFI_Stream_Get = api_stream_get,
    .XLA_FFI_Type_Register = api_type_register,
    .XLA_FFI_InvokeContext_Get = api_user_data_get,
    .XLA_FFI_State_Set = api_state_set,
    .XLA_FFI_State_Get = api_state_get,
    .XLA_FFI_DeviceMemory_Allocate = api_memory_allocate,
    .XLA_FFI_DeviceMemory_Free = api_memory_free,
    .XLA_FFI_ThreadPool_Schedule = api_schedule,
    .XLA_FFI_ThreadPool_NumThreads = api_num_threads,
    .XLA_FFI_Future_Create = api_future_create,
    .XLA_FFI_Future_SetAvailable = api_future_available,
    .XLA_FFI_Future_SetError = api_future_error,
    .XLA_FFI_RunId_Get = api_run_id,
    .XLA_FFI_DeviceOrdinal_Get = api_device_ordinal,
    .XLA_FFI_InvokeContext_FindExtension = api_find_extension,
    .XLA_FFI_CustomOptions_Get = api_custom_options,
};

/* ---- calls ---------------------------------------------------------------- */

static void frame_init(XLA_FFI_CallFrame* f, XLA_FFI_InvokeContext* ctx, int stage, const XLA_FFI_Attrs* attrs) {
  memset(f, 0, sizeof *f);
  f->struct_size = GOJAX_FFI_SIZE(XLA_FFI_CallFrame, attrs);
  f->api = &gojax_ffi_api;
  f->ctx = ctx;
  f->stage = stage;
  f->args.struct_size = GOJAX_FFI_SIZE(XLA_FFI_Args, args);
  f->rets.struct_size = GOJAX_FFI_SIZE(XLA_FFI_Rets, rets);
  f->attrs = *attrs;
}

/* call runs one stage's handler; an asynchronous result is waited for. */
static XLA_FFI_Error* call(XLA_FFI_Handler* h, XLA_FFI_CallFrame* f) {
  f->future = NULL;
  XLA_FFI_Error* err = h(f);
  if (err != NULL) {
    if (f->future != NULL) (void)wait(f->future);
    return err;
  }
  if (f->future != NULL) return wait(f->future);
  return NULL;
}

static void release(int64_t type, void* state) {
  if (state == NULL) return;
  void (*d)(void*) = type_deleter(type);
  if (d != NULL) d(state);
}

XLA_FFI_Error* gojax_ffi_instantiate(gojax_ffi_step* step, int64_t num_threads) {
  if (step->bundle.instantiate == NULL) return NULL;
  XLA_FFI_InvokeContext ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.step = step;
  ctx.num_threads = num_threads;
  XLA_FFI_CallFrame f;
  frame_init(&f, &ctx, GOJAX_FFI_STAGE_INSTANTIATE, &step->attrs);
  XLA_FFI_Error* err = call(step->bundle.instantiate, &f);
  if (err != NULL) {
    release(ctx.state_type[0], ctx.state[0]);
    return err;
  }
  step->state_type = ctx.state_type[0];
  step->state = ctx.state[0];
  return NULL;
}

void gojax_ffi_step_release_state(gojax_ffi_step* step) {
  release(step->state_type, step->state);
  step->state = NULL;
}

enum { STACK_BUFFERS = 16 };

XLA_FFI_Error* gojax_ffi_run(const gojax_ffi_step* step, void* const* arg_data, void* const* ret_data,
                             int64_t num_threads, const gojax_ffi_userdata* user_data, int64_t num_user_data,
                             gojax_ffi_runinfo run) {
  int64_t n = step->nargs + step->nrets;
  XLA_FFI_Buffer stack_bufs[STACK_BUFFERS];
  void* stack_ptrs[STACK_BUFFERS];
  int stack_types[STACK_BUFFERS];
  XLA_FFI_Buffer* bufs = stack_bufs;
  void** ptrs = stack_ptrs;
  int* kinds = stack_types;
  if (n > STACK_BUFFERS) {
    bufs = (XLA_FFI_Buffer*)malloc(n * sizeof *bufs);
    ptrs = (void**)malloc(n * sizeof *ptrs);
    kinds = (int*)malloc(n * sizeof *kinds);
    if (bufs == NULL || ptrs == NULL || kinds == NULL) {
      free(bufs);
      free(ptrs);
      free(kinds);
      return gojax_ffi_new_error(GOJAX_FFI_RESOURCE_EXHAUSTED, "out of memory for an FFI call frame");
    }
  }
  for (int64_t i = 0; i < n; i++) {
    int is_arg = i < step->nargs;
    bufs[i] = is_arg ? step->args[i] : step->rets[i - step->nargs];
    bufs[i].data = is_arg ? arg_data[i] : ret_data[i - step->nargs];
    ptrs[i] = &bufs[i];
    kinds[i] = is_arg ? GOJAX_FFI_ARG_BUFFER : GOJAX_FFI_RET_BUFFER;
  }
  XLA_FFI_InvokeContext ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.step = step;
  ctx.num_threads = num_threads;
  ctx.user_data = user_data;
  ctx.num_user_data = num_user_data;
  ctx.has_run = run.has_run;
  ctx.run_id = run.run_id;
  ctx.device_ordinal = run.device_ordinal;
  ctx.state_type[0] = step->state_type;
  ctx.state[0] = step->state;

  XLA_FFI_CallFrame f;
  XLA_FFI_Error* err = NULL;
  XLA_FFI_Handler* stages[3] = {step->bundle.prepare, step->bundle.initialize, step->bundle.execute};
  int ids[3] = {GOJAX_FFI_STAGE_PREPARE, GOJAX_FFI_STAGE_INITIALIZE, GOJAX_FFI_STAGE_EXECUTE};
  for (int s = 0; s < 3 && err == NULL; s++) {
    if (stages[s] == NULL) continue;
    frame_init(&f, &ctx, ids[s], &step->attrs);
    f.args.size = step->nargs;
    f.args.types = kinds;
    f.args.args = ptrs;
    f.rets.size = step->nrets;
    f.rets.types = kinds + step->nargs;
    f.rets.rets = ptrs + step->nargs;
    err = call(stages[s], &f);
  }
  release(ctx.state_type[1], ctx.state[1]);
  release(ctx.state_type[2], ctx.state[2]);
  if (bufs != stack_bufs) {
    free(bufs);
    free(ptrs);
    free(kinds);
  }
  return err;
}

XLA_FFI_Error* gojax_ffi_metadata(XLA_FFI_Handler* execute, XLA_FFI_Metadata* out) {
  memset(out, 0, sizeof *out);
  out->struct_size = GOJAX_FFI_SIZE(XLA_FFI_Metadata, traits);
  out->api_version.struct_size = GOJAX_FFI_SIZE(XLA_FFI_Api_Version, minor_version);
  XLA_FFI_Metadata_Extension ext;
  memset(&ext, 0, sizeof ext);
  ext.extension_base.struct_size = GOJAX_FFI_SIZE(XLA_FFI_Metadata_Extension, metadata);
  ext.extension_base.type = GOJAX_FFI_EXTENSION_METADATA;
  ext.metadata = out;
  static const XLA_FFI_Attrs none = {GOJAX_FFI_SIZE(XLA_FFI_Attrs, attrs), NULL, 0, NULL, NULL, NULL};
  XLA_FFI_InvokeContext ctx;
  memset(&ctx, 0, sizeof ctx);
  XLA_FFI_CallFrame f;
  frame_init(&f, &ctx, GOJAX_FFI_STAGE_EXECUTE, &none);
  f.extension_start = &ext.extension_base;
  return execute(&f);
}
