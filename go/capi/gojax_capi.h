/* gojax's private C side of the PJRT boundary: handle layouts, the error and
 * memory vtables, and helpers Go cannot express (calling C function pointers,
 * anonymous unions). */
#ifndef GOJAX_CAPI_H_
#define GOJAX_CAPI_H_

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "pjrt_c_api.h"

/* Opaque handles: each holds a runtime/cgo.Handle of its Go object.
 *
 * Some also keep static facts about their object, filled in by Go when the
 * handle is made and never changed: the getters the framework treats as
 * infallible (it aborts the process when they fail) answer from them in a
 * forked child, where Go cannot run (capi.c, "forked child"). */
struct PJRT_Client { uintptr_t h; int process_index; };
struct PJRT_DeviceDescription {
  uintptr_t h;
  int id;
  int process_index;
  const char* kind;
  size_t kind_size;
  const char* debug;
  size_t debug_size;
  const char* str;
  size_t str_size;
  const PJRT_NamedValue* attrs;
  size_t num_attrs;
};
struct PJRT_Device {
  uintptr_t h;
  PJRT_DeviceDescription* desc;
  int local_hardware_id;
  int addressable;
  PJRT_Memory** memories; /* the default first */
  size_t num_memories;
};
struct PJRT_Event { uintptr_t h; };
/* An executable's static facts, shared by its loaded and unloaded handles
 * and freed with the Go executable. deleted mirrors the engine's flag. */
typedef struct gojax_ExecInfo {
  const char* name;
  size_t name_size;
  const char* fingerprint;
  size_t fingerprint_size;
  size_t num_replicas;
  size_t num_partitions;
  size_t num_outputs;
  int64_t code_size;
  PJRT_Buffer_Type* out_types;
  int64_t* out_dims;
  size_t* out_dim_sizes;
  const char** out_kinds;
  size_t* out_kind_sizes;
  PJRT_Device** devices;
  size_t num_devices;
  int32_t deleted;
} gojax_ExecInfo;
/* PJRT_Executable also keeps its output count, answered in C. */
struct PJRT_Executable { uintptr_t h; size_t num_outputs; gojax_ExecInfo* info; };
struct PJRT_LoadedExecutable { uintptr_t h; gojax_ExecInfo* info; };
struct PJRT_TopologyDescription {
  uintptr_t h;
  PJRT_DeviceDescription** descs;
  size_t num_descs;
  const PJRT_NamedValue* attrs; /* none: a valid, empty list */
  const char* name;
  size_t name_size;
  const char* version;
  size_t version_size;
};
struct PJRT_AsyncTrackingEvent { uintptr_t h; };
struct PJRT_AsyncHostToDeviceTransferManager { uintptr_t h; };
struct PJRT_SerializedExecutable { uintptr_t h; };
struct PJRT_SerializedTopology { uintptr_t h; };
struct PJRT_SerializedCompileOptions { uintptr_t h; };
struct PJRT_DeviceAssignmentSerialized { uintptr_t h; };
struct PJRT_Device_Attributes { uintptr_t h; };
/* Buffers also keep their dims and layout arrays, which must outlive calls,
 * and what the framework asks about a buffer on every execution, so that
 * those queries are answered in C without entering Go (capi.c, "fast
 * paths"). One allocation (gojax_new_buffer) holds the struct and both
 * arrays. */
struct PJRT_Buffer {
  uintptr_t h;
  int64_t* dims;
  size_t num_dims;
  int64_t* minor_to_major;
  PJRT_Buffer_Type type;
  PJRT_Device* device;
  PJRT_Memory* memory;
  size_t on_device_size;
  /* Mirrors of Go state, read and written atomically: deleted is set by the
   * engine when the buffer is deleted or donated (engine.Buffer
   * MirrorDeleted); ready once its data is known to be ready without error
   * (it never goes back). */
  int32_t deleted;
  int32_t ready;
};

PJRT_Buffer* gojax_new_buffer(const int64_t* dims, size_t num_dims);

/* An event that has already fired without error. It is shared and static:
 * Destroy ignores it, the event functions answer for it in C, and Go code
 * that receives it as an input treats it as a fired event. */
extern PJRT_Event gojax_ready_event;

/* Execute contexts live in C (capi.c): JAX creates one per execution and
 * attaches its host-callback table as FFI user data, so creating, filling and
 * destroying them never enters Go. Entries are appended under lock and
 * published with release stores; once published they never change until the
 * context is destroyed, so Execute reads them (gojax_context_head) without
 * locking. */
typedef struct gojax_ContextData {
  int64_t type_id;
  void* data;
  void (*deleter)(void* data);
  struct gojax_ContextData* next;
} gojax_ContextData;
struct PJRT_ExecuteContext {
  uint64_t magic; /* gojax_CONTEXT_MAGIC while alive: rejects foreign contexts */
  gojax_ContextData* head;
  gojax_ContextData* tail;
  int lock; /* spin lock for writers; they yield while it is held */
};
#define gojax_CONTEXT_MAGIC 0x676f6a6178637478ull /* "gojaxctx" */

/* Errors: the public PJRT_Error (a vtable pointer) followed by our data. */
typedef struct gojax_Error {
  PJRT_Error base;
  PJRT_Error_Code code;
  char* msg;
  size_t len;
} gojax_Error;

/* Memories: the public PJRT_Memory followed by our handle and user data. */
typedef struct gojax_UserData gojax_UserData;
typedef struct gojax_Memory {
  PJRT_Memory base;
  uintptr_t h;
  void* mu; /* pthread_mutex_t*, kept opaque for cgo */
  gojax_UserData* user_data;
  const char* kind; /* PJRT_Memory_Kind, answered in C; owned by Go's memory */
  size_t kind_size;
  /* Static facts for a forked child (see the handles above). */
  int id;
  int kind_id;
  const char* debug;
  size_t debug_size;
  const char* str;
  size_t str_size;
  PJRT_Device** devices;
  size_t num_devices;
} gojax_Memory;

/* The Shardings extension (PJRT_Extension_Type_Shardings): lets the
 * framework read the shardings of a partitioned program's values. Its two
 * argument structs share this layout. */
typedef struct gojax_Shardings_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num; /* out: num_parameters / num_outputs */
  const char* const* shardings; /* out: serialized xla.OpSharding, or NULL */
  const size_t* sharding_sizes; /* out */
} gojax_Shardings_Args;
#define gojax_Shardings_Args_STRUCT_SIZE PJRT_STRUCT_SIZE(gojax_Shardings_Args, sharding_sizes)

typedef struct gojax_ShardingsExtension {
  PJRT_Extension_Base base;
  PJRT_Error* (*parameter_shardings)(gojax_Shardings_Args* args);
  PJRT_Error* (*output_shardings)(gojax_Shardings_Args* args);
} gojax_ShardingsExtension;

/* The Layouts extension (PJRT_Extension_Type_Layouts, version 1 with the
 * executable calls of PJRT C API 0.81 and 0.93). jaxlib asks every new
 * executable for its parameter and output layouts; without these calls it
 * derives them from PJRT_Executable_OptimizedProgram, so gojax printed its
 * whole optimized program and jaxlib parsed it into HLO on every compile
 * (most of the compile time of a large program). gojax's arrays are dense,
 * so a layout is its minor_to_major list, serialized in XLA's layout text form.
 * Layouts an executable returns belong to it (Destroy leaves them); the
 * others belong to the caller. */
typedef struct gojax_Layout {
  int owned; /* freed by Destroy; 0: owned by an executable */
  size_t n;
  int64_t m2m[];
} gojax_Layout;

typedef struct gojax_Layouts_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  gojax_Layout* layout;
} gojax_Layouts_Destroy_Args;
#define gojax_Layouts_Destroy_Args_STRUCT_SIZE PJRT_STRUCT_SIZE(gojax_Layouts_Destroy_Args, layout)

typedef struct gojax_Layouts_Serialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  gojax_Layout* layout;
  const char* serialized_bytes;   /* out */
  size_t serialized_bytes_size;   /* out */
  void* serialized_layout;        /* out: backs serialized_bytes */
  void (*serialized_layout_deleter)(void* serialized_layout); /* out */
} gojax_Layouts_Serialize_Args;
#define gojax_Layouts_Serialize_Args_STRUCT_SIZE PJRT_STRUCT_SIZE(gojax_Layouts_Serialize_Args, serialized_layout_deleter)

/* Client_GetDefaultLayout's and Topology_GetDefaultLayout's arguments
 * share this layout (a client or a topology handle first). */
typedef struct gojax_Layouts_Default_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  void* client_or_topology;
  PJRT_Buffer_Type type;
  const int64_t* dims;
  size_t num_dims;
  gojax_Layout* layout; /* out */
} gojax_Layouts_Default_Args;
#define gojax_Layouts_Default_Args_STRUCT_SIZE PJRT_STRUCT_SIZE(gojax_Layouts_Default_Args, layout)

typedef struct gojax_Layouts_Buffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  gojax_Layout* layout; /* out */
} gojax_Layouts_Buffer_Args;
#define gojax_Layouts_Buffer_Args_STRUCT_SIZE PJRT_STRUCT_SIZE(gojax_Layouts_Buffer_Args, layout)

/* GetOutputLayouts' and GetParameterLayouts' arguments share this layout. */
typedef struct gojax_Layouts_Executable_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num;             /* out: num_outputs / num_parameters */
  gojax_Layout** layouts; /* out */
} gojax_Layouts_Executable_Args;
#define gojax_Layouts_Executable_Args_STRUCT_SIZE PJRT_STRUCT_SIZE(gojax_Layouts_Executable_Args, layouts)

typedef struct gojax_LayoutsExtension {
  PJRT_Extension_Base base;
  PJRT_Error* (*destroy)(gojax_Layouts_Destroy_Args* args);
  PJRT_Error* (*serialize)(gojax_Layouts_Serialize_Args* args);
  PJRT_Error* (*client_default)(gojax_Layouts_Default_Args* args);
  PJRT_Error* (*buffer_layout)(gojax_Layouts_Buffer_Args* args);
  PJRT_Error* (*topology_default)(gojax_Layouts_Default_Args* args);
  PJRT_Error* (*executable_outputs)(gojax_Layouts_Executable_Args* args);
  PJRT_Error* (*executable_parameters)(gojax_Layouts_Executable_Args* args);
} gojax_LayoutsExtension;

gojax_Layout* gojax_layout_new(const int64_t* m2m, size_t n, int owned);
gojax_Layout* gojax_layout_row_major(size_t n, int owned);

/* The FFI extension (PJRT_Extension_Type_FFI), as jaxlib 0.11-0.12 read it:
 * the framework attaches FFI user data to an execute context; JAX hands host
 * callbacks to executions this way; its user data is (type_id, data),
 * followed in FFI extension version 2 headers by an optional deleter,
 * present when struct_size covers it. register_handler and type_register
 * reach gojax's XLA FFI registries (go/kernels/ffi). */
typedef struct gojax_FFI_TypeRegister_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* type_name;
  size_t type_name_size;
  int64_t type_id; /* in-out: 0 asks for a new id */
  void (**type_info)(void*); /* PJRT_FFI_Type_Info, whose first field is the deleter */
} gojax_FFI_TypeRegister_Args;

typedef struct gojax_FFI_UserDataAdd_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_ExecuteContext* context;
  int64_t type_id;
  void* data;
  void (*deleter)(void* data); /* only inside struct_size >= 48 */
} gojax_FFI_UserDataAdd_Args;
#define gojax_FFI_UserDataAdd_Args_MIN_SIZE offsetof(gojax_FFI_UserDataAdd_Args, deleter)

/* register_handler's arguments: an XLA_FFI_Handler* (the execute stage)
 * for a platform. This struct has no extension_start. Older XLA headers
 * put an int api_version after target_name_size and had no traits, which
 * makes the struct 56 bytes rather than 52; gojax reads that layout too. */
typedef struct gojax_FFI_RegisterHandler_Args {
  size_t struct_size;
  const char* target_name;
  size_t target_name_size;
  void* handler;
  const char* platform_name;
  size_t platform_name_size;
  uint32_t traits;
} gojax_FFI_RegisterHandler_Args;
#define gojax_FFI_RegisterHandler_Args_STRUCT_SIZE PJRT_STRUCT_SIZE(gojax_FFI_RegisterHandler_Args, traits)

typedef struct gojax_FFI_RegisterHandlerV1_Args {
  size_t struct_size;
  const char* target_name;
  size_t target_name_size;
  int api_version; /* 0: untyped custom call, 1: typed FFI */
  void* handler;
  const char* platform_name;
  size_t platform_name_size;
} gojax_FFI_RegisterHandlerV1_Args;
#define gojax_FFI_RegisterHandlerV1_Args_STRUCT_SIZE \
  PJRT_STRUCT_SIZE(gojax_FFI_RegisterHandlerV1_Args, platform_name_size)

typedef struct gojax_FFIExtension {
  PJRT_Extension_Base base;
  PJRT_Error* (*type_register)(gojax_FFI_TypeRegister_Args* args);
  PJRT_Error* (*user_data_add)(gojax_FFI_UserDataAdd_Args* args);
  PJRT_Error* (*register_handler)(gojax_FFI_RegisterHandler_Args* args);
} gojax_FFIExtension;

/* The profiler extension (PJRT_Extension_Type_Profiler, version 1): the
 * framework's plugin tracer reads its PLUGIN_Profiler_Api table (it checks
 * struct_size == 80, the size of this layout) and drives one session per
 * trace: create, start, stop, collect_data, destroy. It does not fill the
 * args' struct_size, so these calls never read it. Errors are gojax_Errors;
 * their codes are canonical status codes, as PJRT's are. */
typedef struct gojax_ProfilerSession {
  uintptr_t h;   /* Go handle of the session */
  uint8_t* data; /* the serialized XSpace, malloc'ed at the first collect */
  size_t size;
} gojax_ProfilerSession;

typedef struct gojax_Profiler_Error_Destroy_Args {
  size_t struct_size;
  void* priv;
  PJRT_Error* error;
} gojax_Profiler_Error_Destroy_Args;

typedef struct gojax_Profiler_Error_Message_Args {
  size_t struct_size;
  void* priv;
  const PJRT_Error* error;
  const char* message; /* out, lives as long as error */
  size_t message_size; /* out */
} gojax_Profiler_Error_Message_Args;

typedef struct gojax_Profiler_Error_GetCode_Args {
  size_t struct_size;
  void* priv;
  const PJRT_Error* error;
  int code; /* out */
} gojax_Profiler_Error_GetCode_Args;

typedef struct gojax_Profiler_Create_Args {
  size_t struct_size;
  const char* options; /* serialized tensorflow.ProfileOptions, unused */
  size_t options_size;
  gojax_ProfilerSession* profiler; /* out */
} gojax_Profiler_Create_Args;

/* PLUGIN_Profiler_{Destroy,Start,Stop}_Args share this layout. */
typedef struct gojax_Profiler_Args {
  size_t struct_size;
  gojax_ProfilerSession* profiler;
} gojax_Profiler_Args;

/* With buffer NULL, collect_data points buffer at the session's own copy
 * (kept until destroy) and sets its size, which is how the tracer reads it;
 * given a caller's buffer of that size, it copies the data there. */
typedef struct gojax_Profiler_CollectData_Args {
  size_t struct_size;
  gojax_ProfilerSession* profiler;
  uint8_t* buffer;             /* in/out */
  size_t buffer_size_in_bytes; /* out */
} gojax_Profiler_CollectData_Args;

typedef struct gojax_Profiler_Api {
  size_t struct_size;
  void* priv;
  void (*error_destroy)(gojax_Profiler_Error_Destroy_Args* args);
  void (*error_message)(gojax_Profiler_Error_Message_Args* args);
  PJRT_Error* (*error_get_code)(gojax_Profiler_Error_GetCode_Args* args);
  PJRT_Error* (*create)(gojax_Profiler_Create_Args* args);
  PJRT_Error* (*destroy)(gojax_Profiler_Args* args);
  PJRT_Error* (*start)(gojax_Profiler_Args* args);
  PJRT_Error* (*stop)(gojax_Profiler_Args* args);
  PJRT_Error* (*collect_data)(gojax_Profiler_CollectData_Args* args);
} gojax_Profiler_Api;

typedef struct gojax_ProfilerExtension {
  PJRT_Extension_Base base;
  gojax_Profiler_Api* profiler_api;
  int64_t traceme_context_id; /* used only when the framework passes the extension in args */
} gojax_ProfilerExtension;

/* The extension chain's head, for tests that walk it. */
const gojax_Profiler_Api* gojax_profiler_api(void);


extern const PJRT_Error_FunctionTable gojax_error_vtable;
extern const PJRT_Memory_FunctionTable gojax_memory_vtable;

PJRT_Error* gojax_new_error(int code, const char* msg, size_t len);
gojax_Memory* gojax_new_memory(uintptr_t h);
void gojax_free_memory(gojax_Memory* m);

const PJRT_Api* gojax_api(void);

/* Calls through C function pointers. */
void gojax_call_on_ready(PJRT_Event_OnReadyCallback cb, PJRT_Error* err, void* user_arg);
void gojax_call_on_delete(void (*cb)(void*, void*), void* ptr, void* arg);

/* PJRT_NamedValue's anonymous union. */
int64_t gojax_nv_int64(const PJRT_NamedValue* nv);
const char* gojax_nv_string(const PJRT_NamedValue* nv);
const int64_t* gojax_nv_int64_list(const PJRT_NamedValue* nv);
float gojax_nv_float(const PJRT_NamedValue* nv);
bool gojax_nv_bool(const PJRT_NamedValue* nv);
void gojax_nv_set_int64(PJRT_NamedValue* nv, const char* name, int64_t v);
void gojax_nv_set_float(PJRT_NamedValue* nv, const char* name, float v);
void gojax_nv_set_int64_list(PJRT_NamedValue* nv, const char* name, const int64_t* v, size_t n);
void gojax_nv_set_string(PJRT_NamedValue* nv, const char* name, const char* v);

/* PJRT_Buffer_MemoryLayout's anonymous union. */
void gojax_layout_set_tiled(PJRT_Buffer_MemoryLayout* l, const int64_t* m2m, size_t n);
const int64_t* gojax_layout_tiled_m2m(const PJRT_Buffer_MemoryLayout* l, size_t* n, size_t* num_tiles);
const int64_t* gojax_layout_strides(const PJRT_Buffer_MemoryLayout* l, size_t* n);

/* Callbacks handed to the framework; they call back into Go. */
void gojax_raw_future_ready(PJRT_Buffer_CopyRawToHostFuture_Callback_Args* args);
void gojax_donate_dependency_ready(PJRT_Buffer_DonateWithControlDependency_Callback_Args* args);

/* Signal stacks under AMX (capi.c): the tiles are granted (call once, at
 * init); give the calling thread a large enough alternate stack. */
void gojax_tiles_granted(void);
int gojax_widen_sigstack(void);

/* Deleters handed to the framework. */
void gojax_free_serialized_executable(PJRT_SerializedExecutable* p);
void gojax_free_serialized_topology(PJRT_SerializedTopology* p);
void gojax_free_serialized_compile_options(PJRT_SerializedCompileOptions* p);
void gojax_free_device_assignment(PJRT_DeviceAssignmentSerialized* p);
void gojax_free_device_attributes(PJRT_Device_Attributes* p);
void gojax_free_serialized_shape(const char* p);

/* The cross-host transfers extension (PJRT_Extension_Type_CrossHostTransfers,
 * version 8): moves arrays between devices of two processes of a job. jaxlib
 * reports supports_cross_host_transfers when it is present and then calls
 * the send/receive pair; the older descriptor-based pair answers
 * UNIMPLEMENTED. Global device ids are int32 (jaxlib 0.12.0.1 passes 4-byte
 * ids, observed) and transfer keys int64. The args of
 * version 8 end with the framework's snapshot of live tasks
 * (num_tasks, task_ids, incarnation_ids); older callers stop before it, and
 * both sizes are accepted. */
typedef struct gojax_CrossHostSend_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  size_t num_buffers;
  PJRT_Buffer** buffers;
  const int32_t* dst_global_device_ids; /* num_buffers */
  const int64_t* transfer_keys;         /* num_buffers */
  PJRT_Event** send_events;             /* out: num_buffers */
  size_t num_tasks;
  const int* task_ids;
  const int64_t* incarnation_ids;
} gojax_CrossHostSend_Args;
#define gojax_CrossHostSend_Args_STRUCT_SIZE PJRT_STRUCT_SIZE(gojax_CrossHostSend_Args, send_events)

typedef struct gojax_CrossHostReceive_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  size_t num_shapes;
  size_t* shape_num_dims;
  const int64_t** num_dims; /* the dims of each shape */
  PJRT_Buffer_Type* element_types;
  PJRT_Buffer_MemoryLayout** layouts; /* NULL, or num_shapes entries (each may be NULL) */
  PJRT_Device* device;
  const int32_t* src_global_device_ids; /* num_shapes */
  const int64_t* transfer_keys;         /* num_shapes */
  PJRT_Buffer** buffers;                /* out: num_shapes */
  size_t num_tasks;
  const int* task_ids;
  const int64_t* incarnation_ids;
} gojax_CrossHostReceive_Args;
#define gojax_CrossHostReceive_Args_STRUCT_SIZE PJRT_STRUCT_SIZE(gojax_CrossHostReceive_Args, buffers)

/* The older calls' arguments are never read past their struct_size; only
 * the fields gojax uses to answer are named. */
typedef struct gojax_CrossHostMakeReceive_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
} gojax_CrossHostMakeReceive_Args;

typedef struct gojax_CrossHostRemoteSendCallback {
  void* user_arg;
  void (*on_done)(PJRT_Error* error, bool sends_were_enqueued, void* user_arg);
} gojax_CrossHostRemoteSendCallback;

typedef struct gojax_CrossHostCopyToRemote_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Event* event;
  char** serialized_descriptor;
  size_t* serialized_descriptor_size;
  gojax_CrossHostRemoteSendCallback on_done;
} gojax_CrossHostCopyToRemote_Args;
#define gojax_CrossHostCopyToRemote_Args_STRUCT_SIZE PJRT_STRUCT_SIZE(gojax_CrossHostCopyToRemote_Args, on_done)

typedef struct gojax_CrossHostTransfersExtension {
  PJRT_Extension_Base base;
  PJRT_Error* (*make_receive_buffers)(gojax_CrossHostMakeReceive_Args* args);
  void (*copy_to_remote_device)(gojax_CrossHostCopyToRemote_Args* args);
  PJRT_Error* (*receive_buffers)(gojax_CrossHostReceive_Args* args);
  PJRT_Error* (*send_buffers)(gojax_CrossHostSend_Args* args);
} gojax_CrossHostTransfersExtension;

#endif /* GOJAX_CAPI_H_ */
