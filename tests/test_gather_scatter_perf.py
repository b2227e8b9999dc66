"""The gather/scatter family's fast paths (indices read without JAX's
negative-index wrap and unit relabeling, fill-mode gathers folded, row
scatters split by destination, order-insensitive point scatters split by
updates) on gojax against XLA:CPU in the same process. Integer results,
gathers, sets and max/min are exact; float scatter-adds are compared bit
for bit too: gojax keeps XLA:CPU's serial update order per element.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest


def _both(f, *args, gojax_device, cpu_device):
    assert gojax_device.client is not cpu_device.client
    g = jax.jit(f)(*[jax.device_put(a, gojax_device) for a in args])
    c = jax.jit(f)(*[jax.device_put(a, cpu_device) for a in args])
    return jax.tree.map(np.asarray, g), jax.tree.map(np.asarray, c)


def _exact(g, c):
    np.testing.assert_array_equal(np.asarray(g).view(np.uint8), np.asarray(c).view(np.uint8))


def _idx(rng, n, lo, hi, dtype=np.int32):
    return rng.integers(lo, hi, n).astype(dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("mode", [None, "fill", "clip"])
def test_take_wrapped_and_out_of_range(gojax_device, cpu_device, dtype, mode):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(5000).astype(np.float32)
    i = _idx(rng, 300_000, -6000, 6000, dtype)  # negative, wrapped, and past both ends
    if mode is None:
        f = lambda x, i: x[i]  # noqa: E731
    else:
        f = lambda x, i: jnp.take(x, i, mode=mode)  # noqa: E731
    _exact(*_both(f, x, i, gojax_device=gojax_device, cpu_device=cpu_device))


@pytest.mark.parametrize("mode", ["fill", "clip"])
def test_take_rows_and_take_along_axis(gojax_device, cpu_device, mode):
    rng = np.random.default_rng(2)
    t = rng.standard_normal((1000, 24)).astype(np.float32)
    i = _idx(rng, 20_000, -1100, 1100)
    _exact(*_both(lambda t, i: jnp.take(t, i, axis=0, mode=mode), t, i, gojax_device=gojax_device, cpu_device=cpu_device))
    x = rng.standard_normal((64, 300)).astype(np.float32)
    j = _idx(rng, 64 * 300, -330, 330).reshape(64, 300)
    _exact(*_both(lambda x, j: jnp.take_along_axis(x, j, axis=1, mode=mode), x, j,
                  gojax_device=gojax_device, cpu_device=cpu_device))
    _exact(*_both(lambda x, j: jnp.take_along_axis(x, j.T[:10].T, axis=1), x, j,
                  gojax_device=gojax_device, cpu_device=cpu_device))


def test_scatter_add_rows_serial_order(gojax_device, cpu_device):
    rng = np.random.default_rng(3)
    t = rng.standard_normal((500, 64)).astype(np.float32)
    # Mixed magnitudes: the sums depend on the order of the updates.
    u = (rng.standard_normal((20_000, 64)) * 10.0 ** rng.integers(-6, 7, (20_000, 1))).astype(np.float32)
    i = _idx(rng, 20_000, -520, 520)
    _exact(*_both(lambda t, u, i: t.at[i].add(u), t, u, i, gojax_device=gojax_device, cpu_device=cpu_device))
    _exact(*_both(lambda t, u, i: t.at[i].set(u), t, u, i, gojax_device=gojax_device, cpu_device=cpu_device))
    _exact(*_both(lambda t, u, i: t.at[i].max(u), t, u, i, gojax_device=gojax_device, cpu_device=cpu_device))


def test_point_scatters(gojax_device, cpu_device):
    rng = np.random.default_rng(4)
    n = 400_000
    v = rng.standard_normal(n).astype(np.float32)
    v[rng.integers(0, n, 50)] = np.nan
    v[rng.integers(0, n, 50)] = -0.0
    v[rng.integers(0, n, 50)] = 0.0
    i = _idx(rng, n, -1100, 1100)
    s = _idx(rng, n, 0, 1000)
    ii = rng.integers(-(2**31), 2**31 - 1, n).astype(np.int32)
    for f in [
        lambda v, i, s, ii: jnp.zeros(1000, v.dtype).at[i].add(v),  # serial order kept
        lambda v, i, s, ii: jnp.zeros(1000, v.dtype).at[i].set(v),
        lambda v, i, s, ii: jax.ops.segment_max(v, s, num_segments=1000),
        lambda v, i, s, ii: jax.ops.segment_sum(v, s, num_segments=1000),
        lambda v, i, s, ii: jnp.bincount(jnp.abs(i), length=1000),
        lambda v, i, s, ii: jax.ops.segment_sum(ii, s, num_segments=1000),
        lambda v, i, s, ii: jax.ops.segment_max(ii, s, num_segments=1000),
        lambda v, i, s, ii: jnp.zeros(1000, jnp.int32).at[i].min(ii),
        lambda v, i, s, ii: jnp.histogram(v, bins=37, range=(-3.0, 3.0))[0],
    ]:
        _exact(*_both(f, v, i, s, ii, gojax_device=gojax_device, cpu_device=cpu_device))
    # XLA:CPU's float min returns its NaNs with the sign bit set (gojax keeps
    # the update's NaN): NaNs compare equal here whatever their sign.
    g, c = _both(lambda v, s: jax.ops.segment_min(v, s, num_segments=1000), v, s,
                 gojax_device=gojax_device, cpu_device=cpu_device)
    np.testing.assert_array_equal(g, c)
    _exact(np.signbit(g[~np.isnan(g)]), np.signbit(c[~np.isnan(c)]))


def test_scatter_set_permutation(gojax_device, cpu_device):
    rng = np.random.default_rng(5)
    n = 200_000
    x = rng.standard_normal(n).astype(np.float32)
    v = rng.standard_normal(n).astype(np.float32)
    p = rng.permutation(n).astype(np.int32) - n // 2  # half negative: wrapped
    _exact(*_both(lambda x, v, p: x.at[p].set(v), x, v, p, gojax_device=gojax_device, cpu_device=cpu_device))


def test_embedding_grad(gojax_device, cpu_device):
    rng = np.random.default_rng(6)
    table = (rng.standard_normal((3000, 32)) * 0.1).astype(np.float32)
    ids = _idx(rng, 4 * 256, 0, 3000).reshape(4, 256)
    w = rng.standard_normal((4, 256, 32)).astype(np.float32)

    def f(t, ids, w):
        return jax.grad(lambda t: jnp.sum(jnp.tanh(t[ids]) * w))(t)

    g, c = _both(f, table, ids, w, gojax_device=gojax_device, cpu_device=cpu_device)
    # tanh is not correctly rounded on either side: within a few ulps of
    # the largest row sum, not bit for bit.
    np.testing.assert_allclose(g, c, rtol=0, atol=1e-5 * np.abs(c).max())
