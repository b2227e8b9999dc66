// Package shape holds data-movement kernels: broadcast, reshape, transpose,
// slicing, concatenation, padding, gather and scatter, iota.
package shape
