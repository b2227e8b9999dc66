/* gojax's declarations of the XLA FFI C API, version 0.5: the function table
 * a typed-FFI handler calls back into, the call frame it is handed, and the
 * structs of both. Handlers compiled against jaxlib's xla/ffi/api headers
 * read these structs by layout, so every field order, enum value and struct
 * size here follows that ABI; ffi_abi_test.go compiles the official header
 * next to this one and compares them. */
#ifndef GOJAX_XLA_FFI_H_
#define GOJAX_XLA_FFI_H_

#include <stddef.h>
#include <stdint.h>

#define GOJAX_FFI_API_MAJOR 0
#define GOJAX_FFI_API_MINOR 5

/* The size a caller writes into struct_size: up to the end of the last
 * field, without trailing padding. */
#define GOJAX_FFI_SIZE(T, last) (offsetof(T, last) + sizeof(((T*)0)->last))

typedef struct XLA_FFI_Api XLA_FFI_Api;
typedef struct XLA_FFI_Error XLA_FFI_Error;
typedef struct XLA_FFI_InvokeContext XLA_FFI_InvokeContext;
typedef struct XLA_FFI_Future XLA_FFI_Future;

/* Extensions XLA puts on a call frame; type 1 asks a handler for its
 * metadata instead of running it. */
typedef struct XLA_FFI_InternalExtension {
  size_t struct_size;
  int type; /* 1 = metadata */
  struct XLA_FFI_InternalExtension* next;
} XLA_FFI_InternalExtension;
#define GOJAX_FFI_EXTENSION_METADATA 1

typedef struct XLA_FFI_ExtensionId {
  int64_t extension_type;
  int32_t major_version;
  int32_t minor_version;
} XLA_FFI_ExtensionId;

typedef struct XLA_FFI_Extension {
  size_t struct_size;
  XLA_FFI_ExtensionId id;
  const struct XLA_FFI_Extension* next;
} XLA_FFI_Extension;

typedef struct XLA_FFI_Api_Version {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  int major_version;
  int minor_version;
} XLA_FFI_Api_Version;

/* Error codes are absl's (and PJRT's) status codes. */
enum {
  GOJAX_FFI_OK = 0,
  GOJAX_FFI_INVALID_ARGUMENT = 3,
  GOJAX_FFI_NOT_FOUND = 5,
  GOJAX_FFI_ALREADY_EXISTS = 6,
  GOJAX_FFI_RESOURCE_EXHAUSTED = 8,
  GOJAX_FFI_FAILED_PRECONDITION = 9,
  GOJAX_FFI_UNIMPLEMENTED = 12,
  GOJAX_FFI_INTERNAL = 13,
};

typedef struct XLA_FFI_Error_Create_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  const char* message;
  int errc;
} XLA_FFI_Error_Create_Args;

typedef struct XLA_FFI_Error_GetDetails_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_Error* error;
  const char* message; /* out */
  int errc;            /* out */
} XLA_FFI_Error_GetDetails_Args;

typedef struct XLA_FFI_Error_Destroy_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_Error* error;
} XLA_FFI_Error_Destroy_Args;

/* Element types (XLA's PrimitiveType numbers, not PJRT's). */
enum {
  GOJAX_FFI_PRED = 1,
  GOJAX_FFI_S8 = 2,
  GOJAX_FFI_S16 = 3,
  GOJAX_FFI_S32 = 4,
  GOJAX_FFI_S64 = 5,
  GOJAX_FFI_U8 = 6,
  GOJAX_FFI_U16 = 7,
  GOJAX_FFI_U32 = 8,
  GOJAX_FFI_U64 = 9,
  GOJAX_FFI_F16 = 10,
  GOJAX_FFI_F32 = 11,
  GOJAX_FFI_F64 = 12,
  GOJAX_FFI_C64 = 15,
  GOJAX_FFI_BF16 = 16,
  GOJAX_FFI_TOKEN = 17,
  GOJAX_FFI_C128 = 18,
  GOJAX_FFI_F8E5M2 = 19,
  GOJAX_FFI_F8E4M3FN = 20,
  GOJAX_FFI_F8E4M3B11FNUZ = 23,
  GOJAX_FFI_F8E5M2FNUZ = 24,
  GOJAX_FFI_F8E4M3FNUZ = 25,
  GOJAX_FFI_F8E4M3 = 28,
  GOJAX_FFI_F8E3M4 = 29,
  GOJAX_FFI_F8E8M0FNU = 33,
  GOJAX_FFI_S2 = 26,
  GOJAX_FFI_S4 = 21,
  GOJAX_FFI_U2 = 27,
  GOJAX_FFI_U4 = 22,
};

typedef struct XLA_FFI_Buffer {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  int dtype;
  void* data;
  int64_t rank;
  int64_t* dims;
} XLA_FFI_Buffer;

/* Argument, result and attribute kinds. */
#define GOJAX_FFI_ARG_BUFFER 1
#define GOJAX_FFI_RET_BUFFER 1
enum {
  GOJAX_FFI_ATTR_ARRAY = 1,
  GOJAX_FFI_ATTR_DICTIONARY = 2,
  GOJAX_FFI_ATTR_SCALAR = 3,
  GOJAX_FFI_ATTR_STRING = 4,
};

typedef struct XLA_FFI_ByteSpan {
  const char* ptr;
  size_t len;
} XLA_FFI_ByteSpan;

typedef struct XLA_FFI_Scalar {
  int dtype;
  void* value;
} XLA_FFI_Scalar;

typedef struct XLA_FFI_Array {
  int dtype;
  size_t size;
  void* data;
} XLA_FFI_Array;

typedef struct XLA_FFI_TypeId {
  int64_t type_id;
} XLA_FFI_TypeId;

typedef struct XLA_FFI_TypeInfo {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  void (*deleter)(void* object);
} XLA_FFI_TypeInfo;

enum {
  GOJAX_FFI_STAGE_INSTANTIATE = 0,
  GOJAX_FFI_STAGE_PREPARE = 1,
  GOJAX_FFI_STAGE_INITIALIZE = 2,
  GOJAX_FFI_STAGE_EXECUTE = 3,
};

typedef struct XLA_FFI_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  int64_t size;
  int* types;
  void** args;
} XLA_FFI_Args;

typedef struct XLA_FFI_Rets {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  int64_t size;
  int* types;
  void** rets;
} XLA_FFI_Rets;

/* Attributes, sorted by name: handlers look them up by binary search. */
typedef struct XLA_FFI_Attrs {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  int64_t size;
  int* types;
  XLA_FFI_ByteSpan** names;
  void** attrs;
} XLA_FFI_Attrs;

typedef struct XLA_FFI_CallFrame {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  const XLA_FFI_Api* api;
  XLA_FFI_InvokeContext* ctx;
  int stage;
  XLA_FFI_Args args;
  XLA_FFI_Rets rets;
  XLA_FFI_Attrs attrs;
  XLA_FFI_Future* future; /* out: set by an asynchronous handler */
} XLA_FFI_CallFrame;

typedef XLA_FFI_Error* XLA_FFI_Handler(XLA_FFI_CallFrame* call_frame);

typedef struct XLA_FFI_Handler_Bundle {
  XLA_FFI_Handler* instantiate;
  XLA_FFI_Handler* prepare;
  XLA_FFI_Handler* initialize;
  XLA_FFI_Handler* execute;
  XLA_FFI_Handler* record;
} XLA_FFI_Handler_Bundle;

typedef struct XLA_FFI_Handler_Register_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_ByteSpan name;
  XLA_FFI_ByteSpan platform;
  XLA_FFI_Handler_Bundle bundle;
  uint32_t traits;
} XLA_FFI_Handler_Register_Args;

typedef struct XLA_FFI_Type_Register_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_ByteSpan name;
  XLA_FFI_TypeId* type_id; /* in-out: 0 asks for a new id */
  const XLA_FFI_TypeInfo* type_info;
} XLA_FFI_Type_Register_Args;

typedef struct XLA_FFI_InvokeContext_FindExtension_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  int64_t extension_type;
  const XLA_FFI_Extension* extension; /* out */
} XLA_FFI_InvokeContext_FindExtension_Args;

typedef struct XLA_FFI_InvokeContext_Get_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  XLA_FFI_TypeId* type_id;
  void* data; /* out */
} XLA_FFI_InvokeContext_Get_Args;

typedef struct XLA_FFI_CustomOptions_Get_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  const XLA_FFI_Attrs* attrs; /* out */
} XLA_FFI_CustomOptions_Get_Args;

typedef struct XLA_FFI_State_Set_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  int stage;
  XLA_FFI_TypeId* type_id;
  void* state;
} XLA_FFI_State_Set_Args;

typedef struct XLA_FFI_State_Get_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  int stage;
  XLA_FFI_TypeId* type_id;
  void* state; /* out */
} XLA_FFI_State_Get_Args;

typedef struct XLA_FFI_Stream_Get_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  void* stream; /* out */
} XLA_FFI_Stream_Get_Args;

typedef struct XLA_FFI_DeviceMemory_Allocate_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  size_t size;
  size_t alignment;
  void* data; /* out */
} XLA_FFI_DeviceMemory_Allocate_Args;

typedef struct XLA_FFI_DeviceMemory_Free_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  size_t size;
  void* data;
} XLA_FFI_DeviceMemory_Free_Args;

typedef void XLA_FFI_Task(void* data);

typedef struct XLA_FFI_ThreadPool_Schedule_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  XLA_FFI_Task* task;
  void* data;
} XLA_FFI_ThreadPool_Schedule_Args;

typedef struct XLA_FFI_ThreadPool_NumThreads_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  int64_t* num_threads; /* out */
} XLA_FFI_ThreadPool_NumThreads_Args;

typedef struct XLA_FFI_RunId_Get_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  int64_t run_id; /* out */
} XLA_FFI_RunId_Get_Args;

typedef struct XLA_FFI_DeviceOrdinal_Get_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  int32_t device_ordinal; /* out */
} XLA_FFI_DeviceOrdinal_Get_Args;

typedef struct XLA_FFI_Future_Create_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_Future* future; /* out */
} XLA_FFI_Future_Create_Args;

typedef struct XLA_FFI_Future_SetAvailable_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_Future* future;
} XLA_FFI_Future_SetAvailable_Args;

typedef struct XLA_FFI_Future_SetError_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_Future* future;
  XLA_FFI_Error* error; /* the future takes it */
} XLA_FFI_Future_SetError_Args;

/* What a handler reports when asked for its metadata. */
typedef struct XLA_FFI_Metadata {
  size_t struct_size;
  XLA_FFI_Api_Version api_version;
  uint32_t traits;
  XLA_FFI_TypeId state_type_id;
} XLA_FFI_Metadata;

typedef struct XLA_FFI_Metadata_Extension {
  XLA_FFI_InternalExtension extension_base;
  XLA_FFI_Metadata* metadata;
} XLA_FFI_Metadata_Extension;

/* The table, in slot order. */
struct XLA_FFI_Api {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_Api_Version api_version;
  const void* internal_api; /* XLA's private calls; gojax offers none */
  XLA_FFI_Error* (*XLA_FFI_Error_Create)(XLA_FFI_Error_Create_Args*);
  void (*XLA_FFI_Error_GetDetails)(XLA_FFI_Error_GetDetails_Args*);
  void (*XLA_FFI_Error_Destroy)(XLA_FFI_Error_Destroy_Args*);
  XLA_FFI_Error* (*XLA_FFI_Handler_Register)(XLA_FFI_Handler_Register_Args*);
  XLA_FFI_Error* (*XLA_FFI_Stream_Get)(XLA_FFI_Stream_Get_Args*);
  XLA_FFI_Error* (*XLA_FFI_Type_Register)(XLA_FFI_Type_Register_Args*);
  XLA_FFI_Error* (*XLA_FFI_InvokeContext_Get)(XLA_FFI_InvokeContext_Get_Args*);
  XLA_FFI_Error* (*XLA_FFI_State_Set)(XLA_FFI_State_Set_Args*);
  XLA_FFI_Error* (*XLA_FFI_State_Get)(XLA_FFI_State_Get_Args*);
  XLA_FFI_Error* (*XLA_FFI_DeviceMemory_Allocate)(XLA_FFI_DeviceMemory_Allocate_Args*);
  XLA_FFI_Error* (*XLA_FFI_DeviceMemory_Free)(XLA_FFI_DeviceMemory_Free_Args*);
  XLA_FFI_Error* (*XLA_FFI_ThreadPool_Schedule)(XLA_FFI_ThreadPool_Schedule_Args*);
  XLA_FFI_Error* (*XLA_FFI_ThreadPool_NumThreads)(XLA_FFI_ThreadPool_NumThreads_Args*);
  XLA_FFI_Error* (*XLA_FFI_Future_Create)(XLA_FFI_Future_Create_Args*);
  XLA_FFI_Error* (*XLA_FFI_Future_SetAvailable)(XLA_FFI_Future_SetAvailable_Args*);
  XLA_FFI_Error* (*XLA_FFI_Future_SetError)(XLA_FFI_Future_SetError_Args*);
  XLA_FFI_Error* (*XLA_FFI_RunId_Get)(XLA_FFI_RunId_Get_Args*);
  XLA_FFI_Error* (*XLA_FFI_DeviceOrdinal_Get)(XLA_FFI_DeviceOrdinal_Get_Args*);
  XLA_FFI_Error* (*XLA_FFI_InvokeContext_FindExtension)(XLA_FFI_InvokeContext_FindExtension_Args*);
  XLA_FFI_Error* (*XLA_FFI_CustomOptions_Get)(XLA_FFI_CustomOptions_Get_Args*);
};

/* ---- gojax's side --------------------------------------------------------- */

/* The execution a call serves (has_run 0: unknown). */
typedef struct gojax_ffi_runinfo {
  int has_run;
  int64_t run_id;
  int32_t device_ordinal;
} gojax_ffi_runinfo;

/* User data the framework attached to one execution. */
typedef struct gojax_ffi_userdata {
  int64_t type_id;
  void* data;
} gojax_ffi_userdata;

/* One custom-call step: what is fixed when it is compiled. Buffers carry
 * element type, rank and dims; their data pointers are set per call. */
typedef struct gojax_ffi_step {
  XLA_FFI_Handler_Bundle bundle;
  int64_t nargs, nrets;
  const XLA_FFI_Buffer* args; /* templates */
  const XLA_FFI_Buffer* rets;
  XLA_FFI_Attrs attrs;
  int64_t state_type;   /* instantiate-stage state, set at compile time */
  void* state;
} gojax_ffi_step;

/* One call's environment, the handler's XLA_FFI_InvokeContext. */
struct XLA_FFI_InvokeContext {
  const gojax_ffi_step* step;
  int64_t num_threads;
  const gojax_ffi_userdata* user_data;
  int64_t num_user_data;
  /* The run's id and device ordinal; has_run is 0 where the step was
   * called without its run's context. */
  int has_run;
  int64_t run_id;
  int32_t device_ordinal;
  int64_t state_type[3]; /* per stage; [0] mirrors step->state */
  void* state[3];
};

extern const XLA_FFI_Api gojax_ffi_api;

XLA_FFI_Error* gojax_ffi_new_error(int code, const char* msg);
/* gojax_ffi_error_take copies the message into a malloc'd string (for Go
 * to free), stores the code and destroys the error. */
char* gojax_ffi_error_take(XLA_FFI_Error* err, int* code);

/* Calls the prepare, initialize and execute stages (those the bundle has)
 * over this call's buffers and waits for an asynchronous result. */
XLA_FFI_Error* gojax_ffi_run(const gojax_ffi_step* step, void* const* arg_data, void* const* ret_data,
                             int64_t num_threads, const gojax_ffi_userdata* user_data, int64_t num_user_data,
                             gojax_ffi_runinfo run);
/* Calls the instantiate stage once; its state lands in step. */
XLA_FFI_Error* gojax_ffi_instantiate(gojax_ffi_step* step, int64_t num_threads);
/* Asks the execute handler for its metadata (API version, traits). */
XLA_FFI_Error* gojax_ffi_metadata(XLA_FFI_Handler* execute, XLA_FFI_Metadata* out);
/* Frees the instantiate-stage state with its type's deleter. */
void gojax_ffi_step_release_state(gojax_ffi_step* step);

/* The handler and type registries (process-wide, like XLA's). */
int gojax_ffi_register(const char* name, size_t name_len, const char* platform, size_t platform_len,
                       const XLA_FFI_Handler_Bundle* bundle, uint32_t traits, char** err);
int gojax_ffi_lookup(const char* name, size_t name_len, XLA_FFI_Handler_Bundle* bundle, uint32_t* traits);
int gojax_ffi_type_register(const char* name, size_t name_len, int64_t* type_id, void (*deleter)(void*), char** err);

#endif
