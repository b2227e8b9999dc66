package capi

/*
#include <string.h>
#include "gojax_capi.h"

// The KV callbacks build their errors with a function we pass them; ours
// returns a block of our own, which kvError reads and frees.
typedef struct { PJRT_Error_Code code; size_t n; char msg[]; } gojax_kv_err;

static PJRT_Error* gojax_kv_make_error(PJRT_Error_Code code, const char* msg, size_t n) {
	gojax_kv_err* e = malloc(sizeof(gojax_kv_err) + n + 1);
	if (e == NULL) return NULL;
	e->code = code;
	e->n = n;
	if (n > 0) memcpy(e->msg, msg, n);
	e->msg[n] = 0;
	return (PJRT_Error*)e;
}

static PJRT_CallbackError gojax_kv_error_fn = gojax_kv_make_error;

static PJRT_Error* gojax_kv_get(PJRT_KeyValueGetCallback cb, void* ua, const char* key, size_t key_size,
		int timeout_ms, char** value, size_t* value_size, PJRT_KeyValueGetCallback_ValueDeleter* deleter) {
	PJRT_KeyValueGetCallback_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_KeyValueGetCallback_Args_STRUCT_SIZE;
	a.key = key;
	a.key_size = key_size;
	a.timeout_in_ms = timeout_ms;
	a.callback_error = &gojax_kv_error_fn;
	a.user_arg = ua;
	PJRT_Error* err = cb(&a);
	*value = a.value;
	*value_size = a.value_size;
	*deleter = a.value_deleter_callback;
	return err;
}

static PJRT_Error* gojax_kv_put(PJRT_KeyValuePutCallback cb, void* ua, const char* key, size_t key_size,
		const char* value, size_t value_size) {
	PJRT_KeyValuePutCallback_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_KeyValuePutCallback_Args_STRUCT_SIZE;
	a.key = key;
	a.key_size = key_size;
	a.value = value;
	a.value_size = value_size;
	a.callback_error = &gojax_kv_error_fn;
	a.user_arg = ua;
	return cb(&a);
}

static const char* gojax_kv_err_msg(PJRT_Error* e) { return ((gojax_kv_err*)e)->msg; }
static size_t gojax_kv_err_len(PJRT_Error* e) { return ((gojax_kv_err*)e)->n; }
static int gojax_kv_err_code(PJRT_Error* e) { return (int)((gojax_kv_err*)e)->code; }

static void gojax_kv_delete(PJRT_KeyValueGetCallback_ValueDeleter d, char* v) { if (d != NULL) d(v); }
*/
import "C"

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/gojax/gojax/go/engine"
)

// kvStore is the coordination service's key-value store that the
// framework hands PJRT_Client_Create in a multi-process job. The
// framework keeps different plugins' keys apart.
type kvStore struct {
	get    C.PJRT_KeyValueGetCallback
	getArg unsafe.Pointer
	put    C.PJRT_KeyValuePutCallback
	putArg unsafe.Pointer
}

// kvError converts an error a callback built with gojax_kv_make_error.
func kvError(op, key string, e *C.PJRT_Error) error {
	if e == nil {
		return nil
	}
	msg := C.GoStringN(C.gojax_kv_err_msg(e), C.int(C.gojax_kv_err_len(e)))
	code := engine.Code(C.gojax_kv_err_code(e))
	C.free(unsafe.Pointer(e))
	return engine.Errorf(code, "key-value store %s %q: %s", op, key, msg)
}

// Get waits up to timeout for key and returns its value.
func (kv *kvStore) Get(key string, timeout time.Duration) ([]byte, error) {
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	var val *C.char
	var n C.size_t
	var del C.PJRT_KeyValueGetCallback_ValueDeleter
	e := C.gojax_kv_get(kv.get, kv.getArg, ck, C.size_t(len(key)), C.int(timeout.Milliseconds()), &val, &n, &del)
	if err := kvError("get", key, e); err != nil {
		return nil, err
	}
	if val == nil {
		return nil, fmt.Errorf("key-value store get %q returned no value", key)
	}
	out := C.GoBytes(unsafe.Pointer(val), C.int(n))
	C.gojax_kv_delete(del, val)
	return out, nil
}

// Put stores value under key.
func (kv *kvStore) Put(key string, value []byte) error {
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	cv := C.CBytes(value)
	defer C.free(cv)
	return kvError("put", key, C.gojax_kv_put(kv.put, kv.putArg, ck, C.size_t(len(key)), (*C.char)(cv), C.size_t(len(value))))
}
