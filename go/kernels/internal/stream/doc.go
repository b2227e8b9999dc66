// Package stream holds the memory hints of row-blocked kernels: prefetching
// the next block's lines and writing large results with non-temporal
// stores. Only kernel families use them (go/kernels/fused).
package stream
