// gojax PJRT C side: the PJRT_Api table, error and memory vtables, small
// helpers, and C fast paths for the queries made on every execution.
// Everything with real behaviour lives in the package's Go files, in the
// functions marked //export (client.go, buffer.go, executable.go, ...).
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gojax_capi.h"
#include "_cgo_export.h"

/* ---- fork -------------------------------------------------------------- */

/* Go's runtime threads do not survive fork(): in the child, the first call
 * into Go waits forever for them. The atfork handler marks the child, and
 * every path into Go below checks the mark in C first and fails at once. */
static int forked_child;

static void mark_forked_child(void) { __atomic_store_n(&forked_child, 1, __ATOMIC_RELAXED); }

__attribute__((constructor)) static void watch_fork(void) {
  pthread_atfork(NULL, NULL, mark_forked_child);
}

int gojax_in_forked_child(void) { return __atomic_load_n(&forked_child, __ATOMIC_RELAXED); }

#define FORKED() __builtin_expect(__atomic_load_n(&forked_child, __ATOMIC_RELAXED), 0)

/* ---- signal stacks under AMX --------------------------------------------- */

/* Once the process holds the AMX tile state, a signal that interrupts a
 * thread which has used the tiles saves about 8 KiB more on the signal
 * stack. Go runs its signal handler on the alternate stack a foreign thread
 * already has (libraries install 8-20 KiB ones, e.g. SIGSTKSZ-sized), so
 * such a frame could leave the handler too little and it would overflow
 * into the memory below. Kernels run on the calling thread too, so every
 * thread that enters Go is first given an alternate stack of SIGSTACK_NEW
 * bytes when its own is smaller than SIGSTACK_MIN; a thread with none gets
 * Go's own (32 KiB, enough). The new stack is the thread's for its life (it
 * is never freed: a handler may be on it until the thread ends). Go's
 * handler finds the stack it runs on by asking the kernel, so it follows. */
#define SIGSTACK_MIN (32 << 10)
#define SIGSTACK_NEW (64 << 10)
static int tiles_granted;
/* Marks the threads already seen. A pthread key, not __thread: TLS in a
 * shared library calls __tls_get_addr, which makes the library need the
 * dynamic loader itself, outside the manylinux policy. */
static pthread_key_t sigstack_seen;

void gojax_tiles_granted(void) {
  if (pthread_key_create(&sigstack_seen, NULL) == 0) __atomic_store_n(&tiles_granted, 1, __ATOMIC_RELEASE);
}

/* gojax_widen_sigstack gives the calling thread a large enough alternate
 * stack: 1 when it replaced a small one, 0 when none was needed, -1 on
 * failure (the thread keeps its stack). */
int gojax_widen_sigstack(void) {
  stack_t cur;
  if (sigaltstack(NULL, &cur) != 0) return -1;
  if ((cur.ss_flags & SS_DISABLE) || (cur.ss_flags & SS_ONSTACK) || cur.ss_size >= SIGSTACK_MIN) return 0;
  void* p = malloc(SIGSTACK_NEW);
  if (p == NULL) return -1;
  stack_t ss = {.ss_sp = p, .ss_flags = 0, .ss_size = SIGSTACK_NEW};
  if (sigaltstack(&ss, NULL) != 0) {
    free(p);
    return -1;
  }
  return 1;
}

static inline void enter_go(void) {
  if (__builtin_expect(__atomic_load_n(&tiles_granted, __ATOMIC_ACQUIRE), 0) &&
      pthread_getspecific(sigstack_seen) == NULL) {
    (void)pthread_setspecific(sigstack_seen, (void*)1);
    (void)gojax_widen_sigstack();
  }
}

static const char forked_msg[] =
    "gojax cannot be used in a forked child process; use the 'spawn' or 'forkserver' start method";

/* ---- errors ------------------------------------------------------------ */

static void err_destroy(PJRT_Error* e) {
  if (e == NULL) return;
  gojax_Error* g = (gojax_Error*)e;
  free(g->msg);
  free(g);
}

static void err_message(const PJRT_Error* e, const char** msg, size_t* len) {
  const gojax_Error* g = (const gojax_Error*)e;
  if (msg) *msg = g ? g->msg : "";
  if (len) *len = g ? g->len : 0;
}

static PJRT_Error_Code err_get_code(const PJRT_Error* e) {
  return e ? ((const gojax_Error*)e)->code : PJRT_Error_Code_OK;
}

/* gojax errors carry no payloads. */
static void err_for_each_payload(const PJRT_Error* e, PJRT_Error_PayloadVisitor v, void* arg) {
  (void)e; (void)v; (void)arg;
}

const PJRT_Error_FunctionTable gojax_error_vtable = {
    .struct_size = PJRT_Error_FunctionTable_STRUCT_SIZE,
    .instance_size = sizeof(gojax_Error),
    .extension_start = NULL,
    .destroy = err_destroy,
    .message = err_message,
    .get_code = err_get_code,
    .for_each_payload = err_for_each_payload,
};

PJRT_Error* gojax_new_error(int code, const char* msg, size_t len) {
  gojax_Error* g = (gojax_Error*)calloc(1, sizeof(gojax_Error));
  if (g == NULL) return NULL; /* nothing better to do without memory */
  g->base.vtable = &gojax_error_vtable;
  g->code = (PJRT_Error_Code)code;
  g->msg = (char*)malloc(len + 1);
  if (g->msg != NULL) {
    if (len) memcpy(g->msg, msg, len);
    g->msg[len] = 0;
    g->len = len;
  }
  return &g->base;
}

static int bad_args_text(char* buf, size_t cap, const char* fn, size_t got, size_t want) {
  if (got == 0 && want == 0) return snprintf(buf, cap, "%s: args is NULL", fn);
  return snprintf(buf, cap, "%s: args->struct_size is %zu, gojax needs at least %zu", fn, got, want);
}

static PJRT_Error* bad_args(const char* fn, size_t got, size_t want) {
  char buf[256];
  int n = bad_args_text(buf, sizeof buf, fn, got, want);
  return gojax_new_error(PJRT_Error_Code_INVALID_ARGUMENT, buf, (size_t)n);
}

/* In a forked child every call fails, except destroys: those answer OK and
 * leak, since the framework treats a failed destroy as fatal and the memory
 * is the child's copy of the parent's anyway. */
static PJRT_Error* forked_error(const char* fn) {
  size_t n = strlen(fn);
  static const char suffix[] = "_Destroy";
  if (n >= sizeof suffix - 1 && strcmp(fn + n - (sizeof suffix - 1), suffix) == 0) return NULL;
  char buf[256];
  int len = snprintf(buf, sizeof buf, "%s: %s", fn, forked_msg);
  return gojax_new_error(PJRT_Error_Code_FAILED_PRECONDITION, buf, (size_t)len);
}

/* The two void entry points cannot return their bad-args error, so they
 * report it on stderr, in the words the others use, and do nothing. */
static void bad_void_args(const char* fn, size_t got, size_t want) {
  char buf[256];
  bad_args_text(buf, sizeof buf, fn, got, want);
  fprintf(stderr, "gojax: %s (call ignored)\n", buf);
}

/* Error functions are pure C: they run inside the framework's error paths
 * (in a forked child too). */
static void c_Error_Destroy(PJRT_Error_Destroy_Args* args) {
  if (args == NULL) {
    bad_void_args("PJRT_Error_Destroy", 0, 0);
    return;
  }
  if (args->struct_size < PJRT_Error_Destroy_Args_STRUCT_SIZE) {
    bad_void_args("PJRT_Error_Destroy", args->struct_size, PJRT_Error_Destroy_Args_STRUCT_SIZE);
    return;
  }
  err_destroy(args->error);
}

static void c_Error_Message(PJRT_Error_Message_Args* args) {
  if (args == NULL) {
    bad_void_args("PJRT_Error_Message", 0, 0);
    return;
  }
  if (args->struct_size < PJRT_Error_Message_Args_STRUCT_SIZE) {
    bad_void_args("PJRT_Error_Message", args->struct_size, PJRT_Error_Message_Args_STRUCT_SIZE);
    return;
  }
  if (args->error == NULL) {
    args->message = "";
    args->message_size = 0;
    return;
  }
  err_message(args->error, &args->message, &args->message_size);
}

static PJRT_Error* c_Error_GetCode(PJRT_Error_GetCode_Args* args) {
  if (args == NULL) return bad_args("PJRT_Error_GetCode", 0, 0);
  if (args->struct_size < PJRT_Error_GetCode_Args_STRUCT_SIZE)
    return bad_args("PJRT_Error_GetCode", args->struct_size, PJRT_Error_GetCode_Args_STRUCT_SIZE);
  if (args->error == NULL)
    return gojax_new_error(PJRT_Error_Code_INVALID_ARGUMENT, "PJRT_Error_GetCode: error is NULL", 33);
  args->code = err_get_code(args->error);
  return NULL;
}

/* Must never fail: the framework calls it on every error it converts. */
static PJRT_Error* c_Error_ForEachPayload(PJRT_Error_ForEachPayload_Args* args) {
  (void)args;
  return NULL;
}

/* ---- memories ---------------------------------------------------------- */

struct gojax_UserData {
  const void* key;
  void* data;
  void (*dtor)(void*);
  gojax_UserData* next;
};

static void* mem_get_user_data(PJRT_Memory* m, const void* key) {
  gojax_Memory* g = (gojax_Memory*)m;
  void* out = NULL;
  if (g == NULL || g->mu == NULL) return NULL;
  pthread_mutex_lock((pthread_mutex_t*)g->mu);
  for (gojax_UserData* u = g->user_data; u; u = u->next)
    if (u->key == key) { out = u->data; break; }
  pthread_mutex_unlock((pthread_mutex_t*)g->mu);
  return out;
}

static void mem_set_user_data(PJRT_Memory* m, const void* key, void* data, void (*dtor)(void*)) {
  gojax_Memory* g = (gojax_Memory*)m;
  void* old = NULL;
  void (*old_dtor)(void*) = NULL;
  if (g == NULL || g->mu == NULL) return;
  pthread_mutex_lock((pthread_mutex_t*)g->mu);
  gojax_UserData* u = g->user_data;
  for (; u; u = u->next)
    if (u->key == key) break;
  if (u) {
    old = u->data;
    old_dtor = u->dtor;
    u->data = data;
    u->dtor = dtor;
  } else {
    u = (gojax_UserData*)calloc(1, sizeof *u);
    if (u) {
      u->key = key; u->data = data; u->dtor = dtor;
      u->next = g->user_data;
      g->user_data = u;
    }
  }
  pthread_mutex_unlock((pthread_mutex_t*)g->mu);
  if (old_dtor && old && old != data) old_dtor(old);
}

const PJRT_Memory_FunctionTable gojax_memory_vtable = {
    .struct_size = PJRT_Memory_FunctionTable_STRUCT_SIZE,
    .extension_start = NULL,
    .instance_struct_size = sizeof(gojax_Memory),
    .get_user_data = mem_get_user_data,
    .set_user_data = mem_set_user_data,
};

gojax_Memory* gojax_new_memory(uintptr_t h) {
  gojax_Memory* g = (gojax_Memory*)calloc(1, sizeof(gojax_Memory));
  if (!g) return NULL;
  pthread_mutex_t* mu = (pthread_mutex_t*)malloc(sizeof(pthread_mutex_t));
  if (!mu) { free(g); return NULL; }
  pthread_mutex_init(mu, NULL);
  g->base.vtable = &gojax_memory_vtable;
  g->h = h;
  g->mu = mu;
  return g;
}

void gojax_free_memory(gojax_Memory* g) {
  if (!g) return;
  gojax_UserData* u = g->user_data;
  g->user_data = NULL;
  while (u) {
    gojax_UserData* next = u->next;
    if (u->dtor && u->data) u->dtor(u->data);
    free(u);
    u = next;
  }
  pthread_mutex_destroy((pthread_mutex_t*)g->mu);
  free(g->mu);
  free(g);
}

/* ---- helpers ----------------------------------------------------------- */

void gojax_call_on_ready(PJRT_Event_OnReadyCallback cb, PJRT_Error* err, void* user_arg) {
  cb(err, user_arg);
}

void gojax_call_on_delete(void (*cb)(void*, void*), void* ptr, void* arg) { cb(ptr, arg); }

int64_t gojax_nv_int64(const PJRT_NamedValue* nv) { return nv->int64_value; }
const char* gojax_nv_string(const PJRT_NamedValue* nv) { return nv->string_value; }
const int64_t* gojax_nv_int64_list(const PJRT_NamedValue* nv) { return nv->int64_array_value; }
float gojax_nv_float(const PJRT_NamedValue* nv) { return nv->float_value; }
bool gojax_nv_bool(const PJRT_NamedValue* nv) { return nv->bool_value; }

static void nv_init(PJRT_NamedValue* nv, const char* name) {
  memset(nv, 0, sizeof *nv);
  nv->struct_size = PJRT_NamedValue_STRUCT_SIZE;
  nv->name = name;
  nv->name_size = strlen(name);
}

void gojax_nv_set_int64(PJRT_NamedValue* nv, const char* name, int64_t v) {
  nv_init(nv, name);
  nv->type = PJRT_NamedValue_kInt64;
  nv->int64_value = v;
  nv->value_size = 1;
}

void gojax_nv_set_float(PJRT_NamedValue* nv, const char* name, float v) {
  nv_init(nv, name);
  nv->type = PJRT_NamedValue_kFloat;
  nv->float_value = v;
  nv->value_size = 1;
}

void gojax_nv_set_int64_list(PJRT_NamedValue* nv, const char* name, const int64_t* v, size_t n) {
  nv_init(nv, name);
  nv->type = PJRT_NamedValue_kInt64List;
  nv->int64_array_value = v;
  nv->value_size = n;
}

void gojax_nv_set_string(PJRT_NamedValue* nv, const char* name, const char* v) {
  nv_init(nv, name);
  nv->type = PJRT_NamedValue_kString;
  nv->string_value = v;
  nv->value_size = strlen(v);
}

void gojax_layout_set_tiled(PJRT_Buffer_MemoryLayout* l, const int64_t* m2m, size_t n) {
  memset(l, 0, sizeof *l);
  l->struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE;
  l->type = PJRT_Buffer_MemoryLayout_Type_Tiled;
  l->tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
  l->tiled.minor_to_major = m2m;
  l->tiled.minor_to_major_size = n;
  l->tiled.tile_dims = NULL;
  l->tiled.tile_dim_sizes = NULL;
  l->tiled.num_tiles = 0;
}

const int64_t* gojax_layout_tiled_m2m(const PJRT_Buffer_MemoryLayout* l, size_t* n, size_t* num_tiles) {
  *n = l->tiled.minor_to_major_size;
  *num_tiles = l->tiled.num_tiles;
  return l->tiled.minor_to_major;
}

const int64_t* gojax_layout_strides(const PJRT_Buffer_MemoryLayout* l, size_t* n) {
  *n = l->strides.num_byte_strides;
  return l->strides.byte_strides;
}

void gojax_raw_future_ready(PJRT_Buffer_CopyRawToHostFuture_Callback_Args* args) {
  if (FORKED()) return; /* Go cannot run here; nobody in the child waits */
  gojaxRawFutureReady(args);
}

void gojax_donate_dependency_ready(PJRT_Buffer_DonateWithControlDependency_Callback_Args* args) {
  if (FORKED()) return;
  gojaxDonateDependencyReady(args);
}

void gojax_free_serialized_executable(PJRT_SerializedExecutable* p) { free(p); }
void gojax_free_serialized_topology(PJRT_SerializedTopology* p) { free(p); }
void gojax_free_serialized_compile_options(PJRT_SerializedCompileOptions* p) { free(p); }
void gojax_free_device_assignment(PJRT_DeviceAssignmentSerialized* p) { free(p); }
void gojax_free_device_attributes(PJRT_Device_Attributes* p) { (void)p; /* owned by the device */ }
void gojax_free_serialized_shape(const char* p) { free((void*)p); }

/* ---- entry points -------------------------------------------------------- */

/* Go exports follow the gojax_<slot> naming; declaring them with the slot's
 * function type makes the compiler check every signature. */
static PJRT_Error* c_ExecuteContext_Create(PJRT_ExecuteContext_Create_Args* args);
static PJRT_Error* c_ExecuteContext_Destroy(PJRT_ExecuteContext_Destroy_Args* args);
#define gojax_PJRT_Error_Destroy c_Error_Destroy
#define gojax_PJRT_Error_Message c_Error_Message
#define gojax_PJRT_Error_GetCode c_Error_GetCode
#define gojax_PJRT_Error_ForEachPayload c_Error_ForEachPayload
#define gojax_PJRT_ExecuteContext_Create c_ExecuteContext_Create
#define gojax_PJRT_ExecuteContext_Destroy c_ExecuteContext_Destroy

#define GOJAX_SLOT(name) extern name gojax_##name;
#include "pjrt_slots.h"
#undef GOJAX_SLOT

/* guard_<slot> is what the table holds: the fork check, then the entry
 * point. The void slots are the pure-C error functions, unguarded. */
#define GOJAX_VOID_SLOT(name)
#define GOJAX_SLOT(name)                                                   \
  __attribute__((unused)) static PJRT_Error* guard_##name(name##_Args* args) { \
    if (FORKED()) return forked_error(#name);                              \
    enter_go();                                                            \
    return gojax_##name(args);                                             \
  }
#include "pjrt_slots.h"
#undef GOJAX_SLOT
#undef GOJAX_VOID_SLOT

#define GUARD_EXT(fn, T)                                \
  static PJRT_Error* guard_##fn(T* args) {              \
    if (FORKED()) return forked_error("PJRT_" #fn);     \
    enter_go();                                         \
    return gojax_##fn(args);                            \
  }
GUARD_EXT(FFI_TypeRegister, gojax_FFI_TypeRegister_Args)
GUARD_EXT(FFI_RegisterHandler, gojax_FFI_RegisterHandler_Args)
GUARD_EXT(Shardings_ParameterShardings, gojax_Shardings_Args)
GUARD_EXT(Shardings_OutputShardings, gojax_Shardings_Args)
GUARD_EXT(Layouts_ExecutableOutputs, gojax_Layouts_Executable_Args)
GUARD_EXT(Layouts_ExecutableParameters, gojax_Layouts_Executable_Args)
GUARD_EXT(CrossHost_SendBuffers, gojax_CrossHostSend_Args)
GUARD_EXT(CrossHost_ReceiveBuffers, gojax_CrossHostReceive_Args)
#undef GUARD_EXT

/* ---- forked child --------------------------------------------------------- */

/* The framework treats some getters as infallible: it aborts the process
 * (LOG(FATAL)) when one returns an error, and it calls them on the way to an
 * execution, e.g. a cached jit function asks its executable for its replica
 * and partition counts before Execute. In a forked child these answer from
 * the static facts the handles keep (gojax_capi.h), so that the child gets
 * its error from the call that does work (Execute, a transfer, a compile)
 * and never aborts. Outside a child they call Go exactly as before. */
#define CHILD_GETTER(slot, handle_ok, ...)                          \
  static PJRT_Error* child_##slot(slot##_Args* args) {              \
    if (!FORKED()) return enter_go(), gojax_##slot(args);           \
    if (!ARGS_OK(args, slot##_Args) || !(handle_ok)) return forked_error(#slot); \
    __VA_ARGS__;                                                    \
    return NULL;                                                    \
  }
#define ARGS_OK(args, T) ((args) != NULL && (args)->struct_size >= T##_STRUCT_SIZE)
#define EXEC_INFO (args->executable != NULL ? args->executable->info : NULL)
#define DESC (args->device_description)
#define MEM ((gojax_Memory*)args->memory)

CHILD_GETTER(PJRT_Client_ProcessIndex, args->client != NULL,
             args->process_index = args->client->process_index)
CHILD_GETTER(PJRT_DeviceDescription_Id, DESC != NULL, args->id = DESC->id)
CHILD_GETTER(PJRT_DeviceDescription_ProcessIndex, DESC != NULL,
             args->process_index = DESC->process_index)
CHILD_GETTER(PJRT_DeviceDescription_Attributes, DESC != NULL,
             args->attributes = DESC->attrs; args->num_attributes = DESC->num_attrs)
CHILD_GETTER(PJRT_DeviceDescription_Kind, DESC != NULL && DESC->kind != NULL,
             args->device_kind = DESC->kind; args->device_kind_size = DESC->kind_size)
CHILD_GETTER(PJRT_DeviceDescription_DebugString, DESC != NULL && DESC->debug != NULL,
             args->debug_string = DESC->debug; args->debug_string_size = DESC->debug_size)
CHILD_GETTER(PJRT_DeviceDescription_ToString, DESC != NULL && DESC->str != NULL,
             args->to_string = DESC->str; args->to_string_size = DESC->str_size)
CHILD_GETTER(PJRT_Device_GetDescription, args->device != NULL && args->device->desc != NULL,
             args->device_description = args->device->desc)
CHILD_GETTER(PJRT_Device_IsAddressable, args->device != NULL,
             args->is_addressable = args->device->addressable != 0)
CHILD_GETTER(PJRT_Device_LocalHardwareId, args->device != NULL,
             args->local_hardware_id = args->device->local_hardware_id)
CHILD_GETTER(PJRT_Device_AddressableMemories, args->device != NULL,
             args->memories = args->device->memories; args->num_memories = args->device->num_memories)
CHILD_GETTER(PJRT_Device_DefaultMemory, args->device != NULL && args->device->num_memories > 0,
             args->memory = args->device->memories[0])
/* Tracking events only mark spans for profilers: none in a child. */
CHILD_GETTER(PJRT_Device_CreateAsyncTrackingEvent, args->device != NULL, args->event = NULL)
CHILD_GETTER(PJRT_Memory_Id, MEM != NULL, args->id = MEM->id)
CHILD_GETTER(PJRT_Memory_Kind_Id, MEM != NULL, args->kind_id = MEM->kind_id)
CHILD_GETTER(PJRT_Memory_DebugString, MEM != NULL && MEM->debug != NULL,
             args->debug_string = MEM->debug; args->debug_string_size = MEM->debug_size)
CHILD_GETTER(PJRT_Memory_ToString, MEM != NULL && MEM->str != NULL,
             args->to_string = MEM->str; args->to_string_size = MEM->str_size)
CHILD_GETTER(PJRT_Memory_AddressableByDevices, MEM != NULL,
             args->devices = MEM->devices; args->num_devices = MEM->num_devices)
CHILD_GETTER(PJRT_Executable_Name, EXEC_INFO != NULL,
             args->executable_name = EXEC_INFO->name; args->executable_name_size = EXEC_INFO->name_size)
CHILD_GETTER(PJRT_Executable_NumReplicas, EXEC_INFO != NULL,
             args->num_replicas = EXEC_INFO->num_replicas)
CHILD_GETTER(PJRT_Executable_NumPartitions, EXEC_INFO != NULL,
             args->num_partitions = EXEC_INFO->num_partitions)
CHILD_GETTER(PJRT_Executable_SizeOfGeneratedCodeInBytes, EXEC_INFO != NULL,
             args->size_in_bytes = EXEC_INFO->code_size)
CHILD_GETTER(PJRT_Executable_OutputElementTypes, EXEC_INFO != NULL,
             args->output_types = EXEC_INFO->out_types; args->num_output_types = EXEC_INFO->num_outputs)
CHILD_GETTER(PJRT_Executable_OutputDimensions, EXEC_INFO != NULL,
             args->num_outputs = EXEC_INFO->num_outputs; args->dims = EXEC_INFO->out_dims;
             args->dim_sizes = EXEC_INFO->out_dim_sizes)
CHILD_GETTER(PJRT_Executable_OutputMemoryKinds, EXEC_INFO != NULL,
             args->num_outputs = EXEC_INFO->num_outputs; args->memory_kinds = EXEC_INFO->out_kinds;
             args->memory_kind_sizes = EXEC_INFO->out_kind_sizes)
CHILD_GETTER(PJRT_Executable_Fingerprint, EXEC_INFO != NULL,
             args->executable_fingerprint = EXEC_INFO->fingerprint;
             args->executable_fingerprint_size = EXEC_INFO->fingerprint_size)
CHILD_GETTER(PJRT_LoadedExecutable_Fingerprint, EXEC_INFO != NULL,
             args->executable_fingerprint = EXEC_INFO->fingerprint;
             args->executable_fingerprint_size = EXEC_INFO->fingerprint_size)
CHILD_GETTER(PJRT_LoadedExecutable_AddressableDevices, EXEC_INFO != NULL,
             args->addressable_devices = EXEC_INFO->devices;
             args->num_addressable_devices = EXEC_INFO->num_devices)
CHILD_GETTER(PJRT_LoadedExecutable_IsDeleted, EXEC_INFO != NULL,
             args->is_deleted = __atomic_load_n(&EXEC_INFO->deleted, __ATOMIC_ACQUIRE) != 0)
/* Deleting in a child marks the child's copy only; the memory is the
 * child's copy of the parent's. */
CHILD_GETTER(PJRT_LoadedExecutable_Delete, EXEC_INFO != NULL,
             __atomic_store_n(&EXEC_INFO->deleted, 1, __ATOMIC_RELEASE))
CHILD_GETTER(PJRT_Buffer_Delete, args->buffer != NULL,
             __atomic_store_n(&args->buffer->deleted, 1, __ATOMIC_RELEASE))
/* Releasing an external reference frees nothing in a child (as destroys). */
CHILD_GETTER(PJRT_Buffer_DecreaseExternalReferenceCount, args->buffer != NULL, (void)0)
#undef EXEC_INFO
#define TOPO ((const PJRT_TopologyDescription*)args->topology)
CHILD_GETTER(PJRT_TopologyDescription_GetDeviceDescriptions, TOPO != NULL,
             args->descriptions = TOPO->descs; args->num_descriptions = TOPO->num_descs)
CHILD_GETTER(PJRT_TopologyDescription_Attributes, TOPO != NULL && TOPO->attrs != NULL,
             args->attributes = TOPO->attrs; args->num_attributes = 0)
CHILD_GETTER(PJRT_TopologyDescription_PlatformName, TOPO != NULL && TOPO->name != NULL,
             args->platform_name = TOPO->name; args->platform_name_size = TOPO->name_size)
CHILD_GETTER(PJRT_TopologyDescription_PlatformVersion, TOPO != NULL && TOPO->version != NULL,
             args->platform_version = TOPO->version; args->platform_version_size = TOPO->version_size)
#undef TOPO

/* The unloaded handle a child asks for is a C copy of the facts only: no Go
 * handle (h 0), never reaches Go, and is leaked by Destroy as all are. */
static PJRT_Error* child_PJRT_LoadedExecutable_GetExecutable(PJRT_LoadedExecutable_GetExecutable_Args* args) {
  if (!FORKED()) return enter_go(), gojax_PJRT_LoadedExecutable_GetExecutable(args);
  static const char fn[] = "PJRT_LoadedExecutable_GetExecutable";
  if (!ARGS_OK(args, PJRT_LoadedExecutable_GetExecutable_Args) || args->loaded_executable == NULL ||
      args->loaded_executable->info == NULL)
    return forked_error(fn);
  PJRT_Executable* x = (PJRT_Executable*)calloc(1, sizeof *x);
  if (x == NULL) return forked_error(fn);
  x->info = args->loaded_executable->info;
  x->num_outputs = x->info->num_outputs;
  args->executable = x;
  return NULL;
}

/* A child's pending buffers never become ready: their ready event is one
 * the event functions fail on (with the fork error), never fatal. */
static PJRT_Event gojax_forked_event = {0};

/* A buffer's layout is its own minor_to_major list, kept in C. */
static PJRT_Error* guard_Layouts_BufferLayout(gojax_Layouts_Buffer_Args* args) {
  if (!FORKED()) return enter_go(), gojax_Layouts_BufferLayout(args);
  static const char fn[] = "PJRT_Layouts_PJRT_Buffer_MemoryLayout";
  if (!ARGS_OK(args, gojax_Layouts_Buffer_Args) || args->buffer == NULL) return forked_error(fn);
  args->layout = gojax_layout_new(args->buffer->minor_to_major, args->buffer->num_dims, 1);
  return args->layout == NULL ? forked_error(fn) : NULL;
}

/* ---- fast paths --------------------------------------------------------- */

/* JAX's PJRT wrapper calls about fifteen entry points per execution besides
 * Execute: buffer metadata (device, memory, element type, dims, layout,
 * deleted?), the output's ready event and the events' IsReady/OnReady/
 * Error/Destroy, an execute context, the executable's output count. Each
 * call into Go is a cgo callback (a thread switch onto a Go stack, ~0.1-1 us
 * on a loaded machine), more than the work it does. These slots answer in C
 * from what the handles cache; whenever anything is unusual (NULL or short
 * args, a destroyed handle, an event that is not gojax_ready_event, a buffer
 * that is not known to be ready) they call the Go entry point, which checks
 * the arguments and reports errors exactly as before. */

PJRT_Buffer* gojax_new_buffer(const int64_t* dims, size_t num_dims) {
  size_t n = num_dims ? num_dims : 1;
  PJRT_Buffer* b = (PJRT_Buffer*)calloc(1, sizeof(PJRT_Buffer) + 2 * n * sizeof(int64_t));
  if (b == NULL) return NULL;
  b->dims = (int64_t*)(b + 1);
  b->minor_to_major = b->dims + n;
  b->num_dims = num_dims;
  for (size_t i = 0; i < num_dims; i++) {
    b->dims[i] = dims[i];
    b->minor_to_major[i] = (int64_t)(num_dims - 1 - i); /* row-major */
  }
  return b;
}

PJRT_Event gojax_ready_event = {0};

#define LIVE_BUFFER(b) ((b) != NULL && (b)->h != 0)
#define LOAD32(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)

static PJRT_Error* c_Buffer_Destroy(PJRT_Buffer_Destroy_Args* args) {
  PJRT_Buffer* b = ARGS_OK(args, PJRT_Buffer_Destroy_Args) ? args->buffer : NULL;
  PJRT_Error* err = guard_PJRT_Buffer_Destroy(args);
  if (err == NULL && b != NULL) free(b); /* Go released everything else */
  return err;
}

static PJRT_Error* c_Buffer_IsDeleted(PJRT_Buffer_IsDeleted_Args* args) {
  if (!ARGS_OK(args, PJRT_Buffer_IsDeleted_Args) || !LIVE_BUFFER(args->buffer))
    return guard_PJRT_Buffer_IsDeleted(args);
  args->is_deleted = LOAD32(&args->buffer->deleted) != 0;
  return NULL;
}

static PJRT_Error* c_Buffer_ReadyEvent(PJRT_Buffer_ReadyEvent_Args* args) {
  if (FORKED() && ARGS_OK(args, PJRT_Buffer_ReadyEvent_Args) && LIVE_BUFFER(args->buffer) &&
      !LOAD32(&args->buffer->ready)) {
    args->event = &gojax_forked_event;
    return NULL;
  }
  if (!ARGS_OK(args, PJRT_Buffer_ReadyEvent_Args) || !LIVE_BUFFER(args->buffer) ||
      !LOAD32(&args->buffer->ready) || LOAD32(&args->buffer->deleted))
    return guard_PJRT_Buffer_ReadyEvent(args);
  args->event = &gojax_ready_event;
  return NULL;
}

static PJRT_Error* c_Buffer_ElementType(PJRT_Buffer_ElementType_Args* args) {
  if (!ARGS_OK(args, PJRT_Buffer_ElementType_Args) || !LIVE_BUFFER(args->buffer))
    return guard_PJRT_Buffer_ElementType(args);
  args->type = args->buffer->type;
  return NULL;
}

static PJRT_Error* c_Buffer_Dimensions(PJRT_Buffer_Dimensions_Args* args) {
  if (!ARGS_OK(args, PJRT_Buffer_Dimensions_Args) || !LIVE_BUFFER(args->buffer))
    return guard_PJRT_Buffer_Dimensions(args);
  args->dims = args->buffer->dims;
  args->num_dims = args->buffer->num_dims;
  return NULL;
}

static PJRT_Error* c_Buffer_UnpaddedDimensions(PJRT_Buffer_UnpaddedDimensions_Args* args) {
  if (!ARGS_OK(args, PJRT_Buffer_UnpaddedDimensions_Args) || !LIVE_BUFFER(args->buffer))
    return guard_PJRT_Buffer_UnpaddedDimensions(args);
  args->unpadded_dims = args->buffer->dims;
  args->num_dims = args->buffer->num_dims;
  return NULL;
}

static PJRT_Error* c_Buffer_DynamicDimensionIndices(PJRT_Buffer_DynamicDimensionIndices_Args* args) {
  if (!ARGS_OK(args, PJRT_Buffer_DynamicDimensionIndices_Args) || !LIVE_BUFFER(args->buffer))
    return guard_PJRT_Buffer_DynamicDimensionIndices(args);
  args->dynamic_dim_indices = NULL; /* all shapes are static */
  args->num_dynamic_dims = 0;
  return NULL;
}

static PJRT_Error* c_Buffer_GetMemoryLayout(PJRT_Buffer_GetMemoryLayout_Args* args) {
  if (!ARGS_OK(args, PJRT_Buffer_GetMemoryLayout_Args) || !LIVE_BUFFER(args->buffer))
    return guard_PJRT_Buffer_GetMemoryLayout(args);
  gojax_layout_set_tiled(&args->layout, args->buffer->minor_to_major, args->buffer->num_dims);
  return NULL;
}

static PJRT_Error* c_Buffer_OnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args* args) {
  if (!ARGS_OK(args, PJRT_Buffer_OnDeviceSizeInBytes_Args) || !LIVE_BUFFER(args->buffer))
    return guard_PJRT_Buffer_OnDeviceSizeInBytes(args);
  args->on_device_size_in_bytes = args->buffer->on_device_size;
  return NULL;
}

static PJRT_Error* c_Buffer_Device(PJRT_Buffer_Device_Args* args) {
  if (!ARGS_OK(args, PJRT_Buffer_Device_Args) || !LIVE_BUFFER(args->buffer) || args->buffer->device == NULL)
    return guard_PJRT_Buffer_Device(args);
  args->device = args->buffer->device;
  return NULL;
}

static PJRT_Error* c_Buffer_Memory(PJRT_Buffer_Memory_Args* args) {
  if (!ARGS_OK(args, PJRT_Buffer_Memory_Args) || !LIVE_BUFFER(args->buffer) || args->buffer->memory == NULL)
    return guard_PJRT_Buffer_Memory(args);
  args->memory = args->buffer->memory;
  return NULL;
}

static PJRT_Error* c_Buffer_IsOnCpu(PJRT_Buffer_IsOnCpu_Args* args) {
  if (!ARGS_OK(args, PJRT_Buffer_IsOnCpu_Args) || !LIVE_BUFFER(args->buffer))
    return guard_PJRT_Buffer_IsOnCpu(args);
  args->is_on_cpu = true;
  return NULL;
}

static PJRT_Error* c_Memory_Kind(PJRT_Memory_Kind_Args* args) {
  const gojax_Memory* m = args ? (const gojax_Memory*)args->memory : NULL;
  if (!ARGS_OK(args, PJRT_Memory_Kind_Args) || m == NULL || m->h == 0 || m->kind == NULL)
    return guard_PJRT_Memory_Kind(args);
  args->kind = m->kind;
  args->kind_size = m->kind_size;
  return NULL;
}

static PJRT_Error* c_Executable_NumOutputs(PJRT_Executable_NumOutputs_Args* args) {
  if (!ARGS_OK(args, PJRT_Executable_NumOutputs_Args) || args->executable == NULL ||
      (args->executable->h == 0 && !(FORKED() && args->executable->info != NULL)))
    return guard_PJRT_Executable_NumOutputs(args);
  args->num_outputs = args->executable->num_outputs;
  return NULL;
}

static PJRT_Error* c_Event_Destroy(PJRT_Event_Destroy_Args* args) {
  if (ARGS_OK(args, PJRT_Event_Destroy_Args) && args->event == &gojax_ready_event) return NULL;
  return guard_PJRT_Event_Destroy(args);
}

static PJRT_Error* c_Event_IsReady(PJRT_Event_IsReady_Args* args) {
  if (!ARGS_OK(args, PJRT_Event_IsReady_Args) || args->event != &gojax_ready_event)
    return guard_PJRT_Event_IsReady(args);
  args->is_ready = true;
  return NULL;
}

static PJRT_Error* c_Event_Error(PJRT_Event_Error_Args* args) {
  if (!ARGS_OK(args, PJRT_Event_Error_Args) || args->event != &gojax_ready_event)
    return guard_PJRT_Event_Error(args);
  return NULL;
}

static PJRT_Error* c_Event_Await(PJRT_Event_Await_Args* args) {
  if (!ARGS_OK(args, PJRT_Event_Await_Args) || args->event != &gojax_ready_event)
    return guard_PJRT_Event_Await(args);
  return NULL;
}

static PJRT_Error* c_Event_OnReady(PJRT_Event_OnReady_Args* args) {
  if (!ARGS_OK(args, PJRT_Event_OnReady_Args) || args->event != &gojax_ready_event || args->callback == NULL)
    return guard_PJRT_Event_OnReady(args);
  /* Fired already: call back at once, on the caller's thread, as Go does. */
  PJRT_Event_OnReadyCallback cb = args->callback;
  cb(NULL, args->user_arg);
  return NULL;
}

/* Execute contexts and their FFI user data (see gojax_capi.h). */
static PJRT_Error* c_ExecuteContext_Create(PJRT_ExecuteContext_Create_Args* args) {
  if (args == NULL) return bad_args("PJRT_ExecuteContext_Create", 0, 0);
  if (args->struct_size < PJRT_ExecuteContext_Create_Args_STRUCT_SIZE)
    return bad_args("PJRT_ExecuteContext_Create", args->struct_size, PJRT_ExecuteContext_Create_Args_STRUCT_SIZE);
  PJRT_ExecuteContext* c = (PJRT_ExecuteContext*)calloc(1, sizeof *c);
  if (c == NULL) {
    static const char msg[] = "PJRT_ExecuteContext_Create: out of memory";
    return gojax_new_error(PJRT_Error_Code_RESOURCE_EXHAUSTED, msg, sizeof msg - 1);
  }
  c->magic = gojax_CONTEXT_MAGIC;
  args->context = c;
  return NULL;
}

static PJRT_Error* c_ExecuteContext_Destroy(PJRT_ExecuteContext_Destroy_Args* args) {
  if (args == NULL) return bad_args("PJRT_ExecuteContext_Destroy", 0, 0);
  if (args->struct_size < PJRT_ExecuteContext_Destroy_Args_STRUCT_SIZE)
    return bad_args("PJRT_ExecuteContext_Destroy", args->struct_size, PJRT_ExecuteContext_Destroy_Args_STRUCT_SIZE);
  PJRT_ExecuteContext* c = args->context;
  if (c == NULL) return NULL;
  if (c->magic != gojax_CONTEXT_MAGIC) {
    static const char msg[] = "PJRT_ExecuteContext_Destroy: context was not created by gojax (or was destroyed)";
    return gojax_new_error(PJRT_Error_Code_INVALID_ARGUMENT, msg, sizeof msg - 1);
  }
  c->magic = 0;
  gojax_ContextData* d = c->head;
  while (d != NULL) {
    gojax_ContextData* next = d->next;
    if (d->deleter != NULL) d->deleter(d->data);
    free(d);
    d = next;
  }
  free(c);
  return NULL;
}

static PJRT_Error* c_FFI_UserDataAdd(gojax_FFI_UserDataAdd_Args* args) {
  static const char fn[] = "PJRT_FFI_UserData_Add";
  if (args == NULL) return bad_args(fn, 0, 0);
  if (args->struct_size < gojax_FFI_UserDataAdd_Args_MIN_SIZE)
    return bad_args(fn, args->struct_size, gojax_FFI_UserDataAdd_Args_MIN_SIZE);
  PJRT_ExecuteContext* c = args->context;
  if (c == NULL || c->magic != gojax_CONTEXT_MAGIC) {
    static const char msg[] = "PJRT_FFI_UserData_Add: context is NULL or was not created by gojax";
    return gojax_new_error(PJRT_Error_Code_INVALID_ARGUMENT, msg, sizeof msg - 1);
  }
  gojax_ContextData* d = (gojax_ContextData*)calloc(1, sizeof *d);
  if (d == NULL) {
    static const char msg[] = "PJRT_FFI_UserData_Add: out of memory";
    return gojax_new_error(PJRT_Error_Code_RESOURCE_EXHAUSTED, msg, sizeof msg - 1);
  }
  d->type_id = args->type_id;
  d->data = args->data;
  if (args->struct_size >= offsetof(gojax_FFI_UserDataAdd_Args, deleter) + sizeof(args->deleter))
    d->deleter = args->deleter;
  /* Writers are rare and brief; yield rather than burn the holder's CPU. */
  while (__atomic_exchange_n(&c->lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
  for (gojax_ContextData* e = c->head; e != NULL; e = e->next) {
    if (e->type_id == d->type_id) {
      __atomic_store_n(&c->lock, 0, __ATOMIC_RELEASE);
      free(d);
      char buf[128];
      int n = snprintf(buf, sizeof buf, "%s: user data of type %lld is already attached", fn,
                       (long long)args->type_id);
      return gojax_new_error(PJRT_Error_Code_INVALID_ARGUMENT, buf, (size_t)n);
    }
  }
  if (c->tail == NULL)
    __atomic_store_n(&c->head, d, __ATOMIC_RELEASE);
  else
    __atomic_store_n(&c->tail->next, d, __ATOMIC_RELEASE);
  c->tail = d;
  __atomic_store_n(&c->lock, 0, __ATOMIC_RELEASE);
  return NULL;
}


/* ---- profiler extension ------------------------------------------------- */

/* Error functions are pure C, as PJRT's are. error_get_code must not fail:
 * the tracer aborts the process when it does. */
static void c_Profiler_ErrorDestroy(gojax_Profiler_Error_Destroy_Args* args) {
  if (args != NULL) err_destroy(args->error);
}

static void c_Profiler_ErrorMessage(gojax_Profiler_Error_Message_Args* args) {
  if (args != NULL) err_message(args->error, &args->message, &args->message_size);
}

static PJRT_Error* c_Profiler_ErrorGetCode(gojax_Profiler_Error_GetCode_Args* args) {
  if (args != NULL) args->code = (int)err_get_code(args->error);
  return NULL;
}

static PJRT_Error* profiler_error(const char* fn, const char* why) {
  char buf[256];
  int n = snprintf(buf, sizeof buf, "%s: %s", fn, why);
  return gojax_new_error(PJRT_Error_Code_INVALID_ARGUMENT, buf, (size_t)n);
}

static PJRT_Error* c_Profiler_Create(gojax_Profiler_Create_Args* args) {
  static const char fn[] = "PLUGIN_Profiler_Create";
  if (args == NULL) return profiler_error(fn, "args is NULL");
  args->profiler = NULL;
  if (FORKED()) return forked_error(fn);
  gojax_ProfilerSession* s = (gojax_ProfilerSession*)calloc(1, sizeof *s);
  if (s == NULL) {
    static const char msg[] = "PLUGIN_Profiler_Create: out of memory";
    return gojax_new_error(PJRT_Error_Code_RESOURCE_EXHAUSTED, msg, sizeof msg - 1);
  }
  s->h = gojax_Profiler_New();
  args->profiler = s;
  return NULL;
}

static PJRT_Error* c_Profiler_Destroy(gojax_Profiler_Args* args) {
  if (args == NULL || args->profiler == NULL) return NULL;
  gojax_ProfilerSession* s = args->profiler;
  if (FORKED()) return NULL; /* as other destroys in a child: leak */
  gojax_Profiler_Close(s->h);
  free(s->data);
  free(s);
  return NULL;
}

static PJRT_Error* c_Profiler_Start(gojax_Profiler_Args* args) {
  static const char fn[] = "PLUGIN_Profiler_Start";
  if (args == NULL || args->profiler == NULL) return profiler_error(fn, "no profiler session");
  if (FORKED()) return forked_error(fn);
  return gojax_Profiler_Start(args->profiler->h);
}

static PJRT_Error* c_Profiler_Stop(gojax_Profiler_Args* args) {
  static const char fn[] = "PLUGIN_Profiler_Stop";
  if (args == NULL || args->profiler == NULL) return profiler_error(fn, "no profiler session");
  if (FORKED()) return forked_error(fn);
  return gojax_Profiler_Stop(args->profiler->h);
}

static PJRT_Error* c_Profiler_CollectData(gojax_Profiler_CollectData_Args* args) {
  static const char fn[] = "PLUGIN_Profiler_CollectData";
  if (args == NULL || args->profiler == NULL) return profiler_error(fn, "no profiler session");
  if (FORKED()) return forked_error(fn);
  gojax_ProfilerSession* s = args->profiler;
  if (s->data == NULL) {
    PJRT_Error* err = gojax_Profiler_Collect(s->h, &s->data, &s->size);
    if (err != NULL) return err;
  }
  if (args->buffer != NULL && args->buffer != s->data) {
    memcpy(args->buffer, s->data, s->size);
  } else {
    args->buffer = s->data;
  }
  args->buffer_size_in_bytes = s->size;
  return NULL;
}

static gojax_Profiler_Api profiler_api = {
    .struct_size = sizeof(gojax_Profiler_Api),
    .priv = NULL,
    .error_destroy = c_Profiler_ErrorDestroy,
    .error_message = c_Profiler_ErrorMessage,
    .error_get_code = c_Profiler_ErrorGetCode,
    .create = c_Profiler_Create,
    .destroy = c_Profiler_Destroy,
    .start = c_Profiler_Start,
    .stop = c_Profiler_Stop,
    .collect_data = c_Profiler_CollectData,
};

const gojax_Profiler_Api* gojax_profiler_api(void) { return &profiler_api; }

static gojax_ProfilerExtension profiler_extension = {
    .base = {.struct_size = sizeof(gojax_ProfilerExtension),
             .type = PJRT_Extension_Type_Profiler,
             .next = NULL},
    .profiler_api = &profiler_api,
    .traceme_context_id = 0,
};

/* ---- layouts extension ---------------------------------------------------- */

gojax_Layout* gojax_layout_new(const int64_t* m2m, size_t n, int owned) {
  gojax_Layout* l = malloc(sizeof(gojax_Layout) + n * sizeof(int64_t));
  if (l == NULL) return NULL;
  l->owned = owned;
  l->n = n;
  if (n > 0) memcpy(l->m2m, m2m, n * sizeof(int64_t));
  return l;
}

gojax_Layout* gojax_layout_row_major(size_t n, int owned) {
  gojax_Layout* l = gojax_layout_new(NULL, 0, owned);
  if (l == NULL) return NULL;
  gojax_Layout* r = realloc(l, sizeof(gojax_Layout) + n * sizeof(int64_t));
  if (r == NULL) {
    free(l);
    return NULL;
  }
  r->n = n;
  for (size_t i = 0; i < n; i++) r->m2m[i] = (int64_t)(n - 1 - i);
  return r;
}

static PJRT_Error* layout_oom(const char* fn) {
  char buf[160];
  int len = snprintf(buf, sizeof buf, "%s: out of host memory for a layout", fn);
  return gojax_new_error(PJRT_Error_Code_RESOURCE_EXHAUSTED, buf, (size_t)len);
}

static PJRT_Error* c_Layouts_Destroy(gojax_Layouts_Destroy_Args* args) {
  if (!ARGS_OK(args, gojax_Layouts_Destroy_Args))
    return bad_args("PJRT_Layouts_MemoryLayout_Destroy", args ? args->struct_size : 0,
                    gojax_Layouts_Destroy_Args_STRUCT_SIZE);
  if (args->layout != NULL && args->layout->owned) free(args->layout);
  return NULL;
}

static void free_serialized(void* p) { free(p); }

/* The text form jaxlib parses back (xla::ParseLayout): "{1,0}", "{}". */
static PJRT_Error* c_Layouts_Serialize(gojax_Layouts_Serialize_Args* args) {
  const char* fn = "PJRT_Layouts_MemoryLayout_Serialize";
  if (!ARGS_OK(args, gojax_Layouts_Serialize_Args))
    return bad_args(fn, args ? args->struct_size : 0, gojax_Layouts_Serialize_Args_STRUCT_SIZE);
  if (args->layout == NULL)
    return gojax_new_error(PJRT_Error_Code_INVALID_ARGUMENT, "PJRT_Layouts_MemoryLayout_Serialize: layout is NULL", 51);
  const gojax_Layout* l = args->layout;
  size_t cap = 3 + l->n * 21; /* braces, NUL; each entry at most 20 digits and a comma */
  char* out = malloc(cap);
  if (out == NULL) return layout_oom(fn);
  size_t k = 0;
  out[k++] = '{';
  for (size_t i = 0; i < l->n; i++) {
    k += (size_t)snprintf(out + k, cap - k, i == 0 ? "%lld" : ",%lld", (long long)l->m2m[i]);
  }
  out[k++] = '}';
  out[k] = 0;
  args->serialized_bytes = out;
  args->serialized_bytes_size = k;
  args->serialized_layout = out;
  args->serialized_layout_deleter = free_serialized;
  return NULL;
}

static PJRT_Error* default_layout(const char* fn, gojax_Layouts_Default_Args* args) {
  if (!ARGS_OK(args, gojax_Layouts_Default_Args))
    return bad_args(fn, args ? args->struct_size : 0, gojax_Layouts_Default_Args_STRUCT_SIZE);
  if (args->num_dims > 0 && args->dims == NULL) {
    char buf[160];
    int len = snprintf(buf, sizeof buf, "%s: dims is NULL with num_dims %zu", fn, args->num_dims);
    return gojax_new_error(PJRT_Error_Code_INVALID_ARGUMENT, buf, (size_t)len);
  }
  args->layout = gojax_layout_row_major(args->num_dims, 1);
  return args->layout == NULL ? layout_oom(fn) : NULL;
}

static PJRT_Error* c_Layouts_ClientDefault(gojax_Layouts_Default_Args* args) {
  return default_layout("PJRT_Layouts_PJRT_Client_GetDefaultLayout", args);
}

static PJRT_Error* c_Layouts_TopologyDefault(gojax_Layouts_Default_Args* args) {
  return default_layout("PJRT_Layouts_PJRT_Topology_GetDefaultLayout", args);
}

static gojax_LayoutsExtension layouts_extension = {
    .base = {.struct_size = sizeof(gojax_LayoutsExtension),
             .type = PJRT_Extension_Type_Layouts,
             .next = &profiler_extension.base},
    .destroy = c_Layouts_Destroy,
    .serialize = c_Layouts_Serialize,
    .client_default = c_Layouts_ClientDefault,
    .buffer_layout = guard_Layouts_BufferLayout,
    .topology_default = c_Layouts_TopologyDefault,
    .executable_outputs = guard_Layouts_ExecutableOutputs,
    .executable_parameters = guard_Layouts_ExecutableParameters,
};

/* ---- the table --------------------------------------------------------- */


static PJRT_Api api;
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

static gojax_FFIExtension ffi_extension = {
    .base = {.struct_size = sizeof(gojax_FFIExtension),
             .type = PJRT_Extension_Type_FFI,
             .next = &layouts_extension.base},
    .type_register = guard_FFI_TypeRegister,
    .user_data_add = c_FFI_UserDataAdd,
    .register_handler = guard_FFI_RegisterHandler,
};


static gojax_ShardingsExtension shardings_extension = {
    .base = {.struct_size = sizeof(gojax_ShardingsExtension),
             .type = PJRT_Extension_Type_Shardings,
             .next = &ffi_extension.base},
    .parameter_shardings = guard_Shardings_ParameterShardings,
    .output_shardings = guard_Shardings_OutputShardings,
};

/* The descriptor-based cross-host calls: jaxlib 0.12 moves arrays with the
 * send/receive pair, so these only answer, in C, that gojax has no
 * descriptors to offer. CopyToRemoteDevice returns nothing: its error goes
 * to the caller's completion callback. */
static const char no_descriptors[] =
    "gojax moves arrays between processes with PJRT_Transfers_PJRT_Client_CrossHostSendBuffers and "
    "CrossHostReceiveBuffers; the descriptor-based calls are not supported";

static PJRT_Error* c_CrossHost_MakeReceiveBuffers(gojax_CrossHostMakeReceive_Args* args) {
  (void)args;
  char buf[256];
  int len = snprintf(buf, sizeof buf, "PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers: %s", no_descriptors);
  return gojax_new_error(PJRT_Error_Code_UNIMPLEMENTED, buf, (size_t)len);
}

static void c_CrossHost_CopyToRemoteDevice(gojax_CrossHostCopyToRemote_Args* args) {
  static const char fn[] = "PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice";
  if (!ARGS_OK(args, gojax_CrossHostCopyToRemote_Args)) {
    bad_void_args(fn, args ? args->struct_size : 0, gojax_CrossHostCopyToRemote_Args_STRUCT_SIZE);
    return;
  }
  char buf[256];
  int len = snprintf(buf, sizeof buf, "%s: %s", fn, no_descriptors);
  if (args->on_done.on_done == NULL) {
    fprintf(stderr, "gojax: %s\n", buf);
    return;
  }
  args->on_done.on_done(gojax_new_error(PJRT_Error_Code_UNIMPLEMENTED, buf, (size_t)len), false,
                        args->on_done.user_arg);
}

static gojax_CrossHostTransfersExtension crosshost_extension = {
    .base = {.struct_size = sizeof(gojax_CrossHostTransfersExtension),
             .type = PJRT_Extension_Type_CrossHostTransfers,
             .next = &shardings_extension.base},
    .make_receive_buffers = c_CrossHost_MakeReceiveBuffers,
    .copy_to_remote_device = c_CrossHost_CopyToRemoteDevice,
    .receive_buffers = guard_CrossHost_ReceiveBuffers,
    .send_buffers = guard_CrossHost_SendBuffers,
};

static void api_init(void) {
  memset(&api, 0, sizeof api);
  api.struct_size = PJRT_Api_STRUCT_SIZE;
  api.extension_start = &crosshost_extension.base;
  api.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
  api.pjrt_api_version.extension_start = NULL;
  api.pjrt_api_version.major_version = PJRT_API_MAJOR;
  api.pjrt_api_version.minor_version = PJRT_API_MINOR;
#define GOJAX_VOID_SLOT(name) api.name = gojax_##name;
#define GOJAX_SLOT(name) api.name = guard_##name;
#include "pjrt_slots.h"
#undef GOJAX_SLOT
#undef GOJAX_VOID_SLOT
  /* Pure C, so they work in a forked child: the framework must be able to
   * read and free the errors the child gets. */
#define CHILD_SLOT(name) api.name = child_##name;
  CHILD_SLOT(PJRT_Client_ProcessIndex)
  CHILD_SLOT(PJRT_DeviceDescription_Id)
  CHILD_SLOT(PJRT_DeviceDescription_ProcessIndex)
  CHILD_SLOT(PJRT_DeviceDescription_Attributes)
  CHILD_SLOT(PJRT_DeviceDescription_Kind)
  CHILD_SLOT(PJRT_DeviceDescription_DebugString)
  CHILD_SLOT(PJRT_DeviceDescription_ToString)
  CHILD_SLOT(PJRT_Device_GetDescription)
  CHILD_SLOT(PJRT_Device_IsAddressable)
  CHILD_SLOT(PJRT_Device_LocalHardwareId)
  CHILD_SLOT(PJRT_Device_AddressableMemories)
  CHILD_SLOT(PJRT_Device_DefaultMemory)
  CHILD_SLOT(PJRT_Device_CreateAsyncTrackingEvent)
  CHILD_SLOT(PJRT_Memory_Id)
  CHILD_SLOT(PJRT_Memory_Kind_Id)
  CHILD_SLOT(PJRT_Memory_DebugString)
  CHILD_SLOT(PJRT_Memory_ToString)
  CHILD_SLOT(PJRT_Memory_AddressableByDevices)
  CHILD_SLOT(PJRT_Executable_Name)
  CHILD_SLOT(PJRT_Executable_NumReplicas)
  CHILD_SLOT(PJRT_Executable_NumPartitions)
  CHILD_SLOT(PJRT_Executable_SizeOfGeneratedCodeInBytes)
  CHILD_SLOT(PJRT_Executable_OutputElementTypes)
  CHILD_SLOT(PJRT_Executable_OutputDimensions)
  CHILD_SLOT(PJRT_Executable_OutputMemoryKinds)
  CHILD_SLOT(PJRT_Executable_Fingerprint)
  CHILD_SLOT(PJRT_LoadedExecutable_Fingerprint)
  CHILD_SLOT(PJRT_LoadedExecutable_AddressableDevices)
  CHILD_SLOT(PJRT_LoadedExecutable_IsDeleted)
  CHILD_SLOT(PJRT_LoadedExecutable_Delete)
  CHILD_SLOT(PJRT_LoadedExecutable_GetExecutable)
  CHILD_SLOT(PJRT_Buffer_Delete)
  CHILD_SLOT(PJRT_Buffer_DecreaseExternalReferenceCount)
  CHILD_SLOT(PJRT_TopologyDescription_GetDeviceDescriptions)
  CHILD_SLOT(PJRT_TopologyDescription_Attributes)
  CHILD_SLOT(PJRT_TopologyDescription_PlatformName)
  CHILD_SLOT(PJRT_TopologyDescription_PlatformVersion)
#undef CHILD_SLOT
  api.PJRT_Error_GetCode = c_Error_GetCode;
  api.PJRT_Error_ForEachPayload = c_Error_ForEachPayload;
  api.PJRT_ExecuteContext_Create = c_ExecuteContext_Create;
  api.PJRT_ExecuteContext_Destroy = c_ExecuteContext_Destroy;
  api.PJRT_Buffer_Destroy = c_Buffer_Destroy;
  api.PJRT_Buffer_IsDeleted = c_Buffer_IsDeleted;
  api.PJRT_Buffer_ReadyEvent = c_Buffer_ReadyEvent;
  api.PJRT_Buffer_ElementType = c_Buffer_ElementType;
  api.PJRT_Buffer_Dimensions = c_Buffer_Dimensions;
  api.PJRT_Buffer_UnpaddedDimensions = c_Buffer_UnpaddedDimensions;
  api.PJRT_Buffer_DynamicDimensionIndices = c_Buffer_DynamicDimensionIndices;
  api.PJRT_Buffer_GetMemoryLayout = c_Buffer_GetMemoryLayout;
  api.PJRT_Buffer_OnDeviceSizeInBytes = c_Buffer_OnDeviceSizeInBytes;
  api.PJRT_Buffer_Device = c_Buffer_Device;
  api.PJRT_Buffer_Memory = c_Buffer_Memory;
  api.PJRT_Buffer_IsOnCpu = c_Buffer_IsOnCpu;
  api.PJRT_Memory_Kind = c_Memory_Kind;
  api.PJRT_Executable_NumOutputs = c_Executable_NumOutputs;
  api.PJRT_Event_Destroy = c_Event_Destroy;
  api.PJRT_Event_IsReady = c_Event_IsReady;
  api.PJRT_Event_Error = c_Event_Error;
  api.PJRT_Event_Await = c_Event_Await;
  api.PJRT_Event_OnReady = c_Event_OnReady;
}

const PJRT_Api* gojax_api(void) {
  pthread_once(&api_once, api_init);
  return &api;
}
