"""Typed access to the gopy-generated binding of go/pyapi."""

from __future__ import annotations

import ctypes
import dataclasses
import gc
import json
import os
from typing import Any


def _load_binding():
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


def build_info() -> dict[str, Any]:
    """How the library was built: Go settings recorded by the linker
    ("go" key) and the build backend's record of steps and flags ("build")."""
    settings: dict[str, str] = {}
    lines = str(_pyapi.BuildInfo()).splitlines()
    for line in lines[2:]:
        key, sep, value = line.partition("=")
        if sep:
            settings[key] = value
    with open(os.path.join(_BINDING_DIR, "build_log.json"), encoding="utf-8") as f:
        build = json.load(f)
    return {
        "version": version(),
        "go_version": lines[1].split()[1] if len(lines) > 1 else "",
        "go": settings,
        "build": build,
        "library": library_path(),
    }


@dataclasses.dataclass(frozen=True)
class Stats:
    """A snapshot of gojax's runtime counters."""

    bytes_in_use: int  # device memory allocated now
    peak_bytes: int  # highest bytes_in_use so far
    num_allocs: int  # device allocations ever made
    live_buffers: int  # device allocations not yet freed


def stats() -> Stats:
    s = _pyapi.ReadStats()
    return Stats(
        bytes_in_use=int(s.BytesInUse),
        peak_bytes=int(s.PeakBytes),
        num_allocs=int(s.NumAllocs),
        live_buffers=int(s.LiveBuffers),
    )


def set_worker_threads(n: int) -> None:
    """Limit the threads running gojax's Go code at once; n <= 0 restores the default."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"worker threads must be an int, not {type(n).__name__}")
    _pyapi.SetWorkerThreads(n)


def worker_threads() -> int:
    return int(_pyapi.WorkerThreads())


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
