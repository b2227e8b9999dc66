"""gojax's own Python API: runtime stats, configuration, version and build info."""

from __future__ import annotations

import dataclasses
import gc
import os
import json
import re

import numpy as np
import pytest

import gojax

jax = pytest.importorskip("jax")


def _settle() -> gojax.Stats:
    """Collect Python garbage (dropping jax.Arrays) and read the counters."""
    gc.collect()
    return gojax.stats()


def _unaligned(n: int) -> np.ndarray:
    """A float32 array whose data is not 64-byte aligned, so device_put copies
    it into gojax memory instead of aliasing it."""
    raw = np.zeros(n + 16, dtype=np.float32)
    off = next(i for i in range(1, 16) if (raw[i:].ctypes.data % 64) != 0)
    out = raw[off:off + n]
    out[:] = np.arange(n, dtype=np.float32)
    return out


def test_stats_types():
    s = gojax.stats()
    assert isinstance(s, gojax.Stats)
    assert dataclasses.is_dataclass(s)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.live_buffers = 0  # type: ignore[misc]
    floats = {"compile_seconds", "execute_seconds"}
    for f in dataclasses.fields(s):
        value = getattr(s, f.name)
        want = float if f.name in floats else int
        assert type(value) is want, f.name
        assert value >= 0, f.name
    assert s.peak_bytes >= s.bytes_in_use
    assert s.num_allocs >= s.live_allocations
    assert s.buffers_created >= s.live_buffers


def test_device_put_and_delete_move_live_buffers(gojax_device):
    base = _settle()
    host = _unaligned(1000)
    x = jax.device_put(host, gojax_device)
    x.block_until_ready()
    s = gojax.stats()
    assert s.live_buffers == base.live_buffers + 1
    assert s.buffers_created == base.buffers_created + 1
    assert s.bytes_in_use >= base.bytes_in_use + host.nbytes
    np.testing.assert_array_equal(np.asarray(x), host)
    del x
    after = _settle()
    assert after.live_buffers == base.live_buffers
    assert after.bytes_in_use == base.bytes_in_use


def test_explicit_delete_releases_at_once(gojax_device):
    base = _settle()
    x = jax.device_put(_unaligned(256), gojax_device)
    x.block_until_ready()
    assert gojax.stats().live_buffers == base.live_buffers + 1
    x.delete()
    assert gojax.stats().live_buffers == base.live_buffers
    assert gojax.stats().bytes_in_use == base.bytes_in_use


def test_new_jit_compiles_once_and_counts_executions(gojax_device):
    x = jax.device_put(_unaligned(64), gojax_device)
    x.block_until_ready()
    f = jax.jit(lambda a: a * 3.0 - 1.0)
    before = _settle()
    y = f(x)
    y.block_until_ready()
    s = gojax.stats()
    assert s.compiles == before.compiles + 1
    assert s.failed_compiles == before.failed_compiles
    assert s.compile_seconds > before.compile_seconds
    assert s.executions == before.executions + 1
    assert s.failed_executions == before.failed_executions
    assert s.execute_seconds >= before.execute_seconds
    assert s.live_buffers == before.live_buffers + 1  # the output

    for _ in range(3):
        f(x).block_until_ready()
    again = gojax.stats()
    assert again.compiles == s.compiles, "cached jit: no new compile"
    assert again.executions == s.executions + 3
    np.testing.assert_allclose(np.asarray(y), np.asarray(x) * 3 - 1)

    del x, y
    after = _settle()
    assert after.live_buffers == before.live_buffers - 1  # x and y are gone


def test_compile_without_running(gojax_device):
    x = jax.device_put(_unaligned(8), gojax_device)
    before = _settle()
    jax.jit(lambda a: a + 7.0).lower(x).compile()
    s = gojax.stats()
    assert s.compiles == before.compiles + 1
    assert s.executions == before.executions


def test_failed_compile_is_counted(gojax_device):
    # A custom call gojax has no kernel for: the compile fails with a clear error.
    x = jax.device_put(_unaligned(4), gojax_device)
    f = jax.jit(lambda a: jax.ffi.ffi_call(
        "gojax_test_no_such_target", jax.ShapeDtypeStruct((4,), np.float32))(a))
    before = _settle()
    with pytest.raises(Exception, match="gojax_test_no_such_target"):
        f(x)
    s = gojax.stats()
    assert s.failed_compiles == before.failed_compiles + 1
    assert s.compiles == before.compiles
    assert s.executions == before.executions


def test_peak_memory_and_reset(gojax_device):
    n = 1 << 20
    x = jax.device_put(_unaligned(n), gojax_device)
    _settle()
    gojax.reset_peak_memory()
    base = gojax.stats()
    assert base.peak_bytes >= base.bytes_in_use
    y = jax.jit(lambda a: a * 2.0)(x)
    y.block_until_ready()
    high = gojax.stats()
    assert high.bytes_in_use >= base.bytes_in_use + 4 * n
    del y
    s = _settle()
    assert s.bytes_in_use == base.bytes_in_use
    assert s.peak_bytes >= base.bytes_in_use + 4 * n, "peak remembers the output"
    gojax.reset_peak_memory()
    assert gojax.stats().peak_bytes == gojax.stats().bytes_in_use


@pytest.fixture
def restore_buffer_cache():
    prev = gojax.config.buffer_cache_bytes
    yield
    gojax.config.buffer_cache_bytes = prev


def test_repeated_runs_reuse_buffers(gojax_device, restore_buffer_cache):
    """A freed output goes to the cache (cached_bytes, not bytes_in_use) and
    the next run's output takes it (cache_hits); results stay exact."""
    gojax.config.buffer_cache_bytes = 64 << 20
    n = 1 << 20
    host = _unaligned(n)
    x = jax.device_put(host, gojax_device)
    f = jax.jit(lambda a: a * 2.0 + 1.0)
    f(x).block_until_ready()
    base = _settle()
    assert base.cached_bytes >= 4 * n, "the first output was cached"
    for _ in range(5):
        y = f(x)
        np.testing.assert_array_equal(np.asarray(y), host * 2.0 + 1.0)
        s = gojax.stats()
        assert s.bytes_in_use >= base.bytes_in_use + 4 * n, "a live output counts as in use"
        del y
        gc.collect()
    s = gojax.stats()
    assert s.cache_hits >= base.cache_hits + 5
    assert s.bytes_in_use == base.bytes_in_use
    assert s.cached_bytes <= 64 << 20


def test_live_buffer_is_never_recycled(gojax_device, restore_buffer_cache):
    """Memory a NumPy view (external reference) still pins is not handed to
    a later output even after the jax.Array is gone."""
    gojax.config.buffer_cache_bytes = 64 << 20
    n = 1 << 20
    x = jax.device_put(_unaligned(n), gojax_device)
    f = jax.jit(lambda a: a + 1.0)
    y = f(x)
    view = np.asarray(y)
    want = view.copy()
    del y
    gc.collect()
    for _ in range(3):
        z = f(x) * 3.0
        z.block_until_ready()
        del z
        gc.collect()
    np.testing.assert_array_equal(view, want)


def test_buffer_cache_config(restore_buffer_cache):
    c = gojax.config
    assert c.buffer_cache_bytes >= 0
    c.buffer_cache_bytes = 0
    assert c.buffer_cache_bytes == 0
    assert gojax.stats().cached_bytes == 0, "disabling releases the cache"
    c.buffer_cache_bytes = 1 << 20
    assert c.buffer_cache_bytes == 1 << 20
    c.buffer_cache_bytes = None
    assert 0 < c.buffer_cache_bytes <= 1 << 30
    with pytest.raises(ValueError):
        c.buffer_cache_bytes = -1
    with pytest.raises(TypeError):
        c.buffer_cache_bytes = 1.5  # type: ignore[assignment]
    with pytest.raises(TypeError):
        c.buffer_cache_bytes = True  # type: ignore[assignment]


def test_buffer_cache_env():
    import subprocess
    import sys

    env = dict(os.environ, GOJAX_BUFFER_CACHE_BYTES="12345678")
    out = subprocess.run([sys.executable, "-c", "import gojax; print(gojax.config.buffer_cache_bytes)"],
                         env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "12345678"


@pytest.fixture
def restore_worker_threads():
    prev = gojax.worker_threads()
    yield
    gojax.set_worker_threads(prev)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_set_worker_threads_reads_back(n, restore_worker_threads, gojax_device):
    gojax.set_worker_threads(n)
    assert gojax.worker_threads() == n
    assert gojax.config.worker_threads == n
    # The runtime keeps working under the new limit.
    x = jax.device_put(_unaligned(100), gojax_device)
    np.testing.assert_allclose(np.asarray(jax.jit(lambda a: a.sum())(x)), np.arange(100).sum())


def test_worker_threads_through_config(restore_worker_threads):
    gojax.config.worker_threads = 2
    assert gojax.worker_threads() == 2
    gojax.config.worker_threads = 0  # Go's default
    assert gojax.worker_threads() >= 1


@pytest.mark.parametrize("bad, exc", [
    (1.5, TypeError), ("2", TypeError), (True, TypeError), (None, TypeError), (1 << 20, ValueError),
])
def test_set_worker_threads_rejects(bad, exc, restore_worker_threads):
    prev = gojax.worker_threads()
    with pytest.raises(exc):
        gojax.set_worker_threads(bad)
    assert gojax.worker_threads() == prev


def test_config_view():
    c = gojax.config
    assert isinstance(c, gojax.Config)
    d = c.as_dict()
    assert set(d) == {"worker_threads", "dump_dir", "debug_nans", "flush_denormals", "num_devices", "buffer_cache_bytes",
                      "async_dispatch", "inline_bytes", "spin_us", "vector", "memory_limit",
                      "collective_timeout", "dataplane_host", "dataplane_port", "spmd_partition", "crash_output"}
    assert d["worker_threads"] == gojax.worker_threads()
    assert isinstance(c.num_devices, int) and c.num_devices >= 1
    assert "worker_threads=" in repr(c)
    with pytest.raises(AttributeError):
        c.num_devices = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        c.no_such_setting = 1  # type: ignore[attr-defined]


def test_flush_denormals_switch(gojax_device):
    """Default: subnormal results flush to zero as on XLA:CPU; off: IEEE
    subnormals. Python's own arithmetic is never affected."""
    import jax

    tiny = np.float32(np.finfo(np.float32).tiny)
    x = jax.device_put(np.array([tiny, 1.0], np.float32), gojax_device)
    half = jax.jit(lambda v: v * np.float32(0.5))
    assert gojax.config.flush_denormals is True
    try:
        assert np.asarray(half(x))[0] == 0
        gojax.config.flush_denormals = False
        assert np.asarray(half(x))[0] == tiny / 2
        assert np.float32(tiny) / 2 != 0  # numpy in this thread keeps subnormals
        with pytest.raises(TypeError):
            gojax.config.flush_denormals = 1  # type: ignore[assignment]
    finally:
        gojax.config.flush_denormals = True
    assert np.asarray(half(x))[0] == 0


def test_async_dispatch_switch(gojax_device):
    """Default: a single-device program with ready inputs runs inside the
    call, so its result is ready when the call returns (even one far over
    the tiny-program bound); on: the call may return first. Both give the
    same result."""
    import jax

    x = jax.device_put(np.ones((512, 512), np.float32), gojax_device)  # 1 MiB: not a tiny program
    f = jax.jit(lambda a: (a @ a) @ a)
    want = np.full((512, 512), 512.0 * 512.0, np.float32)
    assert gojax.config.async_dispatch is False
    try:
        y = f(x)
        assert y.is_ready(), "ran on the calling thread"
        np.testing.assert_array_equal(np.asarray(y), want)
        gojax.config.async_dispatch = True
        assert gojax.config.async_dispatch is True
        np.testing.assert_array_equal(np.asarray(f(x)), want)
        with pytest.raises(TypeError):
            gojax.config.async_dispatch = 1  # type: ignore[assignment]
    finally:
        gojax.config.async_dispatch = False


def test_async_dispatch_env():
    import subprocess
    import sys

    env = dict(os.environ, GOJAX_ASYNC_DISPATCH="1")
    out = subprocess.run([sys.executable, "-c", "import gojax; print(gojax.config.async_dispatch)"],
                         env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_dump_dir_takes_effect(tmp_path, gojax_device):
    prev = gojax.config.dump_dir
    try:
        gojax.config.dump_dir = tmp_path
        assert gojax.config.dump_dir == str(tmp_path)
        x = jax.device_put(_unaligned(5), gojax_device)
        jax.jit(lambda a: a * 11.0).lower(x).compile()
        dumped = sorted(os.listdir(tmp_path))
        assert dumped, "the compile wrote its module text"
        gojax.config.dump_dir = None
        assert gojax.config.dump_dir is None
        jax.jit(lambda a: a * 13.0).lower(x).compile()
        assert sorted(os.listdir(tmp_path)) == dumped
        with pytest.raises(ValueError):
            gojax.config.dump_dir = ""
        with pytest.raises(TypeError):
            gojax.config.dump_dir = 3  # type: ignore[assignment]
    finally:
        gojax.config.dump_dir = prev


def test_version_and_build_info():
    assert isinstance(gojax.__version__, str)
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", gojax.__version__)
    assert gojax.version() == gojax.__version__
    info = gojax.build_info()
    assert isinstance(info, gojax.BuildInfo)
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.version = "x"  # type: ignore[misc]
    assert info.version == gojax.__version__
    assert re.fullmatch(r"go\d+\.\d+(\.\d+)?\S*", info.go_version)
    assert info.platform == "linux/amd64"
    assert isinstance(info.go, dict)
    assert info.go.get("-buildmode") == "c-shared"
    assert info.go.get("CGO_ENABLED") == "1"
    assert isinstance(info.build, dict)
    assert json.loads(json.dumps(dataclasses.asdict(info)))["version"] == info.version
    assert os.path.samefile(info.library, gojax.library_path())
    info.go["x"] = "y"
    assert "x" not in gojax.build_info().go, "each call returns its own copy"


def test_py_typed_is_shipped():
    assert os.path.isfile(os.path.join(os.path.dirname(gojax.__file__), "py.typed"))
