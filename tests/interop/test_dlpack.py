"""DLPack <-> gojax: np.from_dlpack, jax.dlpack.from_dlpack and gojax.from_dlpack."""

from __future__ import annotations

import gc
import os
import sys

import jax
import ml_dtypes
import numpy as np
import pytest

from interop_util import ALL_DTYPES, DLPackProducer, dtype_id, on_gojax, sample, wait_until
from gojax_testutil import check_python

NUMPY_DLPACK_DTYPES = [d for d in ALL_DTYPES if d is not ml_dtypes.bfloat16]


@pytest.mark.parametrize("dtype", NUMPY_DLPACK_DTYPES, ids=dtype_id)
def test_np_from_dlpack_shares_gojax_buffer(gojax_device, x64, dtype):
    x = jax.device_put(sample((3, 7), dtype), gojax_device)
    assert x.__dlpack_device__()[0] == 1  # kDLCPU
    view = np.from_dlpack(x)
    assert view.__array_interface__["data"][0] == x.unsafe_buffer_pointer()
    np.testing.assert_array_equal(view, sample((3, 7), dtype))


def test_np_from_dlpack_rejects_bfloat16(gojax_device):
    # NumPy's DLPack import knows no bfloat16; np.asarray (or gojax.from_dlpack
    # on the consumer side) is the zero-copy route for it.
    x = jax.device_put(sample((4,), ml_dtypes.bfloat16), gojax_device)
    with pytest.raises(BufferError):
        np.from_dlpack(x)
    assert np.asarray(x).ctypes.data == x.unsafe_buffer_pointer()


@pytest.mark.parametrize("dtype", NUMPY_DLPACK_DTYPES, ids=dtype_id)
def test_jax_from_dlpack_numpy_onto_gojax(gojax_device, x64, dtype):
    host = sample((4, 16), dtype)
    x = jax.dlpack.from_dlpack(host, device=gojax_device)
    assert x.devices() == {gojax_device}
    assert x.unsafe_buffer_pointer() == host.ctypes.data
    np.testing.assert_array_equal(np.asarray(x), host)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_gojax_from_dlpack_zero_copy(gojax_device, cpu_device, interop, x64, dtype):
    host = sample((4, 16), dtype)
    # bfloat16 has no NumPy DLPack export; an XLA CPU array is the producer.
    src = jax.device_put(host, cpu_device) if dtype is ml_dtypes.bfloat16 else host
    ptr = src.unsafe_buffer_pointer() if isinstance(src, jax.Array) else host.ctypes.data
    x = interop.from_dlpack(src)
    assert x.devices() == {gojax_device}
    assert x.dtype == np.dtype(dtype)
    assert x.unsafe_buffer_pointer() == ptr
    np.testing.assert_array_equal(np.asarray(x), host)


@pytest.mark.parametrize("make", [
    lambda: sample((8, 16), np.float32)[:, 1::2],
    lambda: sample((16, 8), np.float64).T,
    lambda: sample((4, 16), np.float32, offset=4),
    lambda: sample((4, 16), np.int16, offset=32),
], ids=["strided", "transposed", "misaligned4", "misaligned32"])
def test_gojax_from_dlpack_copies_when_it_must(gojax_device, interop, x64, make):
    src = make()
    x = interop.from_dlpack(src)
    assert x.devices() == {gojax_device}
    assert x.unsafe_buffer_pointer() != src.__array_interface__["data"][0]
    assert x.unsafe_buffer_pointer() % 64 == 0
    np.testing.assert_array_equal(np.asarray(x), src)


def test_gojax_from_dlpack_gojax_to_gojax(gojax_device, interop):
    x = jax.device_put(sample((32,), np.float32), gojax_device)
    y = interop.from_dlpack(x)
    assert y.unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
    x.delete()
    del x
    gc.collect()
    np.testing.assert_array_equal(np.asarray(y), sample((32,), np.float32))


def test_gojax_from_dlpack_bad_input(interop, cpu_device):
    with pytest.raises(TypeError, match="no __dlpack__"):
        interop.from_dlpack([1, 2, 3])
    with pytest.raises(ValueError, match="not a gojax device"):
        interop.from_dlpack(np.zeros(4, np.float32), device=cpu_device)


def test_jax_to_dlpack_lands_on_xla_cpu_without_device(gojax_device, cpu_device, interop):
    # What JAX lacks: kDLCPU always maps to XLA's "cpu" backend.
    x = jax.device_put(sample((64,), np.float32), gojax_device)
    assert jax.dlpack.from_dlpack(x).devices() == {cpu_device}
    assert interop.from_dlpack(x).devices() == {gojax_device}


def test_gojax_from_dlpack_without_xla_cpu_backend():
    out = check_python("""
        import jax, numpy as np
        from gojax import interop
        from interop_util import sample
        host = sample((4, 16), np.float32)
        try:
            jax.dlpack.from_dlpack(host, device=jax.devices()[0])
        except RuntimeError as e:
            print("jax:", "Unknown backend cpu" in str(e))
        x = interop.from_dlpack(host)
        print("gojax:", x.unsafe_buffer_pointer() == host.ctypes.data)
    """, env={"JAX_PLATFORMS": "gojax", "PYTHONPATH": os.path.dirname(os.path.abspath(__file__))})
    assert "jax: True" in out
    assert "gojax: True" in out


@pytest.mark.parametrize("first", ["producer", "consumer"])
def test_dlpack_lifetimes(gojax_device, interop, first):
    host = sample((1 << 14,), np.float32)
    base = host.base
    before = sys.getrefcount(base)
    x = interop.from_dlpack(host)
    assert x.unsafe_buffer_pointer() == host.ctypes.data
    expect = (np.arange(1 << 14) % 100).astype(np.float32)
    if first == "producer":
        del host
        gc.collect()
        np.testing.assert_array_equal(np.asarray(x), expect)
        del x
        assert wait_until(lambda: sys.getrefcount(base) == before - 1)
    else:
        del x
        gc.collect()
        np.testing.assert_array_equal(host, expect)
        assert wait_until(lambda: sys.getrefcount(base) == before)


@pytest.mark.parametrize("first", ["buffer", "consumer"])
def test_np_from_dlpack_lifetimes(gojax_device, first):
    x = on_gojax(np.arange(1 << 16, dtype=np.int32), gojax_device)
    view = np.from_dlpack(x)
    assert view.ctypes.data == x.unsafe_buffer_pointer()
    if first == "buffer":
        x.delete()
        del x
        gc.collect()
        junk = [jax.device_put(np.full(1 << 16, -1, np.int32), gojax_device) for _ in range(4)]
        assert all(j.unsafe_buffer_pointer() != view.ctypes.data for j in junk)
        np.testing.assert_array_equal(view, np.arange(1 << 16, dtype=np.int32))
    else:
        del view
        gc.collect()
        np.testing.assert_array_equal(np.asarray(x), np.arange(1 << 16, dtype=np.int32))
        x.delete()  # no external reference left: deleting frees the buffer


# ---------------------------------------------- a DLPack producer (torch-like) ---


@pytest.mark.parametrize("versioned", [True, False], ids=["v1", "legacy"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_gojax_from_dlpack_producer_dtypes(gojax_device, interop, x64, dtype, versioned):
    host = sample((3, 16), dtype)
    prod = DLPackProducer(host, versioned=versioned)
    x = interop.from_dlpack(prod)
    assert x.dtype == np.dtype(dtype)
    assert x.devices() == {gojax_device}
    assert x.unsafe_buffer_pointer() == host.ctypes.data
    np.testing.assert_array_equal(np.asarray(x), host)
    assert prod.deleted == 0
    del x
    # The consumer's death runs the producer's deleter exactly once.
    assert wait_until(lambda: prod.deleted == 1)
    assert prod.live == 0


def test_gojax_from_dlpack_one_export_per_import(gojax_device, interop):
    prod = DLPackProducer(sample((64,), ml_dtypes.bfloat16))
    x = interop.from_dlpack(prod)
    assert prod.exported == 1
    assert x.unsafe_buffer_pointer() == prod.host.ctypes.data


def test_gojax_from_dlpack_numpy_producer_lifetime(gojax_device, interop):
    # NumPy arrays export versioned capsules; the import must hold the array.
    host = sample((1 << 10,), np.float16)
    base = host.base
    before = sys.getrefcount(base)
    x = interop.from_dlpack(host)
    assert x.unsafe_buffer_pointer() == host.ctypes.data
    del host
    gc.collect()
    assert sys.getrefcount(base) >= before
    del x
    assert wait_until(lambda: sys.getrefcount(base) == before - 1)


@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.float32], ids=dtype_id)
def test_gojax_from_dlpack_producer_strided_copies(gojax_device, interop, dtype):
    host = sample((8, 16), dtype)[:, ::2]
    prod = DLPackProducer(host)
    x = interop.from_dlpack(prod)
    assert x.unsafe_buffer_pointer() != host.__array_interface__["data"][0]
    np.testing.assert_array_equal(np.asarray(x), host)
    del x
    assert wait_until(lambda: prod.deleted == 1)


@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.int32], ids=dtype_id)
def test_gojax_from_dlpack_producer_dies_first(gojax_device, interop, dtype):
    host = sample((1 << 12,), dtype)
    expect = np.array(host, copy=True)
    prod = DLPackProducer(host)
    x = interop.from_dlpack(prod)
    counts = prod.counts
    del host, prod
    gc.collect()
    np.testing.assert_array_equal(np.asarray(x), expect)
    assert counts["live"] == 1
    del x
    assert wait_until(lambda: counts["live"] == 0 and counts["deleted"] == 1)


def test_gojax_from_dlpack_unconsumed_capsule_deleted(interop):
    prod = DLPackProducer(sample((8,), np.float32))
    cap = prod.__dlpack__(max_version=(1, 0))
    del cap
    gc.collect()
    assert prod.deleted == 1


def test_gojax_from_dlpack_readonly_producer(gojax_device, interop):
    prod = DLPackProducer(sample((32,), ml_dtypes.bfloat16), readonly=True)
    view = interop._dlpack_view(prod)
    assert not view.flags.writeable
    x = interop.from_dlpack(prod)
    assert x.unsafe_buffer_pointer() == prod.host.ctypes.data
