package linalg

import (
	"runtime"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func lookupForBench(op *ir.Op) (kernel.Lower, bool) { return kernel.Lookup(op.Name) }

// benchCtx uses one worker per CPU, as the compiler's pool would.
func benchCtx() kernel.Context { return fakeCtx{runtime.GOMAXPROCS(0)} }
