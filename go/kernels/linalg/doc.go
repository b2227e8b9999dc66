// Package linalg holds dot_general, convolution, FFT, and the LAPACK-style ops
// and custom calls JAX emits for jnp.linalg on CPU.
//
// Files by job:
//
//   - dot.go: stablehlo.dot_general and legacy stablehlo.dot (validation,
//     compute-type choice, offset tables); gemm.go: the packed, cache-blocked,
//     parallel GEMM for f32/f64; microkernel.go: plain-Go 4×4 micro-kernels;
//     microkernel_amd64.{go,s}: AVX2+FMA assembly kernels swapped in at init
//     on CPUs that have them.
//   - conv.go: stablehlo.convolution as im2col + GEMM (all dimension
//     numbers, padding, dilations, reversal, feature/batch groups).
//   - fft.go: stablehlo.fft (FFT, IFFT, RFFT, IRFFT over 1–3 trailing dims,
//     any length: FFTPACK mixed radix, Bluestein for large prime factors).
//   - cholesky.go, trisolve.go: stablehlo.cholesky and triangular_solve.
//   - lapack.go: custom-call plumbing (target names lapack_<s|d|c|z>*_ffi,
//     backend_config dictionaries, layout checks); lapack_basic.go: potrf,
//     trsm, getrf, geqrf, geqp3, orgqr/ungqr, ormqr/unmqr, gehrd,
//     sytrd/hetrd, gtsv; eigh.go: syevd/heevd; svd.go: gesdd, gesvd;
//     eig.go: geev, gees; gtsv_perturbed.go: tridiagonal_solve_perturbed_ffi
//     (tridiagonal_solve with perturb_singular=True).
//   - householder.go: unblocked LAPACK algorithms written once for real and
//     complex data (scalar.go); schur.go: complex Schur form and
//     eigenvectors; elem.go, batch.go, scratch.go: element conversion,
//     batching and pooled scratch.
//
// Numerics: float types narrower than f32 are widened to f32 and rounded
// once at the end; f32 dots accumulate in f32 and f64 in f64; every output
// element of a dot has a fixed reduction order whatever the thread count.
// The factorizations compute in float64/complex128 and round back.
package linalg
