package capi

/*
#include "gojax_capi.h"
*/
import "C"

import "github.com/gojax/gojax/go/internal/cpufeat"

// With the AMX tiles granted, threads entering Go from C get an alternate
// signal stack that holds a tile-sized signal frame (capi.c, "signal stacks
// under AMX").
func init() {
	if cpufeat.AMXBF16 {
		C.gojax_tiles_granted()
	}
}

// widenSigstack gives the calling thread an alternate signal stack large
// enough for a frame with tile state: 1 replaced a small one, 0 none was
// needed, -1 failed.
func widenSigstack() int { return int(C.gojax_widen_sigstack()) }
