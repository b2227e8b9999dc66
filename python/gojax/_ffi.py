"""Routes jax.ffi.register_ffi_target(..., platform="cpu") to gojax.

jaxlib hands every custom-call target registered for "cpu" to the handler
installed for XLA's platform name "Host"; XLA's CPU client installs one that
writes into XLA's in-process registry, which gojax cannot read. install()
puts a handler there that does what XLA's does and also registers typed FFI
handlers (api_version 1) with gojax's registry (go/kernels/ffi), so a handler
runs on gojax and on XLA:CPU alike. FFI types registered for "cpu"
(jax.ffi.register_ffi_type) take the same route.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any, Callable

from ._library import _pyapi

_HOST = "Host"
_STAGES = ("instantiate", "prepare", "initialize", "execute")
_lock = threading.Lock()
_installed = False

_get_name = ctypes.pythonapi.PyCapsule_GetName
_get_name.restype = ctypes.c_char_p
_get_name.argtypes = [ctypes.py_object]
_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _address(capsule: Any, what: str) -> int:
    try:
        return int(_get_pointer(capsule, _get_name(capsule)) or 0)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{what} must be a PyCapsule holding a function pointer") from err


def register_target(name: str, fn: Any, platform: str = _HOST, api_version: int = 1, traits: Any = 0) -> None:
    """Register a typed FFI handler (a capsule, or a dict of stage name to
    capsule) with gojax. Untyped custom calls (api_version 0) are XLA's
    alone: gojax does not run them, and a program calling one fails to
    compile on gojax naming the target."""
    if api_version != 1:
        return
    stages = fn if isinstance(fn, dict) else {"execute": fn}
    unknown = set(stages) - set(_STAGES)
    if unknown:
        raise ValueError(f"FFI target {name!r}: unknown stage(s) {sorted(unknown)}; stages are {list(_STAGES)}")
    addrs = {s: _address(c, f"stage {s!r} of FFI target {name!r}") for s, c in stages.items()}
    if not addrs.get("execute"):
        raise ValueError(f"FFI target {name!r} has no execute handler")
    bits = int(getattr(traits, "value", traits) or 0)
    _pyapi.RegisterFFITarget(
        name,
        platform,
        addrs.get("instantiate", 0),
        addrs.get("prepare", 0),
        addrs.get("initialize", 0),
        addrs["execute"],
        bits,
    )


def register_type(name: str, registration: Any) -> None:
    """Register an FFI type with gojax: registration is a type-id capsule or
    jax.ffi's {"type_id": capsule, "type_info": capsule} dict. An id XLA
    already wrote into the type id is kept, so both runtimes agree."""
    if isinstance(registration, dict):
        type_id = _address(registration["type_id"], f"type_id of FFI type {name!r}")
        info = registration.get("type_info")
        deleter = 0
        if info is not None:
            # XLA_FFI_TypeInfo: struct_size, extension_start, deleter.
            deleter = int(ctypes.c_void_p.from_address(_address(info, f"type_info of FFI type {name!r}") + 16).value or 0)
    else:
        type_id, deleter = _address(registration, f"type id of FFI type {name!r}"), 0
    _pyapi.RegisterFFIType(name, type_id, deleter)


def install() -> None:
    """Install the "Host" custom-call and type handlers (once). Targets
    registered before this ran were queued by jaxlib and arrive now."""
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    from jaxlib import xla_client

    xla = xla_client._xla  # what XLA's CPU client installs as its handlers

    def target_handler(prev: Callable[..., None]) -> Callable[..., None]:
        def handler(name: str, fn: Any, platform: str, api_version: int, traits: Any) -> None:
            prev(name, fn, platform, api_version, traits)
            register_target(name, fn, platform, api_version, traits)

        return handler

    def type_handler(prev: Callable[..., None]) -> Callable[..., None]:
        def handler(name: str, registration: Any) -> None:
            prev(name, registration)
            register_type(name, registration)

        return handler

    _chain(xla_client, "_custom_callback_handler", xla_client.register_custom_call_handler,
           target_handler, xla.register_custom_call_target)
    _chain(xla_client, "_custom_type_id_handler", xla_client.register_custom_type_handler,
           type_handler, xla.register_custom_type)


def _chain(xla_client: Any, table: str, register: Callable[..., None],
           wrap: Callable[[Callable[..., None]], Callable[..., None]], xla_handler: Callable[..., None]) -> None:
    handlers = getattr(xla_client, table, {})  # jaxlib's private table, read when present
    existing = handlers.get(_HOST)
    if existing is None:
        # XLA's CPU client, created later, finds this one and keeps it.
        register("cpu", wrap(xla_handler))
    else:
        # XLA's CPU client came first; its earlier targets reached XLA only.
        handlers[_HOST] = wrap(existing)
