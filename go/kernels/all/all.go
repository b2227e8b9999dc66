// Package all links every kernel family into a binary; the compiler imports it.
package all

import (
	_ "github.com/gojax/gojax/go/kernels/callback"
	_ "github.com/gojax/gojax/go/kernels/collective"
	_ "github.com/gojax/gojax/go/kernels/elementwise"
	_ "github.com/gojax/gojax/go/kernels/ffi"
	_ "github.com/gojax/gojax/go/kernels/fused"
	_ "github.com/gojax/gojax/go/kernels/linalg"
	_ "github.com/gojax/gojax/go/kernels/reduce"
	_ "github.com/gojax/gojax/go/kernels/shape"
)
