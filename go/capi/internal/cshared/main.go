// Command cshared builds gojax as a plain PJRT plugin library for trying it
// with JAX without the Python package:
//
//	go build -buildmode=c-shared -o /tmp/gojax_test.so ./go/capi/internal/cshared
package main

import _ "github.com/gojax/gojax/go/capi" // exports GetPjrtApi

func main() {}
