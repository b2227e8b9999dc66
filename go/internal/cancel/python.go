package cancel

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// The Python C API is reached through dlsym, not linked: when Python loaded
// the library the symbols are in the process; elsewhere (Go tests, a C
// program using the plugin) they are not, and there is no Ctrl-C to report.
static struct {
	int ok;
	int (*initialized)(void);
	void* (*current)(void);
	int (*ensure)(void);
	void (*release)(int);
	int (*occurred)(void);
	void (*set_interrupt)(void);
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
#undef SYM
	py.ok = py.initialized && py.current && py.ensure && py.release && py.occurred && py.set_interrupt;
}

// Reports (1) whether Python has a pending SIGINT, when called on the main
// thread (the process's first thread, where the interpreter handles
// signals), and sets the flag again so that the interpreter still raises
// KeyboardInterrupt when the thread returns to it. Elsewhere it returns 0.
// PyOS_InterruptOccurred needs the thread to hold the GIL: a thread that
// already holds it (its thread state is current) calls it directly, one that
// released it around the PJRT call takes it for the check; *waited_ns is
// how long that took (another Python thread may hold the GIL).
static int gojax_python_interrupted(long long* waited_ns) {
	*waited_ns = 0;
	pthread_once(&py_once, py_load);
	if (!py.ok || syscall(SYS_gettid) != getpid() || !py.initialized()) return 0;
	int hit;
	if (py.current()) {
		hit = py.occurred();
	} else {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		int s = py.ensure();
		clock_gettime(CLOCK_MONOTONIC, &b);
		*waited_ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
		hit = py.occurred();
		py.release(s);
	}
	if (hit) py.set_interrupt();
	return hit;
}
*/
import "C"

import "time"

// pythonInterrupted reports a Ctrl-C pending for Python's main thread when
// called on it (see gojax_python_interrupted), and how long it waited for
// the GIL; the caller must be on the thread it asks about, which a goroutine
// running a cgo callback is.
func pythonInterrupted() (bool, time.Duration) {
	var waited C.longlong
	hit := C.gojax_python_interrupted(&waited) != 0
	return hit, time.Duration(waited)
}
