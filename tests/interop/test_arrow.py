"""Arrow <-> gojax through the Arrow C Data Interface."""

from __future__ import annotations

import gc

import jax
import ml_dtypes
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import gojax
from gojax_testutil import check_python
from interop_util import ARROW_ZERO_COPY_DTYPES, aligned_empty, dtype_id, on_gojax, sample, wait_until


def values_address(arr: pa.Array) -> int:
    """Address of element 0 of a primitive or fixed-shape-tensor array."""
    if isinstance(arr.type, pa.BaseExtensionType):
        arr = arr.storage
    if pa.types.is_fixed_size_list(arr.type):
        return values_address(arr.values) + arr.offset * arr.type.list_size * arr.type.value_type.bit_width // 8
    return arr.buffers()[1].address + arr.offset * arr.type.bit_width // 8


@pytest.fixture(autouse=True)
def no_leaked_exports(interop):
    before = interop.live_arrow_exports(), interop.live_arrow_imports()
    yield
    assert wait_until(lambda: interop.live_arrow_exports() == before[0]), "an Arrow export was never released"
    assert wait_until(lambda: interop.live_arrow_imports() == before[1]), "an Arrow import was never released"


# ------------------------------------------------------------ to_arrow ---


@pytest.mark.parametrize("dtype", ARROW_ZERO_COPY_DTYPES, ids=dtype_id)
def test_to_arrow_1d_zero_copy(gojax_device, interop, x64, dtype):
    x = jax.device_put(sample((37,), dtype), gojax_device)
    a = interop.to_arrow(x)
    assert isinstance(a, pa.Array)
    assert a.type == pa.from_numpy_dtype(np.dtype(dtype))
    assert a.null_count == 0
    assert values_address(a) == x.unsafe_buffer_pointer()
    np.testing.assert_array_equal(a.to_numpy(), sample((37,), dtype))


@pytest.mark.parametrize("dtype", ARROW_ZERO_COPY_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (3, 1, 1, 2), (0, 4), (4, 0)])
def test_to_arrow_nd_fixed_shape_tensor(gojax_device, interop, x64, dtype, shape):
    host = sample(shape, dtype)
    x = jax.device_put(host, gojax_device)
    a = interop.to_arrow(x)
    assert isinstance(a, pa.FixedShapeTensorArray)
    assert a.type == pa.fixed_shape_tensor(pa.from_numpy_dtype(np.dtype(dtype)), list(shape[1:]))
    assert len(a) == shape[0]
    if host.size:
        assert values_address(a) == x.unsafe_buffer_pointer()
    np.testing.assert_array_equal(a.to_numpy_ndarray(), host)


def test_to_arrow_0d(gojax_device, interop):
    x = jax.device_put(np.float32(2.5), gojax_device)
    a = interop.to_arrow(x)
    assert a.to_pylist() == [2.5]
    assert values_address(a) == x.unsafe_buffer_pointer()


def test_to_arrow_slices_share_memory(gojax_device, interop):
    x = jax.device_put(np.arange(100, dtype=np.int32).reshape(20, 5), gojax_device)
    a = interop.to_arrow(x)
    rows = a[3:7]
    assert values_address(rows) == x.unsafe_buffer_pointer() + 3 * 5 * 4
    np.testing.assert_array_equal(rows.to_numpy_ndarray(), np.arange(15, 35).reshape(4, 5))


@pytest.mark.parametrize("first", ["buffer", "consumer"])
def test_to_arrow_lifetimes(gojax_device, interop, first):
    n = 1 << 16
    x = on_gojax(np.arange(n, dtype=np.float32), gojax_device)
    ptr = x.unsafe_buffer_pointer()
    base_live = interop.live_arrow_exports()
    a = interop.to_arrow(x)
    assert interop.live_arrow_exports() == base_live + 1
    sliced = a.slice(10, 5)  # shares the import; keeps the export alive too
    in_use = gojax.stats().bytes_in_use
    if first == "buffer":
        x.delete()
        del x
        gc.collect()
        assert in_use - gojax.stats().bytes_in_use < 4 * n  # Arrow still pins the buffer
        junk = [jax.device_put(np.full(n, -1, np.float32), gojax_device) for _ in range(4)]
        assert all(j.unsafe_buffer_pointer() != ptr for j in junk)
        del junk
        np.testing.assert_array_equal(a.to_numpy(), np.arange(n, dtype=np.float32))
        del a
        gc.collect()
        assert interop.live_arrow_exports() == base_live + 1
        assert sliced.to_pylist() == [10.0, 11.0, 12.0, 13.0, 14.0]
        del sliced
        assert wait_until(lambda: interop.live_arrow_exports() == base_live)
        assert wait_until(lambda: gojax.stats().bytes_in_use <= in_use - 4 * n)
    else:
        del a, sliced
        assert wait_until(lambda: interop.live_arrow_exports() == base_live)
        np.testing.assert_array_equal(np.asarray(x), np.arange(n, dtype=np.float32))
        x.delete()
        assert wait_until(lambda: gojax.stats().bytes_in_use <= in_use - 4 * n)


def test_to_arrow_survives_arrow_operations(gojax_device, interop):
    x = jax.device_put(np.arange(10, dtype=np.int32), gojax_device)
    table = pa.table({"v": interop.to_arrow(x)})
    del x
    gc.collect()
    assert table.column("v").to_pylist() == list(range(10))
    assert pc.sum(table.column("v")).as_py() == 45


@pytest.mark.parametrize("shape", [(), (5,), (2, 3), (2, 3, 2), (3, 0), (0, 2)])
def test_to_arrow_bool_copies(gojax_device, interop, shape):
    host = sample(shape, np.bool_)
    x = jax.device_put(host, gojax_device)
    a = interop.to_arrow(x)
    if len(shape) <= 1:
        assert a.type == pa.bool_()
        assert a.to_pylist() == host.reshape(-1).tolist()
    else:
        assert a.type == pa.fixed_shape_tensor(pa.bool_(), list(shape[1:]))
        assert len(a) == shape[0]
        assert a.storage.flatten().to_pylist() == host.reshape(-1).tolist()
    with pytest.raises(ValueError, match="bit"):
        interop.to_arrow(x, copy=False)


def test_to_arrow_copy_true(gojax_device, interop):
    x = jax.device_put(np.arange(8, dtype=np.float64), gojax_device)
    a = interop.to_arrow(x, copy=True)
    assert values_address(a) != x.unsafe_buffer_pointer()
    assert a.to_pylist() == list(range(8))


@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.complex64, np.complex128], ids=dtype_id)
def test_to_arrow_unsupported_dtypes(gojax_device, interop, x64, dtype):
    x = jax.device_put(sample((4,), dtype), gojax_device)
    with pytest.raises(TypeError, match="no Arrow equivalent"):
        interop.to_arrow(x)


def test_to_arrow_bad_input(cpu_device, interop):
    with pytest.raises(TypeError, match="jax.Array"):
        interop.to_arrow(np.zeros(3))
    with pytest.raises(ValueError, match="gojax device"):
        interop.to_arrow(jax.device_put(np.zeros(3, np.float32), cpu_device))


# --------------------------------------------------------- capsule API ---


@pytest.mark.parametrize("shape", [(16,), (4, 4)])
def test_arrow_c_array_capsules(gojax_device, interop, shape):
    x = jax.device_put(sample(shape, np.float32), gojax_device)
    t = interop.ArrowTensor(x)
    before = interop.live_arrow_exports()
    a = pa.array(t)
    assert values_address(a) == x.unsafe_buffer_pointer()
    assert interop.live_arrow_exports() == before + 1
    assert pa.DataType._import_from_c_capsule(t.__arrow_c_schema__()) == a.type
    del x, t
    gc.collect()
    if len(shape) == 1:
        np.testing.assert_array_equal(a.to_numpy(), sample(shape, np.float32))
    else:
        np.testing.assert_array_equal(a.to_numpy_ndarray(), sample(shape, np.float32))


def test_arrow_c_array_unconsumed_capsules_release(gojax_device, interop):
    x = jax.device_put(np.ones(8, np.int16), gojax_device)
    t = interop.ArrowTensor(x)
    before = interop.live_arrow_exports()
    caps = t.__arrow_c_array__()
    assert interop.live_arrow_exports() == before + 1
    del caps  # the destructors release the never-imported array
    gc.collect()
    assert interop.live_arrow_exports() == before


def test_arrow_c_array_requested_schema(gojax_device, interop):
    x = jax.device_put(np.ones(8, np.int16), gojax_device)
    t = interop.ArrowTensor(x)
    assert pa.array(t, type=pa.int16()).to_pylist() == [1] * 8
    with pytest.raises(ValueError, match="without a copy"):
        t.__arrow_c_array__(pa.int32().__arrow_c_schema__())


# ---------------------------------------------------------- from_arrow ---


def aligned_arrow(values: np.ndarray) -> pa.Array:
    """A pyarrow array over a 64-byte-aligned copy of values (pyarrow's own
    allocator also aligns to 64, but that is not part of its contract)."""
    host = aligned_empty(values.shape, values.dtype)
    host[...] = values
    return pa.Array.from_buffers(pa.from_numpy_dtype(host.dtype), len(host), [None, pa.py_buffer(host)])


@pytest.mark.parametrize("dtype", ARROW_ZERO_COPY_DTYPES, ids=dtype_id)
def test_from_arrow_zero_copy(gojax_device, interop, x64, dtype):
    a = aligned_arrow(sample((40,), dtype))
    x = interop.from_arrow(a)
    assert x.devices() == {gojax_device}
    assert x.dtype == np.dtype(dtype)
    assert x.unsafe_buffer_pointer() == values_address(a)
    np.testing.assert_array_equal(np.asarray(x), sample((40,), dtype))


def test_from_arrow_pyarrow_allocations(gojax_device, interop):
    a = pa.array(np.arange(1000, dtype=np.float32))
    x = interop.from_arrow(a)
    if values_address(a) % 64 == 0:
        assert x.unsafe_buffer_pointer() == values_address(a)
    np.testing.assert_array_equal(np.asarray(x), np.arange(1000, dtype=np.float32))


def test_from_arrow_offset_slice(gojax_device, interop):
    a = aligned_arrow(np.arange(64, dtype=np.int32))
    aligned_slice = a.slice(16, 32)  # 16 * 4 bytes: still 64-byte aligned
    x = interop.from_arrow(aligned_slice)
    assert x.unsafe_buffer_pointer() == values_address(a) + 64
    np.testing.assert_array_equal(np.asarray(x), np.arange(16, 48))
    odd = a.slice(3, 10)  # misaligned: copied
    y = interop.from_arrow(odd)
    assert y.unsafe_buffer_pointer() != values_address(odd)
    np.testing.assert_array_equal(np.asarray(y), np.arange(3, 13))


def test_from_arrow_chunked_and_table_column(gojax_device, interop):
    one = pa.chunked_array([aligned_arrow(np.arange(16, dtype=np.float32))])
    x = interop.from_arrow(one)
    assert x.unsafe_buffer_pointer() == values_address(one.chunk(0))
    table = pa.table({"c": one})
    y = interop.from_arrow(table.column("c"))
    assert y.unsafe_buffer_pointer() == values_address(one.chunk(0))
    two = pa.chunked_array([pa.array([1, 2], pa.int32()), pa.array([3], pa.int32())])
    z = interop.from_arrow(two)  # several chunks: one copy
    np.testing.assert_array_equal(np.asarray(z), [1, 2, 3])
    empty = interop.from_arrow(pa.chunked_array([], type=pa.float32()))
    assert empty.shape == (0,) and empty.dtype == np.float32


def test_from_arrow_tensor(gojax_device, interop, x64):
    host = sample((6, 2, 3), np.float64)
    t = pa.FixedShapeTensorArray.from_numpy_ndarray(host)
    x = interop.from_arrow(t)
    assert x.shape == (6, 2, 3)
    np.testing.assert_array_equal(np.asarray(x), host)
    rows = interop.from_arrow(t[2:4])
    np.testing.assert_array_equal(np.asarray(rows), host[2:4])


def test_from_arrow_round_trip_zero_copy(gojax_device, interop):
    x = jax.device_put(sample((8, 4), np.float32), gojax_device)
    y = interop.from_arrow(interop.to_arrow(x))
    assert y.unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
    x.delete()
    del x
    gc.collect()
    np.testing.assert_array_equal(np.asarray(y), sample((8, 4), np.float32))


def test_from_arrow_nulls(gojax_device, interop):
    a = pa.array([1.0, None, 3.0], pa.float32())
    with pytest.raises(ValueError, match="1 null"):
        interop.from_arrow(a)
    x = interop.from_arrow(a, fill_value=-1.0)
    np.testing.assert_array_equal(np.asarray(x), [1.0, -1.0, 3.0])
    typ = pa.fixed_shape_tensor(pa.int32(), [2])
    storage = pa.array([[1, 2], None, [5, 6]], pa.list_(pa.int32(), 2))
    t = pa.ExtensionArray.from_storage(typ, storage)
    with pytest.raises(ValueError, match="null"):
        interop.from_arrow(t)
    y = interop.from_arrow(t, fill_value=0)
    np.testing.assert_array_equal(np.asarray(y), [[1, 2], [0, 0], [5, 6]])


def test_from_arrow_bool_unpacks(gojax_device, interop):
    x = interop.from_arrow(pa.array([True, False, True]))
    assert x.dtype == np.bool_
    np.testing.assert_array_equal(np.asarray(x), [True, False, True])


@pytest.mark.parametrize("first", ["arrow", "consumer"])
def test_from_arrow_lifetimes(gojax_device, interop, first):
    host = np.arange(1 << 14, dtype=np.int32)
    a = aligned_arrow(host)
    imports = interop.live_arrow_imports()
    pool_before = pa.total_allocated_bytes()
    x = interop.from_arrow(a)
    assert x.unsafe_buffer_pointer() == values_address(a)
    assert interop.live_arrow_imports() == imports + 1
    # gojax holds pyarrow's C Data export of a: pyarrow keeps only the
    # export's bookkeeping (a few hundred bytes), not a copy of the 64 KiB.
    assert pa.total_allocated_bytes() - pool_before < 1024
    if first == "arrow":
        del a
        gc.collect()
        junk = [pa.array(np.full(1 << 14, -1, np.int32)) for _ in range(4)]
        del junk
        np.testing.assert_array_equal(np.asarray(x), host)
        assert (np.asarray(x * 2) == host * 2).all()
        del x
    else:
        del x
        assert wait_until(lambda: interop.live_arrow_imports() == imports)
        np.testing.assert_array_equal(a.to_numpy(), host)
    assert wait_until(lambda: interop.live_arrow_imports() == imports)
    assert wait_until(lambda: pa.total_allocated_bytes() == pool_before)


def test_from_arrow_bad_input(interop, cpu_device):
    with pytest.raises(TypeError, match="pyarrow Array"):
        interop.from_arrow([1, 2, 3])
    with pytest.raises(TypeError, match="no JAX dtype"):
        interop.from_arrow(pa.array(["a", "b"]))
    with pytest.raises(ValueError, match="not a gojax device"):
        interop.from_arrow(pa.array([1.0]), device=cpu_device)


def test_to_arrow_released_on_another_thread(gojax_device, interop):
    import threading

    x = on_gojax(np.arange(1 << 12, dtype=np.float32), gojax_device)
    before = interop.live_arrow_exports()
    box = [interop.to_arrow(x)]
    del x
    assert interop.live_arrow_exports() == before + 1

    def drop():
        assert box.pop().to_numpy()[5] == 5.0  # last reference dies on this thread

    t = threading.Thread(target=drop)
    t.start()
    t.join(timeout=30)
    assert not t.is_alive()
    assert wait_until(lambda: interop.live_arrow_exports() == before)


def test_to_arrow_jit_output(gojax_device, interop):
    f = jax.jit(lambda v: v * 2 + 1)
    x = f(jax.device_put(np.arange(12, dtype=np.int32).reshape(3, 4), gojax_device))
    assert x.devices() == {gojax_device}
    a = interop.to_arrow(x)
    assert values_address(a) == x.unsafe_buffer_pointer()
    del x
    gc.collect()
    np.testing.assert_array_equal(a.to_numpy_ndarray(), np.arange(12).reshape(3, 4) * 2 + 1)


def test_multiple_gojax_devices():
    out = check_python("""
        import jax, numpy as np
        from gojax import interop
        devs = jax.devices("gojax")
        assert len(devs) == 2, devs
        x = jax.device_put(np.arange(8, dtype=np.float32) + 1, devs[1])
        a = interop.to_arrow(x)
        print("export:", a.buffers()[1].address == x.unsafe_buffer_pointer())
        y = interop.from_arrow(a, device=devs[1])
        print("import:", y.devices() == {devs[1]}, y.unsafe_buffer_pointer() == x.unsafe_buffer_pointer())
        mesh = jax.sharding.Mesh(np.array(devs), ("i",))
        spec = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("i"))
        s = jax.device_put(np.arange(8, dtype=np.float32), spec)
        try:
            interop.to_arrow(s)
        except ValueError as e:
            print("sharded:", "one gojax device" in str(e))
        try:
            interop.from_arrow(a, device=spec)
        except ValueError as e:
            print("sharding:", "single-device" in str(e))
    """, env={"GOJAX_NUM_DEVICES": "2", "JAX_PLATFORMS": "gojax"})
    assert "export: True" in out
    assert "import: True True" in out
    assert "sharded: True" in out
    assert "sharding: True" in out


@pytest.mark.parametrize("dtype", [np.bool_, ml_dtypes.bfloat16, np.complex64], ids=dtype_id)
def test_arrow_tensor_rejects_non_arrow_dtypes(gojax_device, interop, dtype):
    x = jax.device_put(sample((4,), dtype), gojax_device)
    with pytest.raises((TypeError, ValueError), match="Arrow"):
        interop.ArrowTensor(x)


def test_exports_alive_at_interpreter_exit():
    # Arrays still held at exit are released during finalization, after the
    # atexit hook turned the release callbacks off: the process must exit cleanly.
    out = check_python("""
        import jax, numpy as np, pyarrow as pa
        from gojax import interop
        d = jax.devices("gojax")[0]
        x = jax.device_put(np.arange(64, dtype=np.float32).reshape(8, 8), d)
        kept = [interop.to_arrow(x), pa.array(interop.ArrowTensor(x[0])),
                interop.ArrowTensor(x).__arrow_c_array__()]
        print("live:", interop.live_arrow_exports())
    """)
    assert "live: 3" in out


# ------------------------------------------- import through Arrow Go ----


def test_from_arrow_fill_copies_once_aligned(gojax_device, interop):
    a = pa.array([1.5, None, 3.5, None], pa.float64())
    x = interop.from_arrow(a, fill_value=0.25)
    # gojax's import made the one copy, 64-byte aligned, so device_put aliases it.
    assert x.unsafe_buffer_pointer() % 64 == 0
    np.testing.assert_array_equal(np.asarray(x), np.array([1.5, 0.25, 3.5, 0.25]).astype(x.dtype))
    b = interop.from_arrow(pa.array([True, None, False]), fill_value=True)
    np.testing.assert_array_equal(np.asarray(b), [True, True, False])
    with pytest.raises(ValueError, match="1 null"):
        interop.from_arrow(pa.array([True, None, False]))


def test_from_arrow_fixed_size_list(gojax_device, interop):
    values = aligned_arrow(np.arange(12, dtype=np.int16))
    lists = pa.FixedSizeListArray.from_arrays(values, list_size=3)
    x = interop.from_arrow(lists)
    assert x.shape == (4, 3)
    assert x.unsafe_buffer_pointer() == values_address(values)
    np.testing.assert_array_equal(np.asarray(interop.from_arrow(lists[1:3])), np.arange(3, 9).reshape(2, 3))


def test_from_arrow_capsule_producer_round_trip(gojax_device, interop):
    x = jax.device_put(sample((6, 4), np.float32), gojax_device)
    y = interop.from_arrow(interop.ArrowTensor(x))
    assert y.shape == (6, 4)
    assert y.unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
    del x
    gc.collect()
    np.testing.assert_array_equal(np.asarray(y), sample((6, 4), np.float32))


def test_empty_rows_round_trip(gojax_device, interop):
    # Arrow Go v15 has no fixed_size_list of size 0: pyarrow handles these.
    x = jax.device_put(np.zeros((4, 0, 2), np.float32), gojax_device)
    a = interop.to_arrow(x)
    assert a.type == pa.fixed_shape_tensor(pa.float32(), [0, 2]) and len(a) == 4
    assert pa.array(interop.ArrowTensor(x)).type == a.type
    y = interop.from_arrow(a)
    assert y.shape == (4, 0, 2) and y.dtype == np.float32


def test_from_arrow_permuted_tensor(gojax_device, interop):
    typ = pa.fixed_shape_tensor(pa.int32(), [2, 3], permutation=[1, 0])
    storage = pa.FixedSizeListArray.from_arrays(pa.array(np.arange(12, dtype=np.int32)), list_size=6)
    t = pa.ExtensionArray.from_storage(typ, storage)
    x = interop.from_arrow(t)  # transposed storage: pyarrow converts (one copy)
    np.testing.assert_array_equal(np.asarray(x), t.to_numpy_ndarray())


def test_from_arrow_unknown_extension(gojax_device, interop):
    typ = pa.uuid() if hasattr(pa, "uuid") else None
    if typ is None:
        pytest.skip("pyarrow without the uuid extension type")
    a = pa.ExtensionArray.from_storage(typ, pa.array([b"0" * 16], pa.binary(16)))
    with pytest.raises(TypeError, match="no JAX dtype"):
        interop.from_arrow(a)
