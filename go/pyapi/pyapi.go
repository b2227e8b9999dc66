// Package pyapi is the Go surface that gopy binds into gojax's Python
// extension module. It stays small on purpose: it only reports versions and
// statistics, hands out the PJRT API table address and takes configuration.
// Importing go/capi here is what links GetPjrtApi into the extension, so the
// Python module and the PJRT plugin are one shared library (one Go runtime).
package pyapi

import (
	"github.com/gojax/gojax/go/capi"
)

// version is set at link time from pyproject.toml by the build backend
// (-X github.com/gojax/gojax/go/pyapi.version=...).
var version = "dev"

// Version returns gojax's release version.
func Version() string { return version }

// APIPointer returns the address of the PJRT_Api table (what GetPjrtApi
// returns). Python wraps it in a "pjrt_c_api" capsule for JAX.
func APIPointer() uintptr { return capi.APIPointer() }
