package capi

/*
#include "gojax_capi.h"
*/
import "C"

import (
	"errors"
	"runtime/cgo"

	"github.com/gojax/gojax/go/engine"
	"github.com/gojax/gojax/go/profile"
)

// The profiler extension's sessions (capi.c holds the C side): each is a
// profile.Session behind a handle.

//export gojax_Profiler_New
func gojax_Profiler_New() C.uintptr_t { return newHandle(&profile.Session{}) }

//export gojax_Profiler_Close
func gojax_Profiler_Close(h C.uintptr_t) {
	defer func() { _ = recover() }() // a stale handle: nothing left to close
	if s, ok := cgo.Handle(h).Value().(*profile.Session); ok {
		s.Close()
		deleteHandle(h)
	}
}

//export gojax_Profiler_Start
func gojax_Profiler_Start(h C.uintptr_t) (ret pjrtErr) {
	const fn = "PLUGIN_Profiler_Start"
	defer guard(fn, &ret)
	s, e := value[*profile.Session](fn, "profiler", h)
	if e != nil {
		return e
	}
	return sessionErr(fn, s.Start())
}

//export gojax_Profiler_Stop
func gojax_Profiler_Stop(h C.uintptr_t) (ret pjrtErr) {
	const fn = "PLUGIN_Profiler_Stop"
	defer guard(fn, &ret)
	s, e := value[*profile.Session](fn, "profiler", h)
	if e != nil {
		return e
	}
	return sessionErr(fn, s.Stop())
}

// gojax_Profiler_Collect hands the XSpace to C in malloc'ed memory, which
// the session frees at destroy.
//
//export gojax_Profiler_Collect
func gojax_Profiler_Collect(h C.uintptr_t, data **C.uint8_t, size *C.size_t) (ret pjrtErr) {
	const fn = "PLUGIN_Profiler_CollectData"
	defer guard(fn, &ret)
	s, e := value[*profile.Session](fn, "profiler", h)
	if e != nil {
		return e
	}
	b, err := s.Collect()
	if err != nil {
		return sessionErr(fn, err)
	}
	*data, *size = (*C.uint8_t)(C.CBytes(b)), C.size_t(len(b))
	return nil
}

func sessionErr(fn string, err error) pjrtErr {
	if err == nil {
		return nil
	}
	if errors.Is(err, profile.ErrState) {
		return errf(engine.CodeFailedPrecondition, fn, "%v", err)
	}
	return fromErr(fn, err)
}
