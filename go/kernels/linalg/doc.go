// Package linalg holds dot_general, convolution, FFT, and the LAPACK-style ops
// and custom calls JAX emits for jnp.linalg on CPU.
package linalg
