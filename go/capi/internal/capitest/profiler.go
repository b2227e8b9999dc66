package capitest

/*
#include <stdlib.h>
#include <string.h>
#include "pjrt_c_api.h"

// The profiler extension (type 1) and its PLUGIN_Profiler_Api, as the
// framework's plugin tracer reads them (XLA's profiler_c_api.h layout).
typedef struct { size_t struct_size; void* priv; PJRT_Error* error; } perr_destroy_args;
typedef struct { size_t struct_size; void* priv; const PJRT_Error* error; const char* message; size_t message_size; } perr_message_args;
typedef struct { size_t struct_size; void* priv; const PJRT_Error* error; int code; } perr_code_args;
typedef struct { size_t struct_size; const char* options; size_t options_size; void* profiler; } pcreate_args;
typedef struct { size_t struct_size; void* profiler; } psession_args;
typedef struct { size_t struct_size; void* profiler; uint8_t* buffer; size_t buffer_size_in_bytes; } pcollect_args;
typedef struct {
	size_t struct_size;
	void* priv;
	void (*error_destroy)(perr_destroy_args*);
	void (*error_message)(perr_message_args*);
	PJRT_Error* (*error_get_code)(perr_code_args*);
	PJRT_Error* (*create)(pcreate_args*);
	PJRT_Error* (*destroy)(psession_args*);
	PJRT_Error* (*start)(psession_args*);
	PJRT_Error* (*stop)(psession_args*);
	PJRT_Error* (*collect_data)(pcollect_args*);
} profiler_api;
typedef struct { PJRT_Extension_Base base; profiler_api* api; int64_t traceme_context_id; } profiler_ext;

static const profiler_api* find_profiler(const PJRT_Api* api) {
	for (PJRT_Extension_Base* e = api->extension_start; e != NULL; e = e->next)
		if (e->type == PJRT_Extension_Type_Profiler) return ((profiler_ext*)e)->api;
	return NULL;
}

// perr converts an error as the tracer does (code, then message, then
// destroy); the message is copied into msg.
static int perr(const profiler_api* p, PJRT_Error* e, char* msg, size_t cap, int* get_code_failed) {
	if (e == NULL) return 0;
	perr_code_args c = {sizeof c, NULL, e, -1};
	*get_code_failed = p->error_get_code(&c) != NULL;
	perr_message_args m = {sizeof m, NULL, e, NULL, 0};
	p->error_message(&m);
	size_t n = m.message_size < cap - 1 ? m.message_size : cap - 1;
	memcpy(msg, m.message, n);
	msg[n] = 0;
	perr_destroy_args d = {sizeof d, NULL, e};
	p->error_destroy(&d);
	return c.code;
}

// The tracer leaves struct_size unset: garbage, not a size.
static const size_t garbage = 0xdeadbeef;

static PJRT_Error* p_create(const profiler_api* p, void** out) {
	pcreate_args a = {garbage, "", 0, NULL};
	PJRT_Error* e = p->create(&a);
	*out = a.profiler;
	return e;
}
static PJRT_Error* p_call(const profiler_api* p, int which, void* s) {
	psession_args a = {garbage, s};
	switch (which) {
	case 0: return p->start(&a);
	case 1: return p->stop(&a);
	default: return p->destroy(&a);
	}
}
static PJRT_Error* p_collect(const profiler_api* p, void* s, uint8_t* buf, uint8_t** out, size_t* n) {
	pcollect_args a = {garbage, s, buf, 0};
	PJRT_Error* e = p->collect_data(&a);
	*out = a.buffer;
	*n = a.buffer_size_in_bytes;
	return e;
}
*/
import "C"

import (
	"unsafe"
)

// Profiler drives the profiler extension's table as jaxlib's plugin tracer does.
type Profiler struct{ p *C.profiler_api }

// ProfilerAPI finds the extension (nil when missing) and reports the
// table's struct_size.
func (a *API) ProfilerAPI() (*Profiler, int) {
	p := C.find_profiler(a.p)
	if p == nil {
		return nil, 0
	}
	return &Profiler{p}, int(p.struct_size)
}

// PErr is a profiler error; GetCodeFailed is set when error_get_code
// itself returned an error (the tracer aborts on that).
type PErr struct {
	Code          int
	Msg           string
	GetCodeFailed bool
}

func (p *Profiler) err(e *C.PJRT_Error) *PErr {
	if e == nil {
		return nil
	}
	var buf [512]C.char
	var failed C.int
	code := C.perr(p.p, e, &buf[0], C.size_t(len(buf)), &failed)
	return &PErr{Code: int(code), Msg: C.GoString(&buf[0]), GetCodeFailed: failed != 0}
}

// Session is an opaque PLUGIN_Profiler*.
type Session struct{ ptr unsafe.Pointer }

func (p *Profiler) Create() (Session, *PErr) {
	var s unsafe.Pointer
	e := C.p_create(p.p, &s)
	return Session{s}, p.err(e)
}

func (p *Profiler) Start(s Session) *PErr   { return p.err(C.p_call(p.p, 0, s.ptr)) }
func (p *Profiler) Stop(s Session) *PErr    { return p.err(C.p_call(p.p, 1, s.ptr)) }
func (p *Profiler) Destroy(s Session) *PErr { return p.err(C.p_call(p.p, 2, s.ptr)) }

// Collect calls collect_data once with buffer NULL, as the tracer does, and
// returns a copy of what the plugin's buffer holds.
func (p *Profiler) Collect(s Session) ([]byte, *PErr) {
	var out *C.uint8_t
	var n C.size_t
	if e := p.err(C.p_collect(p.p, s.ptr, nil, &out, &n)); e != nil {
		return nil, e
	}
	return C.GoBytes(unsafe.Pointer(out), C.int(n)), nil
}

// CollectInto is the two-call form: the size first, then the data copied
// into a buffer of the caller's.
func (p *Profiler) CollectInto(s Session) ([]byte, *PErr) {
	var out *C.uint8_t
	var n C.size_t
	if e := p.err(C.p_collect(p.p, s.ptr, nil, &out, &n)); e != nil {
		return nil, e
	}
	buf := (*C.uint8_t)(C.malloc(n))
	defer C.free(unsafe.Pointer(buf))
	if e := p.err(C.p_collect(p.p, s.ptr, buf, &out, &n)); e != nil {
		return nil, e
	}
	if out != buf {
		return nil, &PErr{Msg: "collect_data did not write into the caller's buffer"}
	}
	return C.GoBytes(unsafe.Pointer(buf), C.int(n)), nil
}
