// Package elementwise holds kernels for StableHLO's elementwise ops
// (arithmetic, math functions, comparisons, select, clamp, conversions,
// bitcasts, reduce_precision and map) over every element type.
//
// Each op is registered with kernel.Register in init. A lowering resolves
// the element type once and returns a Step that runs a typed loop (Go
// generics instantiated per storage type, so operators compile to direct
// instructions); arrays of 64K elements or more are split with
// ctx.Parallel in chunks of 32K. Steps do not allocate.
//
// How types are computed:
//   - pred, integers, f32, f64, complex<f32>, complex<f64>: natively.
//     Integers wrap around. Sub-byte integers (i2, i4, ui2, ui4) are stored
//     one per byte, computed in 8 bits and re-wrapped: signed ones stay
//     sign-extended, unsigned ones masked. Shifts and bit counts use the
//     logical width.
//   - bf16, f16 and the f8/f6/f4 formats: decoded to f32, computed, rounded
//     back to nearest even (smallfloat.go lists each format's overflow and
//     NaN rules, which follow ml_dtypes). f32 is wide enough that +, -, ×,
//     ÷ and sqrt are then correctly rounded, as XLA's CPU backend does.
//
// Semantics where the spec leaves a choice follow XLA's CPU backend:
// integer x/0 = -1 (all bits set) and x%0 = x, INT_MIN/-1 = INT_MIN and
// INT_MIN%-1 = 0; shifts by the bit width or more give 0 (left, logical) or
// the sign fill (arithmetic); integer power with a negative exponent is 0
// except for bases 1 and -1; float→int convert truncates and saturates, NaN
// → 0; complex→real convert keeps the real part; maximum/minimum propagate
// NaN and order -0 < +0 (lexicographic for complex); compare supports
// FLOAT, TOTALORDER, SIGNED and UNSIGNED (complex: lexicographic).
// Differences: subnormals are not flushed (XLA's CPU backend flushes f32/f64
// subnormals); transcendental functions are at least as accurate as XLA's
// (f32 via float64; f64 pow, sin, cos and tan with double-double argument
// handling), except f32 tanh, which is XLA's own rational function
// evaluated as XLA does and so gives XLA's bits (tanh32.go); reduce_precision with mantissa_bits = 0 maps NaN to Inf, as the
// reference interpreter does.
//
// Every op registers its traits with its lowering (lower.go): arity, in
// place, element-type class and its fused loop (kernel.Traits.Loop, with
// its broadcast-scalar and affine variants), which the compiler's fusion
// passes and the fused kernels (go/kernels/fused) use; the loop and the
// kernel come from one resolver, so an op fuses exactly when its kernel
// accepts it. ConvertLoop serves other kernel families (linalg's element
// conversions); the loops by name in fusion.go serve this package's tests.
//
// Tests: table-driven hand cases (core_test.go, misc_test.go) and a
// differential test (oracle_test.go) against values computed by
// testdata/oracle.py with XLA's CPU backend through jax.lax, and with
// ml_dtypes/NumPy for the narrow float formats.
package elementwise
