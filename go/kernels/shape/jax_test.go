package shape

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// jaxCase is one gather or scatter computed by JAX on XLA:CPU.
type jaxCase struct {
	Kind       string    `json:"kind"`
	Operand    []float32 `json:"operand"`
	OpShape    []int64   `json:"op_shape"`
	Indices    []int32   `json:"indices"`
	IdxShape   []int64   `json:"idx_shape"`
	Updates    []float32 `json:"updates"`
	UpdShape   []int64   `json:"upd_shape"`
	Window     []int64   `json:"window"`
	Collapsed  []int64   `json:"collapsed"`
	OpBatch    []int64   `json:"op_batch"`
	IdxBatch   []int64   `json:"idx_batch"`
	StartMap   []int64   `json:"start_map"`
	SliceSizes []int64   `json:"slice_sizes"`
	Out        []float32 `json:"out"`
	OutShape   []int64   `json:"out_shape"`
}

// TestGatherScatterMatchJax runs gathers and scatters with batching dims and
// out-of-range indices through JAX (XLA:CPU) and compares bit for bit.
func TestGatherScatterMatchJax(t *testing.T) {
	script := `
import json, numpy as np, jax, jax.numpy as jnp
from jax import lax
rng = np.random.default_rng(0)
out = []
def gather(op_shape, idx_shape, dn, sizes, lo, hi):
  x = rng.integers(-9, 9, op_shape).astype(np.float32)
  idx = rng.integers(lo, hi, idx_shape).astype(np.int32)
  r = lax.gather(x, idx, dn, sizes, mode=lax.GatherScatterMode.CLIP)
  out.append(dict(kind="gather", operand=x.ravel().tolist(), op_shape=list(op_shape), indices=idx.ravel().tolist(),
    idx_shape=list(idx_shape), window=list(dn.offset_dims), collapsed=list(dn.collapsed_slice_dims),
    op_batch=list(dn.operand_batching_dims), idx_batch=list(dn.start_indices_batching_dims),
    start_map=list(dn.start_index_map), slice_sizes=list(sizes), out=np.asarray(r).ravel().tolist(), out_shape=list(r.shape)))
def scatter(kind, op_shape, idx_shape, upd_shape, dn, lo, hi):
  x = rng.integers(-9, 9, op_shape).astype(np.float32)
  idx = rng.integers(lo, hi, idx_shape).astype(np.int32)
  u = rng.integers(-9, 9, upd_shape).astype(np.float32)
  f = {"add": lax.scatter_add, "max": lax.scatter_max, "set": lax.scatter}[kind]
  r = f(x, idx, u, dn, mode=lax.GatherScatterMode.FILL_OR_DROP)
  out.append(dict(kind=kind, operand=x.ravel().tolist(), op_shape=list(op_shape), indices=idx.ravel().tolist(),
    idx_shape=list(idx_shape), updates=u.ravel().tolist(), upd_shape=list(upd_shape), window=list(dn.update_window_dims),
    collapsed=list(dn.inserted_window_dims), op_batch=list(dn.operand_batching_dims),
    idx_batch=list(dn.scatter_indices_batching_dims), start_map=list(dn.scatter_dims_to_operand_dims),
    out=np.asarray(r).ravel().tolist(), out_shape=list(r.shape)))
G = lax.GatherDimensionNumbers
S = lax.ScatterDimensionNumbers
gather((7, 5), (4, 1), G(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)), (1, 5), -3, 10)
gather((6, 5, 4), (3, 2), G(offset_dims=(1, 2), collapsed_slice_dims=(1,), start_index_map=(1, 0)), (2, 1, 3), -2, 7)
gather((3, 6, 4), (3, 5, 1), G(offset_dims=(2,), collapsed_slice_dims=(1,), start_index_map=(1,), operand_batching_dims=(0,), start_indices_batching_dims=(0,)), (1, 1, 4), -2, 8)
gather((2, 3, 6, 4), (3, 2, 5, 1), G(offset_dims=(3,), collapsed_slice_dims=(2,), start_index_map=(2,), operand_batching_dims=(0, 1), start_indices_batching_dims=(1, 0)), (1, 1, 1, 4), -2, 8)
for k in ["add", "max", "set"]:
  scatter(k, (7, 5), (6, 1), (6, 5), S(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)), -2, 9)
  scatter(k, (6, 5), (4, 1), (4, 3, 5), S(update_window_dims=(1, 2), inserted_window_dims=(), scatter_dims_to_operand_dims=(0,)), -2, 6)
  scatter(k, (3, 6, 4), (3, 5, 1), (3, 5, 4), S(update_window_dims=(2,), inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,), operand_batching_dims=(0,), scatter_indices_batching_dims=(0,)), -2, 8)
print(json.dumps(out))
`
	var cases []jaxCase
	runPython(t, script, &cases)
	require.Len(t, cases, 13)
	for i, c := range cases {
		t.Run(fmt.Sprint(i, c.Kind), func(t *testing.T) {
			ivd := ir.IntAttr{Value: int64(len(c.IdxShape) - 1)}
			var op *ir.Op
			var ins [][]byte
			if c.Kind == "gather" {
				op = mkOp("stablehlo.gather", []ir.Type{ir.Tensor(ir.F32, c.OpShape...), ir.Tensor(ir.S32, c.IdxShape...)},
					[]ir.Type{ir.Tensor(ir.F32, c.OutShape...)}, ir.Attrs{
						"offset_dims": i64a(c.Window...), "collapsed_slice_dims": i64a(c.Collapsed...),
						"operand_batching_dims": i64a(c.OpBatch...), "start_indices_batching_dims": i64a(c.IdxBatch...),
						"start_index_map": i64a(c.StartMap...), "index_vector_dim": ivd, "slice_sizes": i64a(c.SliceSizes...)})
				ins = [][]byte{f32s(c.Operand...), i32s(c.Indices...)}
			} else {
				body := map[string]*ir.Region{"add": binRegion("stablehlo.add", ir.F32), "max": binRegion("stablehlo.maximum", ir.F32),
					"set": replaceRegion(ir.F32)}[c.Kind]
				op = mkOpR("stablehlo.scatter", []ir.Type{ir.Tensor(ir.F32, c.OpShape...), ir.Tensor(ir.S32, c.IdxShape...), ir.Tensor(ir.F32, c.UpdShape...)},
					[]ir.Type{ir.Tensor(ir.F32, c.OutShape...)}, ir.Attrs{
						"update_window_dims": i64a(c.Window...), "inserted_window_dims": i64a(c.Collapsed...),
						"input_batching_dims": i64a(c.OpBatch...), "scatter_indices_batching_dims": i64a(c.IdxBatch...),
						"scatter_dims_to_operand_dims": i64a(c.StartMap...), "index_vector_dim": ivd}, body)
				ins = [][]byte{f32s(c.Operand...), i32s(c.Indices...), f32s(c.Updates...)}
			}
			ctx := &fakeCtx{chunk: 2, regions: map[*ir.Region]kernel.Callable{}}
			got := runOp(t, ctx, op, ins...)
			require.Equal(t, c.Out, toF32(got[0]))
		})
	}
}
