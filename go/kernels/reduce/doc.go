// Package reduce holds reductions and related ops: reduce, reduce_window,
// select_and_scatter, sort, random bit generation.
package reduce
