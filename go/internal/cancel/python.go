package cancel

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// The Python C API is reached through dlsym, not linked: when Python loaded
// the library the symbols are in the process; elsewhere (Go tests, a C
// program using the plugin) they are not, and there is no Ctrl-C to report.
typedef void* PyObj;

static struct {
	int ok;
	int (*initialized)(void);
	void* (*current)(void);
	int (*ensure)(void);
	void (*release)(int);
	int (*occurred)(void);
	void (*set_interrupt)(void);
	PyObj (*import_module)(const char*);
	PyObj (*get_attr)(PyObj, const char*);
	PyObj (*long_from)(long);
	PyObj (*call_one)(PyObj, PyObj);
	void (*decref)(PyObj);
	void (*err_fetch)(PyObj*, PyObj*, PyObj*);
	void (*err_restore)(PyObj, PyObj, PyObj);
} py;

static pthread_once_t py_once = PTHREAD_ONCE_INIT;

static void py_load(void) {
#define SYM(field, name) *(void**)&py.field = dlsym(RTLD_DEFAULT, name)
	SYM(initialized, "Py_IsInitialized");
	SYM(current, "PyThreadState_GetUnchecked");
	if (!py.current) SYM(current, "_PyThreadState_UncheckedGet");
	SYM(ensure, "PyGILState_Ensure");
	SYM(release, "PyGILState_Release");
	SYM(occurred, "PyOS_InterruptOccurred");
	SYM(set_interrupt, "PyErr_SetInterrupt");
	SYM(import_module, "PyImport_ImportModule");
	SYM(get_attr, "PyObject_GetAttrString");
	SYM(long_from, "PyLong_FromLong");
	SYM(call_one, "PyObject_CallOneArg");
	SYM(decref, "Py_DecRef");
	SYM(err_fetch, "PyErr_Fetch");
	SYM(err_restore, "PyErr_Restore");
#undef SYM
	py.ok = py.initialized && py.current && py.ensure && py.release && py.occurred &&
		py.set_interrupt && py.import_module && py.get_attr && py.long_from &&
		py.call_one && py.decref && py.err_fetch && py.err_restore;
}

// Whether signal.getsignal(SIGINT) is signal.default_int_handler, the one
// that raises KeyboardInterrupt (GIL held). Any failure answers no, and
// leaves the thread's exception state as it was.
static int default_handler(void) {
	PyObj et, ev, tb;
	py.err_fetch(&et, &ev, &tb);
	int yes = 0;
	PyObj mod = py.import_module("signal"), get = NULL, num = NULL, cur = NULL, def = NULL;
	if (mod && (get = py.get_attr(mod, "getsignal")) && (num = py.long_from(SIGINT)) &&
	    (cur = py.call_one(get, num)) && (def = py.get_attr(mod, "default_int_handler"))) {
		yes = cur == def;
	}
	if (def) py.decref(def);
	if (cur) py.decref(cur);
	if (num) py.decref(num);
	if (get) py.decref(get);
	if (mod) py.decref(mod);
	py.err_restore(et, ev, tb); // drops any error raised above
	return yes;
}

// Looks for a SIGINT pending for Python, when called on the main thread
// (the process's first thread, where the interpreter handles signals):
// 0 none (or not the main thread, or no Python), 1 one that will raise
// KeyboardInterrupt, 2 one for a handler of the program's own (which may not
// want the run stopped). The flag is set again, so that the interpreter still
// runs the handler when the thread returns to it.
// PyOS_InterruptOccurred needs the thread to hold the GIL: a thread that
// already holds it (its thread state is current) calls it directly, one that
// released it around the PJRT call takes it for the check; *waited_ns is
// how long that took (another Python thread may hold the GIL).
static int gojax_python_interrupted(long long* waited_ns) {
	*waited_ns = 0;
	pthread_once(&py_once, py_load);
	if (!py.ok || syscall(SYS_gettid) != getpid() || !py.initialized()) return 0;
	int held = py.current() != NULL, s = 0;
	if (!held) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		s = py.ensure();
		clock_gettime(CLOCK_MONOTONIC, &b);
		*waited_ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
	}
	int hit = py.occurred();
	if (hit) {
		hit = default_handler() ? 1 : 2;
		py.set_interrupt();
	}
	if (!held) py.release(s);
	return hit;
}
*/
import "C"

import "time"

// interruptKind is what a poll found.
type interruptKind int

const (
	noInterrupt    interruptKind = 0
	keyboardInt    interruptKind = 1 // Python will raise KeyboardInterrupt
	handledByOwner interruptKind = 2 // the program installed its own SIGINT handler
)

// pythonInterrupted looks for a Ctrl-C pending for Python's main thread when
// called on it (see gojax_python_interrupted), and reports how long it
// waited for the GIL; the caller must be on the thread it asks about, which
// a goroutine running a cgo callback is.
func pythonInterrupted() (interruptKind, time.Duration) {
	var waited C.longlong
	k := interruptKind(C.gojax_python_interrupted(&waited))
	return k, time.Duration(waited)
}
