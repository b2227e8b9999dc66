package capi

import (
	"runtime"

	"github.com/gojax/gojax/go/internal/workers"
)

// Inside the plugin, kernels split their work for the CPUs available
// (GOMAXPROCS as Go computed it, or as the user set it) and the process
// keeps one spare P for the threads that enter Go through PJRT calls (see
// package workers for why and what it bought).
func init() { workers.Set(runtime.GOMAXPROCS(0)) }
