// Package shape holds data-movement kernels: broadcast, reshape, transpose,
// slicing, concatenation, padding, gather and scatter, iota, the static forms
// of the dynamic_* ops, and single-process collectives.
//
// Most ops lower to one or a few copyPlans (strided.go): a strided copy with
// dims collapsed at lowering, element-typed inner loops, square tiles for
// transposes, and splitting over ctx.Parallel. Every output element is written
// by exactly one worker, so results never depend on the split. Scatter applies
// updates serially in update order unless unique_indices promises no overlap.
package shape
