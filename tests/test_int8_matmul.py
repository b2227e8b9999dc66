"""8-bit integer matmuls (dot_general of s8/u8 operands into wider integers)
on gojax against numpy's int64 arithmetic, wrapped to the result type.

These take gojax's int32-accumulating 8-bit GEMM (AVX512_VNNI, AVX2 or plain
Go, whichever GOJAX_VECTOR and the CPU allow): random and extreme values
(every element -128, 127 or 255, where the sums and the u8/s8 offset
corrections are largest), odd sizes that leave edge tiles and k not a
multiple of four, transposed and batched operands.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

SHAPES = [(1, 1, 1), (3, 5, 2), (29, 515, 67), (64, 128, 48), (131, 300, 517)]


def _values(rng, dtype, shape, pattern):
    info = np.iinfo(dtype)
    if pattern == "random":
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    if pattern == "alternate":
        return np.where(np.arange(np.prod(shape)).reshape(shape) % 2 == 0, info.min, info.max).astype(dtype)
    return np.full(shape, info.min if pattern == "min" else info.max, dtype)


def _wrap(x, dtype):
    # numpy's int64 sums wrapped to the result type (two's complement).
    return x.astype(np.int64).astype(dtype)


@pytest.mark.parametrize("pattern", ["random", "min", "max", "alternate"])
@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize(
    "lt,rt,ot",
    [(np.int8, np.int8, np.int32), (np.uint8, np.int8, np.int32), (np.int8, np.uint8, np.int32),
     (np.uint8, np.uint8, np.uint32), (np.int8, np.int8, np.int16)],
)
def test_int8_matmul_matches_numpy_int64(gojax_device, lt, rt, ot, m, k, n, pattern):
    rng = np.random.default_rng(m * 1000 + k + n)
    a, b = _values(rng, lt, (m, k), pattern), _values(rng, rt, (k, n), pattern)
    f = jax.jit(lambda a, b: jnp.matmul(a, b, preferred_element_type=ot))
    got = np.asarray(f(*jax.device_put((a, b), gojax_device)))
    want = _wrap(a.astype(np.int64) @ b.astype(np.int64), ot)
    assert got.dtype == ot
    np.testing.assert_array_equal(got, want)


def test_int8_batched_and_transposed_matmuls(gojax_device):
    rng = np.random.default_rng(16)
    a = rng.integers(-128, 128, (3, 70, 261), dtype=np.int8)
    b = rng.integers(-128, 128, (3, 261, 45), dtype=np.int8)
    at = np.ascontiguousarray(np.swapaxes(a, 1, 2))
    bt = np.ascontiguousarray(np.swapaxes(b, 1, 2))
    want = np.einsum("bik,bkj->bij", a.astype(np.int64), b.astype(np.int64)).astype(np.int32)

    def dot(spec, x, y):
        f = jax.jit(lambda x, y: jnp.einsum(spec, x, y, preferred_element_type=jnp.int32))
        out = f(*jax.device_put((x, y), gojax_device))
        assert out.devices() == {gojax_device}
        return np.asarray(out)

    np.testing.assert_array_equal(dot("bik,bkj->bij", a, b), want)
    np.testing.assert_array_equal(dot("bki,bkj->bij", at, b), want)
    np.testing.assert_array_equal(dot("bik,bjk->bij", a, bt), want)
    np.testing.assert_array_equal(dot("bki,bjk->bij", at, bt), want)
