package callback

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

// The Python C API is reached through dlsym, not linked: gojax's library is
// loaded by the Python interpreter, which provides these symbols, while Go
// test binaries (no interpreter) still link and report a clear error.
typedef void* PyObj;
typedef int GILState;

static struct {
	int ready;
	GILState (*gil_ensure)(void);
	void (*gil_release)(GILState);
	PyObj (*import_module)(const char*);
	PyObj (*get_attr)(PyObj, const char*);
	PyObj (*tuple_new)(long);
	int (*tuple_set)(PyObj, long, PyObj);
	PyObj (*long_from_ull)(unsigned long long);
	PyObj (*str_from)(const char*, long);
	PyObj (*call)(PyObj, PyObj);
	const char* (*utf8)(PyObj);
	PyObj (*to_str)(PyObj);
	void (*decref)(PyObj);
	PyObj (*err_occurred)(void);
	void (*err_fetch)(PyObj*, PyObj*, PyObj*);
	void (*err_normalize)(PyObj*, PyObj*, PyObj*);
	PyObj none;
} py;

static int gojax_py_load(void) {
	if (py.ready) return py.ready > 0;
#define SYM(field, name) if (!(*(void**)&py.field = dlsym(RTLD_DEFAULT, name))) { py.ready = -1; return 0; }
	SYM(gil_ensure, "PyGILState_Ensure")
	SYM(gil_release, "PyGILState_Release")
	SYM(import_module, "PyImport_ImportModule")
	SYM(get_attr, "PyObject_GetAttrString")
	SYM(tuple_new, "PyTuple_New")
	SYM(tuple_set, "PyTuple_SetItem")
	SYM(long_from_ull, "PyLong_FromUnsignedLongLong")
	SYM(str_from, "PyUnicode_FromStringAndSize")
	SYM(call, "PyObject_CallObject")
	SYM(utf8, "PyUnicode_AsUTF8")
	SYM(to_str, "PyObject_Str")
	SYM(decref, "Py_DecRef")
	SYM(err_occurred, "PyErr_Occurred")
	SYM(err_fetch, "PyErr_Fetch")
	SYM(err_normalize, "PyErr_NormalizeException")
	SYM(none, "_Py_NoneStruct")
#undef SYM
	py.ready = 1;
	return 1;
}

static char* dupstr(const char* s) {
	if (!s) s = "(no message)";
	size_t n = strlen(s);
	char* d = malloc(n + 1);
	memcpy(d, s, n + 1);
	return d;
}

// Describes the pending Python exception (and clears it).
static char* pending_error(void) {
	PyObj t = NULL, v = NULL, tb = NULL;
	py.err_fetch(&t, &v, &tb);
	py.err_normalize(&t, &v, &tb);
	char* msg;
	PyObj s = v ? py.to_str(v) : NULL;
	if (s) {
		msg = dupstr(py.utf8(s));
		py.decref(s);
	} else {
		msg = dupstr("unknown Python error");
	}
	if (t) py.decref(t);
	if (v) py.decref(v);
	if (tb) py.decref(tb);
	return msg;
}

// Calls gojax._callbacks.call(callable, spec). Returns NULL on success, else a
// malloc'ed message: the Python exception, or the string the call returned.
static char* gojax_py_call(unsigned long long callable, const char* spec, long n) {
	if (!gojax_py_load()) return dupstr("the Python interpreter's C API is not available in this process");
	GILState g = py.gil_ensure();
	char* err = NULL;
	PyObj mod = NULL, fn = NULL, args = NULL, res = NULL;
	if (!(mod = py.import_module("gojax._callbacks")) || !(fn = py.get_attr(mod, "call"))) {
		err = pending_error();
		goto done;
	}
	if (!(args = py.tuple_new(2))) { err = pending_error(); goto done; }
	py.tuple_set(args, 0, py.long_from_ull(callable)); // steals the reference
	py.tuple_set(args, 1, py.str_from(spec, n));
	if (py.err_occurred()) { err = pending_error(); goto done; }
	res = py.call(fn, args);
	if (!res) {
		err = pending_error();
	} else if (res != py.none) {
		const char* m = py.utf8(res);
		err = m ? dupstr(m) : pending_error();
	}
done:
	if (res) py.decref(res);
	if (args) py.decref(args);
	if (fn) py.decref(fn);
	if (mod) py.decref(mod);
	py.gil_release(g);
	return err;
}
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"
)

// callPython runs gojax._callbacks.call(callable, spec) under the GIL.
func callPython(callable uintptr, spec []byte) error {
	// PyGILState_Ensure and _Release must happen on one OS thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cs := C.CBytes(spec)
	defer C.free(cs)
	msg := C.gojax_py_call(C.ulonglong(callable), (*C.char)(cs), C.long(len(spec)))
	if msg == nil {
		return nil
	}
	defer C.free(unsafe.Pointer(msg))
	return errors.New(C.GoString(msg))
}
