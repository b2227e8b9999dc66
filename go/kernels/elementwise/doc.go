// Package elementwise holds kernels for StableHLO's elementwise ops (arithmetic,
// math functions, comparisons, select, clamp, conversions) over every element type.
package elementwise
