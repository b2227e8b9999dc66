"""Ops behind the broad suite's searchsorted, take_along_axis, integer
max/min, integer floor division and scatter-add rows, on gojax against
XLA:CPU in the same process, exactly (every value here is computed exactly
by both: comparisons, selections, integer arithmetic and sums of small
integers in f32).
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


def _specials(rng, n):
    # Total order: NaNs of both signs, infinities, signed zeros, subnormals, ties.
    pool = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1.5, -1.5, 3.0], np.float32)
    x = rng.standard_normal(n).astype(np.float32)
    x[rng.integers(0, n, n // 4)] = rng.choice(pool, n // 4)
    return x


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("n_sorted", [1, 7, 4096])
def test_searchsorted_matches_xla(gojax_device, cpu_device, side, n_sorted):
    rng = np.random.default_rng(n_sorted)
    s = np.sort(_specials(rng, n_sorted))
    q = _specials(rng, 3001)
    g, c = _both(lambda s, q: jnp.searchsorted(s, q, side=side), s, q, gojax_device=gojax_device, cpu_device=cpu_device)
    np.testing.assert_array_equal(g, c)
    plain = ~np.isnan(q) & (q != 0)  # numpy orders -0 and +0 as equal, JAX's total order does not
    if not (np.isnan(s).any() or (s == 0).any()):
        np.testing.assert_array_equal(g[plain], np.searchsorted(s, q[plain], side=side))


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int8, np.uint16])
def test_floor_divide_by_powers_of_two(gojax_device, cpu_device, dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(1)
    x = rng.integers(info.min, info.max, 2053, dtype=dtype, endpoint=True)
    x[:4] = [info.min, info.max, 0, info.min + 1 if info.min else 1]
    for d in [1, 2, 4, 64]:
        g, c = _both(lambda x: (x // d, lax_div(x, d)), x, gojax_device=gojax_device, cpu_device=cpu_device)
        np.testing.assert_array_equal(g[0], c[0], err_msg=f"// {d}")
        np.testing.assert_array_equal(g[1], c[1], err_msg=f"lax.div {d}")


def lax_div(x, d):
    return jax.lax.div(x, jnp.full_like(x, d))


def test_take_along_axis_fill_out_of_bounds(gojax_device, cpu_device):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((37, 300)).astype(np.float32)
    i = rng.integers(-350, 350, (37, 300)).astype(np.int32)
    for mode in [None, "fill", "clip"]:
        g, c = _both(lambda x, i: jnp.take_along_axis(x, i, axis=1, mode=mode), x, i,
                     gojax_device=gojax_device, cpu_device=cpu_device)
        np.testing.assert_array_equal(g, c, err_msg=str(mode))


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint16, np.uint8])
def test_integer_max_min_reductions(gojax_device, cpu_device, dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(3)
    x = rng.integers(info.min, info.max, (301, 67), dtype=dtype, endpoint=True)
    for axis in [0, 1, None]:
        g, c = _both(lambda x: (x.max(axis=axis), x.min(axis=axis)), x, gojax_device=gojax_device, cpu_device=cpu_device)
        np.testing.assert_array_equal(g[0], c[0])
        np.testing.assert_array_equal(g[1], c[1])
        np.testing.assert_array_equal(g[0], x.max(axis=axis))


def test_bool_and_or_xor_odd_lengths(gojax_device, cpu_device):
    rng = np.random.default_rng(4)
    for n in [1, 7, 9, 1001]:
        a, b = rng.integers(0, 2, n).astype(bool), rng.integers(0, 2, n).astype(bool)
        g, c = _both(lambda a, b: (a & b, a | b, a ^ b), a, b, gojax_device=gojax_device, cpu_device=cpu_device)
        for x, y in zip(g, c):
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("cols", [64, 7])
def test_scatter_add_rows_repeated_indices(gojax_device, cpu_device, cols):
    rng = np.random.default_rng(5)
    base = rng.integers(-8, 8, (100, cols)).astype(np.float32)
    upd = rng.integers(-8, 8, (1000, cols)).astype(np.float32)
    idx = rng.integers(-120, 120, 1000).astype(np.int32)  # repeats; negative and out of range
    g, c = _both(lambda b, i, u: b.at[i].add(u), base, idx, upd, gojax_device=gojax_device, cpu_device=cpu_device)
    np.testing.assert_array_equal(g, c)
