"""NumPy <-> gojax: np.asarray views and jax.device_put aliasing."""

from __future__ import annotations

import gc
import sys

import jax
import numpy as np
import pytest

from interop_util import ALL_DTYPES, dtype_id, on_gojax, sample, wait_until


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_asarray_views_gojax_buffer(gojax_device, x64, dtype):
    x = jax.device_put(sample((3, 5), dtype), gojax_device)
    view = np.asarray(x)
    assert view.__array_interface__["data"][0] == x.unsafe_buffer_pointer()
    assert view.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(view, sample((3, 5), dtype))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_device_put_aliases_aligned_host_array(gojax_device, x64, dtype):
    host = sample((4, 16), dtype)
    x = jax.device_put(host, gojax_device)
    assert x.unsafe_buffer_pointer() == host.ctypes.data
    assert x.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(x), host)


@pytest.mark.parametrize("offset", [8, 16, 32])
@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.float64, np.complex128], ids=dtype_id)
def test_device_put_copies_misaligned_host_array(gojax_device, x64, dtype, offset):
    host = sample((4, 16), dtype, offset=offset)
    x = jax.device_put(host, gojax_device)
    assert x.unsafe_buffer_pointer() != host.ctypes.data
    assert x.unsafe_buffer_pointer() % 64 == 0
    np.testing.assert_array_equal(np.asarray(x), host)
    host[...] = 0  # the copy is independent of the source
    assert np.asarray(x).any()


@pytest.mark.parametrize("make", [
    lambda: sample((8, 16), np.float32)[:, ::2],  # strided
    lambda: sample((16, 8), np.float32).T,  # Fortran order
    lambda: sample((8, 16), np.float32)[::-1],  # negative stride
], ids=["strided", "transposed", "reversed"])
def test_device_put_copies_non_contiguous(gojax_device, make):
    host = make()
    x = jax.device_put(host, gojax_device)
    assert x.unsafe_buffer_pointer() != host.__array_interface__["data"][0]
    np.testing.assert_array_equal(np.asarray(x), host)


def test_view_outlives_deleted_array(gojax_device):
    x = on_gojax(np.arange(1 << 16, dtype=np.float32), gojax_device)
    view = np.asarray(x)
    ptr = view.ctypes.data
    x.delete()
    del x
    gc.collect()
    # New allocations must not reuse the still-viewed memory.
    others = [jax.device_put(np.full(1 << 16, 7, np.float32), gojax_device) for _ in range(4)]
    assert all(o.unsafe_buffer_pointer() != ptr for o in others)
    np.testing.assert_array_equal(view, np.arange(1 << 16, dtype=np.float32))


def test_aliased_host_array_kept_alive(gojax_device):
    host = sample((1 << 14,), np.float32)
    base = host.base
    before = sys.getrefcount(base)
    x = jax.device_put(host, gojax_device)
    assert x.unsafe_buffer_pointer() == host.ctypes.data
    del host
    gc.collect()
    # The gojax buffer holds the host array (and so its base) while it lives.
    assert sys.getrefcount(base) >= before
    np.testing.assert_array_equal(np.asarray(x), (np.arange(1 << 14) % 100).astype(np.float32))
    del x
    assert wait_until(lambda: sys.getrefcount(base) == before - 1)
