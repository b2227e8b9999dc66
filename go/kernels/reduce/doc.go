// Package reduce holds reductions and related ops: reduce, reduce_window,
// select_and_scatter, sort, top_k, rng_bit_generator, rng and batch_norm_*.
//
// Regions are pattern-matched at lowering: a body that is one add, multiply,
// maximum, minimum, and, or, xor of its two arguments (reduce, reduce_window,
// select_and_scatter's scatter), JAX's argmax/argmin body, a single-compare
// sort comparator (optionally on JAX's -0/NaN canonicalized keys) and a
// single-compare select run natively; anything else is called through
// ctx.CompileRegion. Native and region paths fold in the same order, and float
// sums use a fixed pairwise/blocked tree, so results are deterministic for
// any thread count.
package reduce
