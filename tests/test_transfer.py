"""Host <-> device transfers on gojax give back exactly what XLA CPU does,
for every dtype JAX supports on CPU."""

from __future__ import annotations

import jax
import ml_dtypes
import numpy as np
import pytest

import gojax

# Every dtype jax 0.11/0.12 round-trips through XLA CPU with x64 enabled.
DTYPES = [
    "bool", "int1", "int2", "int4", "int8", "int16", "int32", "int64",
    "uint1", "uint2", "uint4", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
    "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3",
    "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
    "float8_e5m2fnuz", "float8_e8m0fnu",
]
SHAPES = [(), (0,), (7,), (3, 5), (2, 3, 4), (1, 0, 3)]


def _dtype(name: str) -> np.dtype:
    return np.dtype(getattr(ml_dtypes, name) if hasattr(ml_dtypes, name) else name)


def _values(name: str, shape, rng) -> np.ndarray:
    dt = _dtype(name)
    n = int(np.prod(shape))
    if name == "bool":
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dt.kind in "iu" or name.startswith(("int", "uint")):
        if hasattr(ml_dtypes, name):  # sub-byte: one element per byte
            info = ml_dtypes.iinfo(dt)
            vals = rng.integers(int(info.min), int(info.max), n, endpoint=True)
        else:
            info = np.iinfo(dt)
            vals = rng.integers(info.min, info.max, n, endpoint=True, dtype=dt)
        if n >= 2:
            vals[:2] = [info.min, info.max]
        return vals.astype(dt).reshape(shape)
    if dt.kind == "c":
        vals = rng.standard_normal(n) + 1j * rng.standard_normal(n)
        specials = [complex(np.inf, 0), complex(0, np.nan), -0.0]
    else:
        vals = rng.standard_normal(n) * 4
        specials = [np.inf, -np.inf, np.nan, -0.0, 1e-40]
    for i, s in enumerate(specials[:n]):
        vals[i] = s
    with np.errstate(all="ignore"):
        return vals.astype(dt).reshape(shape)


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


@pytest.fixture(autouse=True)
def x64():
    with jax.enable_x64(True):
        yield


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_round_trip_matches_xla_cpu(name, shape, gojax_device, cpu_device):
    host = _values(name, shape, np.random.default_rng(len(shape) * 100 + DTYPES.index(name)))
    ref = np.asarray(jax.device_put(host, cpu_device))
    x = jax.device_put(host, gojax_device)
    assert x.devices() == {gojax_device}
    got = np.asarray(x)
    assert got.dtype == ref.dtype == host.dtype
    assert got.shape == ref.shape == host.shape
    assert _bits(got) == _bits(ref) == _bits(host)


@pytest.mark.parametrize("name", ["float32", "int8", "complex128", "bfloat16", "bool"])
def test_strided_host_arrays(name, gojax_device, cpu_device):
    base = _values(name, (6, 8), np.random.default_rng(7))
    for host in (base.T, base[::2, 1::3], np.asfortranarray(base), base[:, ::-1]):
        ref = np.asarray(jax.device_put(host, cpu_device))
        got = np.asarray(jax.device_put(host, gojax_device))
        assert got.shape == host.shape
        assert _bits(got) == _bits(ref) == _bits(host)


def test_device_to_device_copy(gojax_device, cpu_device):
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    on_cpu = jax.device_put(host, cpu_device)
    on_gojax = jax.device_put(on_cpu, gojax_device)
    back = jax.device_put(on_gojax * 2, cpu_device)
    assert back.devices() == {cpu_device}
    np.testing.assert_array_equal(np.asarray(back), host * 2)


def test_stats_track_device_buffers(gojax_device):
    nbytes = 1 << 18
    # Outputs of executions live in gojax device memory (a device_put may
    # alias the host array instead of copying it).
    src = jax.device_put(np.ones(nbytes // 4, np.float32), gojax_device)
    add = jax.jit(lambda x, k: x + k)
    xs = [add(src, np.float32(k)) for k in range(4)]
    jax.block_until_ready(xs)
    during = gojax.stats()
    # Other buffers may come and go meanwhile, so bound from below only.
    assert during.bytes_in_use >= 4 * nbytes
    assert during.live_buffers >= 4
    assert during.peak_bytes >= during.bytes_in_use
    for x in xs:
        x.delete()
    after = gojax.stats()
    assert after.bytes_in_use <= during.bytes_in_use - 4 * nbytes
    assert after.live_buffers <= during.live_buffers - 4
    assert after.num_allocs >= during.num_allocs
