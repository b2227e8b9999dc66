"""Calls gojax's PJRT C API table directly with ctypes, below jaxlib.

jaxlib parses MLIR itself before a program reaches a plugin, so this is the
way to hand gojax arbitrary program bytes. Offsets are the PJRT C API 0.114
ABI on x86-64 Linux (testdata/pjrt/pjrt-abi-0.114.txt).
"""

from __future__ import annotations

import ctypes

import gojax

# PJRT_Api function slots (byte offsets).
_ERROR_DESTROY = 40
_ERROR_MESSAGE = 48
_PLUGIN_INITIALIZE = 64
_CLIENT_CREATE = 120
_CLIENT_DESTROY = 128
_CLIENT_PLATFORM_NAME = 136
_CLIENT_COMPILE = 200
_LOADED_EXECUTABLE_DESTROY = 440

_FN = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)
_VOID_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class PjrtError(Exception):
    pass


def _args(size: int) -> ctypes.Array:
    """A zeroed args struct of `size` bytes with struct_size set."""
    buf = (ctypes.c_uint64 * ((size + 7) // 8))()
    buf[0] = size
    return buf


def _ptr(buf, offset: int) -> int:
    return ctypes.c_uint64.from_address(ctypes.addressof(buf) + offset).value


def _set(buf, offset: int, value: int) -> None:
    ctypes.c_uint64.from_address(ctypes.addressof(buf) + offset).value = value


class Api:
    def __init__(self) -> None:
        self.api = gojax.api_pointer()

    def _slot(self, offset: int, proto=_FN):
        fn = ctypes.c_void_p.from_address(self.api + offset).value
        if not fn:
            raise PjrtError(f"PJRT_Api slot at offset {offset} is NULL")
        return proto(fn)

    def _check(self, err) -> None:
        if not err:
            return
        msg = _args(40)
        _set(msg, 16, err)
        self._slot(_ERROR_MESSAGE, _VOID_FN)(ctypes.addressof(msg))
        text = ctypes.string_at(_ptr(msg, 24), _ptr(msg, 32)).decode("utf-8", "replace")
        destroy = _args(24)
        _set(destroy, 16, err)
        self._slot(_ERROR_DESTROY, _VOID_FN)(ctypes.addressof(destroy))
        raise PjrtError(text)

    def call(self, offset: int, args) -> None:
        self._check(self._slot(offset)(ctypes.addressof(args)))

    def initialize(self) -> None:
        self.call(_PLUGIN_INITIALIZE, _args(16))

    def create_client(self) -> int:
        args = _args(88)
        self.call(_CLIENT_CREATE, args)
        client = _ptr(args, 64)
        if not client:
            raise PjrtError("PJRT_Client_Create returned no client")
        return client

    def destroy_client(self, client: int) -> None:
        args = _args(24)
        _set(args, 16, client)
        self.call(_CLIENT_DESTROY, args)

    def platform_name(self, client: int) -> str:
        args = _args(40)
        _set(args, 16, client)
        self.call(_CLIENT_PLATFORM_NAME, args)
        return ctypes.string_at(_ptr(args, 24), _ptr(args, 32)).decode()

    def compile(self, client: int, code: bytes, fmt: bytes = b"mlir",
                options: bytes = b"") -> None:
        """Compiles `code` and destroys the executable; raises PjrtError with
        the plugin's message when compilation fails."""
        code_buf = ctypes.create_string_buffer(code, len(code))
        fmt_buf = ctypes.create_string_buffer(fmt, len(fmt))
        opt_buf = ctypes.create_string_buffer(options, len(options))
        program = _args(48)
        _set(program, 16, ctypes.addressof(code_buf))
        _set(program, 24, len(code))
        _set(program, 32, ctypes.addressof(fmt_buf))
        _set(program, 40, len(fmt))
        args = _args(56)
        _set(args, 16, client)
        _set(args, 24, ctypes.addressof(program))
        _set(args, 32, ctypes.addressof(opt_buf))
        _set(args, 40, len(options))
        self.call(_CLIENT_COMPILE, args)
        exe = _ptr(args, 48)
        if not exe:
            raise PjrtError("PJRT_Client_Compile succeeded but returned no executable")
        destroy = _args(24)
        _set(destroy, 16, exe)
        self.call(_LOADED_EXECUTABLE_DESTROY, destroy)
