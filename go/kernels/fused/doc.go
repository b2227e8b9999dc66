// Package fused is the kernel family of the compiler's fusion ops. The
// compiler's fusion passes decide what to fuse and wrap the members in an
// op whose region holds them (gojax.fusion for elementwise trees,
// gojax.rowfusion for row reductions with their elementwise neighbours);
// this package lowers such an op into one blocked loop, taking each
// member's loop from the kernel registry (kernel.Traits.Loop), so a fused
// op computes every element as its unfused kernel would.
package fused

// Op and RowOp are the names of the fusion ops.
const (
	Op    = "gojax.fusion"
	RowOp = "gojax.rowfusion"
)
