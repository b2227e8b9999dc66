"""Typed access to the gopy-generated binding of go/pyapi."""

from __future__ import annotations

import ctypes
import dataclasses
import gc
import json
import os
import types
from typing import Any


def _load_binding() -> types.ModuleType:
    before = list(gc.callbacks)
    from ._binding import pyapi

    # gopy's wrappers hook gc.callbacks to force a synchronous Go GC after every
    # Python collection (milliseconds each; JAX tracing makes lots of cyclic
    # garbage). gojax hands Python no Go objects that would need it: Go's own
    # GC reclaims its heap as it grows.
    gc.callbacks[:] = [cb for cb in gc.callbacks if cb in before or not _is_gopy_hook(cb)]
    return pyapi


def _is_gopy_hook(cb: Any) -> bool:
    return getattr(cb, "__name__", "") == "_gopy_gc_cb" and getattr(
        cb, "__module__", ""
    ).startswith(__package__ + "._binding")


_pyapi = _load_binding()

FORKED_CHILD_MESSAGE = (
    "gojax cannot be used in a forked child process; use the 'spawn' or 'forkserver' start method"
)
# Handle bookkeeping that Python runs by itself (finalizers, thread exit):
# in a forked child it must stay quiet rather than raise.
_QUIET_IN_CHILD = frozenset({"DecRef", "IncRef", "GoPyInit", "_gopy_clear_go_tls"})


def _raise_forked(*_args: object, **_kwargs: object) -> None:
    raise RuntimeError(FORKED_CHILD_MESSAGE)


def _quiet_forked(*_args: object, **_kwargs: object) -> None:
    return None


_forked_child = False


def in_forked_child() -> bool:
    """Whether this process is a fork of the one that loaded gojax (where
    gojax cannot run)."""
    return _forked_child


def _disable_in_forked_child() -> None:
    global _forked_child
    _forked_child = True
    # Go's runtime threads do not survive fork(): any call into Go in the
    # child would wait forever for them. Every extension function, and every
    # binding function that calls one, now raises instead (the PJRT entry
    # points JAX calls check the same in C).
    from ._binding import _gojax

    for mod in (_gojax, _pyapi):
        for name, value in list(vars(mod).items()):
            if name.startswith("__") or isinstance(value, (type, types.ModuleType)) or not callable(value):
                continue
            setattr(mod, name, _quiet_forked if name in _QUIET_IN_CHILD else _raise_forked)


os.register_at_fork(after_in_child=_disable_in_forked_child)
_BINDING_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_binding")
# PyCapsule keeps a pointer to its name, so the name must outlive every capsule.
_CAPSULE_NAME = b"pjrt_c_api"


def version() -> str:
    """gojax's version."""
    return str(_pyapi.Version())


def library_path() -> str:
    """Path of the shared library (extension + PJRT plugin exporting GetPjrtApi)."""
    from ._binding import _gojax

    return os.path.abspath(_gojax.__file__)


@dataclasses.dataclass(frozen=True)
class BuildInfo:
    """How the library was built."""

    version: str  # gojax release version
    go_version: str  # Go toolchain, e.g. "go1.26.0"
    platform: str  # GOOS/GOARCH, e.g. "linux/amd64"
    go: dict[str, str]  # build settings recorded by the Go linker
    build: dict[str, Any]  # the build backend's record (build_log.json), JSON data
    library: str  # path of the shared library
    vector: str  # vector sets the kernels use and the GOJAX_VECTOR limit, e.g. "avx2 (GOJAX_VECTOR=avx2)"


def build_info() -> BuildInfo:
    """How the library was built: Go toolchain and linker settings, plus the
    build backend's record of steps and flags."""
    lines = str(_pyapi.BuildInfo()).splitlines()
    toolchain = lines[1].split() if len(lines) > 1 else []
    settings: dict[str, str] = {}
    for line in lines[2:]:
        key, sep, value = line.partition("=")
        if sep:
            settings[key] = value
    with open(os.path.join(_BINDING_DIR, "build_log.json"), encoding="utf-8") as f:
        build = json.load(f)
    return BuildInfo(
        version=version(),
        go_version=toolchain[1] if len(toolchain) > 1 else "",
        platform=toolchain[2] if len(toolchain) > 2 else "",
        go=settings,
        build=build,
        library=library_path(),
        vector=str(_pyapi.VectorISA()),
    )


@dataclasses.dataclass(frozen=True)
class Stats:
    """A snapshot of gojax's runtime counters (process-wide)."""

    bytes_in_use: int  # device memory allocated now
    peak_bytes: int  # highest bytes_in_use since start or reset_peak_memory()
    num_allocs: int  # device allocations ever made (buffers and temporaries)
    live_allocations: int  # device allocations not yet freed
    cached_bytes: int  # freed device memory kept for reuse (not in bytes_in_use)
    cache_hits: int  # allocations served from that cache
    live_buffers: int  # PJRT buffers whose memory is not released yet
    buffers_created: int  # PJRT buffers ever created
    compiles: int  # successful compilations
    failed_compiles: int  # compilations that raised
    compile_seconds: float  # time spent in successful compilations
    executions: int  # program runs started, one per device
    failed_executions: int  # runs that ended in an error
    execute_seconds: float  # time runs spent running
    partitioned_executions: int  # SPMD runs that ran per device on their shards


def stats() -> Stats:
    """Read gojax's runtime counters."""
    s = _pyapi.ReadStats()
    return Stats(
        bytes_in_use=int(s.BytesInUse),
        peak_bytes=int(s.PeakBytes),
        num_allocs=int(s.NumAllocs),
        live_allocations=int(s.LiveAllocations),
        cached_bytes=int(s.CachedBytes),
        cache_hits=int(s.CacheHits),
        live_buffers=int(s.LiveBuffers),
        buffers_created=int(s.BuffersCreated),
        compiles=int(s.Compiles),
        failed_compiles=int(s.FailedCompiles),
        compile_seconds=float(s.CompileSeconds),
        executions=int(s.Executions),
        failed_executions=int(s.FailedExecutions),
        execute_seconds=float(s.ExecuteSeconds),
        partitioned_executions=int(s.PartitionedExecutions),
    )


def reset_peak_memory() -> None:
    """Restart peak_bytes from the memory in use now."""
    _pyapi.ResetPeakMemory()


_MAX_WORKER_THREADS = 1 << 16


def set_worker_threads(n: int) -> None:
    """Limit the threads running gojax's Go code at once (GOMAXPROCS);
    n <= 0 restores the default (the CPUs available to the process)."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"worker threads must be an int, not {type(n).__name__}")
    if n > _MAX_WORKER_THREADS:
        raise ValueError(f"worker threads must be at most {_MAX_WORKER_THREADS}, got {n}")
    _pyapi.SetWorkerThreads(n)


def worker_threads() -> int:
    """The current worker thread limit (GOMAXPROCS)."""
    return int(_pyapi.WorkerThreads())


def _check_environment() -> None:
    """Raise ValueError when a GOJAX_* variable held a value gojax does not
    accept when the library loaded; the message names the variable and the
    accepted values."""
    err = str(_pyapi.ConfigError())
    if err:
        raise ValueError(f"gojax: invalid configuration: {err}")


def _set(field: str, value: object, *types_: type) -> None:
    """Hand a gojax.config field to Go, which parses it with the parser of its
    GOJAX_* variable (the same spellings, the same checks). Python values
    become text: bools "true"/"false", ints decimal, None "" (the default)."""
    if value is None:
        text = ""
    elif isinstance(value, str) and str in types_:
        text = value
    elif isinstance(value, bool) and bool in types_:
        text = "true" if value else "false"
    elif isinstance(value, int) and not isinstance(value, bool) and int in types_:
        text = str(value)
    elif isinstance(value, os.PathLike) and os.PathLike in types_:
        text = os.fspath(value)
        if not isinstance(text, str):
            raise TypeError(f"{field} must be a str path, not {type(text).__name__}")
    else:
        names = " or ".join(t.__name__ for t in types_)
        raise TypeError(f"gojax.config.{field} takes {names}, not {type(value).__name__}")
    try:
        _pyapi.SetConfig(field, text)
    except RuntimeError as e:
        raise ValueError(str(e)) from None


class Config:
    """Live, typed view of gojax's settings: reads and writes go to the Go
    runtime. Each field matches a GOJAX_* variable (docs/runtime.md lists
    them), read once when gojax loads; a setter takes the variable's
    spellings as a str too (``config.debug_nans = "on"``) and checks values
    with the same Go parser. Go keeps its own copy of the environment, so
    once gojax is imported, change settings here rather than through
    os.environ."""

    __slots__ = ()

    @property
    def worker_threads(self) -> int:
        """Threads running Go code at once (see set_worker_threads)."""
        return worker_threads()

    @worker_threads.setter
    def worker_threads(self, n: int) -> None:
        set_worker_threads(n)

    @property
    def dump_dir(self) -> str | None:
        """Directory receiving each compiled module's text and plan
        (GOJAX_DUMP_DIR); None when off. Applies from the next compile. A
        relative path is made absolute now. The directory is created at the
        first compile; when it cannot be written, compiles still succeed,
        without dumps, and the failure is reported once on stderr."""
        d = str(_pyapi.DumpDir())
        return d or None

    @dump_dir.setter
    def dump_dir(self, path: str | os.PathLike[str] | None) -> None:
        p = os.fspath(path) if isinstance(path, (str, os.PathLike)) else path
        # "" would mean the default (off) to Go, and C strings end at NUL.
        if isinstance(p, str) and (not p.strip() or "\0" in p):
            raise ValueError(f"dump_dir must be a non-empty path without NUL or None, got {p!r}")
        _set("dump_dir", path, str, os.PathLike)

    @property
    def debug_nans(self) -> bool:
        """NaN detection inside compiled programs (GOJAX_DEBUG_NANS). While
        on, every floating-point result of every step is checked, and an
        execution fails at the first step that turns NaN-free inputs into a
        NaN, with a JaxRuntimeError naming the op and the Python line JAX
        recorded for it. Unlike jax_debug_nans, nothing is re-run un-jitted:
        the check happens inside the gojax plan, so it also covers ops fused
        together, and NaNs passed in as arguments are not blamed on any op.
        It costs a scan of every result while on."""
        return bool(_pyapi.DebugNans())

    @debug_nans.setter
    def debug_nans(self, on: bool | str) -> None:
        _set("debug_nans", on, bool, str)

    @property
    def flush_denormals(self) -> bool:
        """Whether programs run with subnormal floats flushed to zero
        (FTZ/DAZ), as XLA:CPU runs them: the default, so both backends give
        the same bits. False keeps IEEE subnormals
        (GOJAX_FLUSH_DENORMALS). Only gojax's own threads change mode, and
        only while a program runs. Applies from the next run."""
        return bool(_pyapi.FlushDenormals())

    @flush_denormals.setter
    def flush_denormals(self, on: bool | str) -> None:
        _set("flush_denormals", on, bool, str)

    @property
    def async_dispatch(self) -> bool:
        """Whether a call of a jitted function returns before its program has
        run (GOJAX_ASYNC_DISPATCH). False, the default: a single-device
        program whose inputs are ready runs on the calling thread, with the
        GIL released, and the call returns with the result ready; this
        measured 15-30 % faster on compute-bound programs (see
        docs/runtime.md). Programs on several devices, and calls whose inputs
        are still being computed, run asynchronously either way. Applies
        from the next call."""
        return bool(_pyapi.AsyncDispatch())

    @async_dispatch.setter
    def async_dispatch(self, on: bool | str) -> None:
        _set("async_dispatch", on, bool, str)

    @property
    def buffer_cache_bytes(self) -> int:
        """Budget of the device memory cache (GOJAX_BUFFER_CACHE_BYTES;
        default min(1 GiB, RAM/8)). Freed buffers of 64 KiB or more are
        kept, up to this many bytes, for later allocations of their size
        class, so repeated executions reuse memory instead of faulting in
        fresh pages; blocks unused for 5 s go back to the OS. 0 disables the
        cache; None restores the default; a str takes the variable's
        spellings ("64MiB"). Lowering it releases the excess at once
        (stats().cached_bytes shows what is held)."""
        return int(_pyapi.BufferCacheBytes())

    @buffer_cache_bytes.setter
    def buffer_cache_bytes(self, n: int | str | None) -> None:
        _set("buffer_cache_bytes", n, int, str)

    @property
    def memory_limit(self) -> int | None:
        """Most bytes gojax may hold in device buffers (GOJAX_MEMORY_LIMIT;
        default None: no limit but what the host can give). An allocation
        that would pass it, and each Go-heap table or arena of temporaries
        a program's sizes decide that is larger than the room left under it,
        fails with RESOURCE_EXHAUSTED naming the limit, and the process goes
        on. Buffers already held stay. A str takes the variable's spellings
        ("8GiB"); at least 1 MiB. None removes the limit. Applies at once."""
        n = int(_pyapi.MemoryLimit())
        return None if n < 0 else n

    @memory_limit.setter
    def memory_limit(self, n: int | str | None) -> None:
        _set("memory_limit", n, int, str)

    @property
    def inline_bytes(self) -> int:
        """Memory bound (arguments, results and temporaries) under which a
        single-device program always runs on the calling thread, even with
        async_dispatch on (GOJAX_INLINE_BYTES; default 256 KiB; 0: never).
        None restores the default. Applies from the next call."""
        return int(_pyapi.InlineBytes())

    @inline_bytes.setter
    def inline_bytes(self, n: int | str | None) -> None:
        _set("inline_bytes", n, int, str)

    @property
    def spin_us(self) -> int:
        """Microseconds an idle kernel worker polls for work before it parks
        (GOJAX_SPIN_US; default 100; 0 parks at once, which suits machines
        whose cores are busy with other processes). None restores the
        default."""
        return int(_pyapi.SpinMicros())

    @spin_us.setter
    def spin_us(self, n: int | str | None) -> None:
        _set("spin_us", n, int, str)

    @property
    def num_devices(self) -> int:
        """Devices a new gojax client gets unless JAX asks for some
        (GOJAX_NUM_DEVICES, else 1; JAX's jax_num_cpu_devices counts when
        GOJAX_NUM_DEVICES is unset). Read-only: JAX creates its client once;
        len(jax.devices("gojax")) is what it got."""
        return int(_pyapi.DefaultNumDevices())

    @property
    def vector(self) -> str:
        """The cap on the vector instruction sets kernels use (GOJAX_VECTOR:
        auto, avx512, avx2 or none). Read-only: kernels choose their code
        when the library loads. build_info().vector says what is in use."""
        return str(_pyapi.Vector())

    @property
    def collective_timeout(self) -> int:
        """Seconds a process of a multi-process job (jax.distributed) waits
        on another before its execution fails naming it
        (GOJAX_COLLECTIVE_TIMEOUT; default 300). Read-only: the client
        reads it when JAX creates it."""
        return int(_pyapi.CollectiveTimeout())

    @property
    def spmd_partition(self) -> bool:
        """Whether sharded programs the partitioner accepts run as one
        program per device on its shards (GOJAX_SPMD_PARTITION; default
        True). False runs every sharded program on global arrays.
        Read-only: set the variable before gojax loads."""
        return bool(_pyapi.SPMDPartition())

    @property
    def dataplane_host(self) -> str:
        """Where the other processes of a job reach this one
        (GOJAX_DATAPLANE_HOST; "auto" = the first non-loopback IPv4
        address). Read-only."""
        return str(_pyapi.DataplaneHost())

    @property
    def dataplane_port(self) -> int:
        """This process's data-plane port (GOJAX_DATAPLANE_PORT; 0 = any
        free port). Read-only."""
        return int(_pyapi.DataplanePort())

    @property
    def crash_output(self) -> str | None:
        """The file that also receives the report of a fatal error in
        gojax's Go code, appended (GOJAX_CRASH_OUTPUT; default None: stderr
        only, where a test runner capturing output may lose it). Read-only:
        set the variable before gojax loads."""
        return str(_pyapi.CrashOutput()) or None

    def as_dict(self) -> dict[str, Any]:
        """The current settings as a plain dict."""
        return {
            "worker_threads": self.worker_threads,
            "dump_dir": self.dump_dir,
            "debug_nans": self.debug_nans,
            "flush_denormals": self.flush_denormals,
            "num_devices": self.num_devices,
            "buffer_cache_bytes": self.buffer_cache_bytes,
            "memory_limit": self.memory_limit,
            "async_dispatch": self.async_dispatch,
            "inline_bytes": self.inline_bytes,
            "spin_us": self.spin_us,
            "vector": self.vector,
            "collective_timeout": self.collective_timeout,
            "spmd_partition": self.spmd_partition,
            "dataplane_host": self.dataplane_host,
            "dataplane_port": self.dataplane_port,
            "crash_output": self.crash_output,
        }

    def __repr__(self) -> str:
        items = ", ".join(f"{k}={v!r}" for k, v in self.as_dict().items())
        return f"gojax.Config({items})"


config = Config()


def api_pointer() -> int:
    """Address of the PJRT_Api table that GetPjrtApi returns."""
    ptr = int(_pyapi.APIPointer())
    if ptr == 0:
        raise RuntimeError("gojax: the library has no PJRT API table")
    return ptr


def pjrt_api_capsule() -> object:
    """A PyCapsule named "pjrt_c_api" holding the PJRT_Api pointer, the form
    jax's register_plugin(c_api=...) takes; JAX then uses this already-loaded
    library instead of opening a second copy."""
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
    return new(api_pointer(), _CAPSULE_NAME, None)
