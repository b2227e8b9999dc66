// Package cpufeat reports, once at start, which vector instruction sets the
// CPU and the OS support, for kernels that pick an assembly path at run time.
package cpufeat

// AVX2FMA is true when AVX2 and FMA are available and the OS saves the YMM
// registers. It is false under the purego build tag and on other
// architectures, where kernels use their plain-Go code.
var AVX2FMA = detectAVX2FMA()
