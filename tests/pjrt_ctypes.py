"""Calls gojax's PJRT C API table directly with ctypes, below jaxlib.

jaxlib parses MLIR itself before a program reaches a plugin, so this is the
way to hand gojax arbitrary program bytes. Slot offsets, struct sizes, field
offsets and enum values come from the PJRT C API 0.114 ABI table for x86-64
Linux (testdata/pjrt/pjrt-abi-0.114.txt), never from a copy here.
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import re

import gojax

ABI_TABLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "testdata", "pjrt", "pjrt-abi-0.114.txt")


@dataclasses.dataclass(frozen=True)
class Slot:
    name: str  # e.g. PJRT_Client_Compile
    offset: int  # in struct PJRT_Api
    returns_error: bool  # False for the two void error functions

    @property
    def args_struct(self) -> str:
        return self.name + "_Args"


class Abi:
    """The ABI table's API, SIZE, FIELD and ENUM lines."""

    def __init__(self, path: str = ABI_TABLE) -> None:
        self.slots: list[Slot] = []
        self.sizes: dict[str, int] = {}
        self.fields: dict[str, dict[str, tuple[int, int]]] = {}  # struct -> field -> (offset, size)
        self.pointees: dict[str, dict[str, str]] = {}  # struct -> field -> T, for fields "[const] T *name;"
        self.enums: dict[str, int] = {}
        with open(path) as f:
            for line in f:
                kind, _, rest = line.rstrip("\n").partition(" ")
                if kind == "API":
                    _, offset, name, _, signature = rest.split(" ", 4)
                    self.slots.append(Slot(name, int(offset), not signature.startswith("void ")))
                elif kind == "SIZE":
                    struct, size = rest.split()
                    self.sizes[struct] = int(size)
                elif kind == "FIELD":
                    struct, offset, size, decl = rest.split(" ", 3)
                    # "T name;", "T name[N];", "R (*name)(...);", "T name;   (union member)";
                    # a bare "union" line only announces its members.
                    m = re.search(r"\(\*(\w+)\)", decl) or re.search(r"(\w+)\s*(\[\d*\])?;", decl)
                    if m:
                        self.fields.setdefault(struct, {})[m.group(1)] = (int(offset), int(size))
                    p = re.fullmatch(r"(?:const )?(\w+) \*(\w+);", decl)
                    if p:
                        self.pointees.setdefault(struct, {})[p.group(2)] = p.group(1)
                elif kind == "ENUM":
                    name, value = rest.split()
                    self.enums[name] = int(value)
        self.slot = {s.name: s for s in self.slots}
        # Structs the table lists only by their fields: PJRT_STRUCT_SIZE is
        # the end of the last field.
        for struct, fields in self.fields.items():
            self.sizes.setdefault(struct, max(off + size for off, size in fields.values()))


ABI = Abi()

_FN = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)
_VOID_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_INT = {1: ctypes.c_uint8, 4: ctypes.c_uint32, 8: ctypes.c_uint64}


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


class Struct:
    """A zeroed instance of an ABI struct, its fields read and written by name."""

    def __init__(self, name: str, size: int | None = None) -> None:
        self.name = name
        self.buf = _args(ABI.sizes[name] if size is None else size)

    @property
    def address(self) -> int:
        return ctypes.addressof(self.buf)

    def _field(self, field: str):
        offset, size = ABI.fields[self.name][field]
        return _INT[size].from_address(self.address + offset)

    def __getitem__(self, field: str) -> int:
        return self._field(field).value

    def __setitem__(self, field: str, value: int) -> None:
        self._field(field).value = value


def _pointers(values) -> ctypes.Array:
    return (ctypes.c_void_p * max(len(values), 1))(*values)


class Api:
    def __init__(self) -> None:
        self.api = gojax.api_pointer()

    def extension(self, ext_type: int) -> int | None:
        """The address of the extension of that PJRT_Extension_Type in the
        chain from PJRT_Api.extension_start (the last one if several), else
        None. Each extension starts with struct_size, type (int32 at 8) and
        next (at 16)."""
        found = None
        ext = ctypes.c_void_p.from_address(self.api + 8).value  # PJRT_Api.extension_start
        while ext:
            if ctypes.c_int32.from_address(ext + 8).value == ext_type:
                found = ext
            ext = ctypes.c_void_p.from_address(ext + 16).value
        return found

    def function(self, slot: Slot):
        fn = ctypes.c_void_p.from_address(self.api + slot.offset).value
        if not fn:
            raise PjrtError(f"PJRT_Api slot {slot.name} is NULL")
        return (_FN if slot.returns_error else _VOID_FN)(fn)

    def error_text(self, err: int) -> str:
        """The message of a PJRT_Error, which is destroyed."""
        msg = Struct("PJRT_Error_Message_Args")
        msg["error"] = err
        self.function(ABI.slot["PJRT_Error_Message"])(msg.address)
        text = ctypes.string_at(msg["message"], msg["message_size"]).decode("utf-8", "replace")
        destroy = Struct("PJRT_Error_Destroy_Args")
        destroy["error"] = err
        self.function(ABI.slot["PJRT_Error_Destroy"])(destroy.address)
        return text

    def _check(self, err) -> None:
        if err:
            raise PjrtError(self.error_text(err))

    def call(self, slot: str, args) -> None:
        """Calls the slot named `slot` with an args struct; raises its error."""
        address = args.address if isinstance(args, Struct) else ctypes.addressof(args)
        self._check(self.function(ABI.slot[slot])(address))

    def _run(self, name: str, **fields) -> Struct:
        args = Struct(name + "_Args")
        for k, v in fields.items():
            args[k] = v
        self.call(name, args)
        return args

    def initialize(self) -> None:
        self._run("PJRT_Plugin_Initialize")

    def create_client(self) -> int:
        client = self._run("PJRT_Client_Create")["client"]
        if not client:
            raise PjrtError("PJRT_Client_Create returned no client")
        return client

    def destroy_client(self, client: int) -> None:
        self._run("PJRT_Client_Destroy", client=client)

    def platform_name(self, client: int) -> str:
        args = self._run("PJRT_Client_PlatformName", client=client)
        return ctypes.string_at(args["platform_name"], args["platform_name_size"]).decode()

    def device(self, client: int) -> int:
        args = self._run("PJRT_Client_AddressableDevices", client=client)
        return ctypes.c_void_p.from_address(args["addressable_devices"]).value

    def compile_loaded(self, client: int, code: bytes, fmt: bytes = b"mlir",
                       options: bytes = b"") -> int:
        """Compiles `code`; returns the loaded executable, or raises PjrtError
        with the plugin's message when compilation fails."""
        code_buf = ctypes.create_string_buffer(code, len(code))
        fmt_buf = ctypes.create_string_buffer(fmt, len(fmt))
        opt_buf = ctypes.create_string_buffer(options, len(options))
        program = Struct("PJRT_Program")
        program["code"], program["code_size"] = ctypes.addressof(code_buf), len(code)
        program["format"], program["format_size"] = ctypes.addressof(fmt_buf), len(fmt)
        exe = self._run("PJRT_Client_Compile", client=client, program=program.address,
                        compile_options=ctypes.addressof(opt_buf),
                        compile_options_size=len(options))["executable"]
        if not exe:
            raise PjrtError("PJRT_Client_Compile succeeded but returned no executable")
        return exe

    def destroy_loaded(self, exe: int) -> None:
        self._run("PJRT_LoadedExecutable_Destroy", executable=exe)

    def compile(self, client: int, code: bytes, fmt: bytes = b"mlir",
                options: bytes = b"") -> None:
        """Compiles `code` and destroys the executable."""
        self.destroy_loaded(self.compile_loaded(client, code, fmt, options))

    def num_outputs(self, exe: int) -> int:
        unloaded = self._run("PJRT_LoadedExecutable_GetExecutable", loaded_executable=exe)["executable"]
        try:
            return self._run("PJRT_Executable_NumOutputs", executable=unloaded)["num_outputs"]
        finally:
            self._run("PJRT_Executable_Destroy", executable=unloaded)

    def _await(self, event: int) -> None:
        """Waits for an event and destroys it; raises the event's error."""
        if not event:
            return
        try:
            self._run("PJRT_Event_Await", event=event)
        finally:
            self._run("PJRT_Event_Destroy", event=event)

    def buffer_from_host(self, client: int, device: int, data: bytes, type_name: str,
                         dims: tuple[int, ...]) -> int:
        """A buffer of element type PJRT_Buffer_Type_<type_name>."""
        host = ctypes.create_string_buffer(data, max(len(data), 1))
        dims_buf = (ctypes.c_int64 * max(len(dims), 1))(*dims)
        args = self._run("PJRT_Client_BufferFromHostBuffer", client=client, data=ctypes.addressof(host),
                         type=ABI.enums["PJRT_Buffer_Type_" + type_name],
                         dims=ctypes.addressof(dims_buf), num_dims=len(dims),
                         host_buffer_semantics=ABI.enums["PJRT_HostBufferSemantics_kImmutableOnlyDuringCall"],
                         device=device)
        self._await(args["done_with_host_buffer"])
        return args["buffer"]

    def execute(self, exe: int, buffers: list[int]) -> list[int]:
        """Runs `exe` on one device; returns its output buffers once done."""
        n_out = self.num_outputs(exe)
        options = Struct("PJRT_ExecuteOptions")
        arg_list = _pointers(buffers)
        arg_lists = _pointers([ctypes.addressof(arg_list)])
        out_list = (ctypes.c_void_p * max(n_out, 1))()
        out_lists = _pointers([ctypes.addressof(out_list)])
        done = (ctypes.c_void_p * 1)()
        self._run("PJRT_LoadedExecutable_Execute", executable=exe, options=options.address,
                  argument_lists=ctypes.addressof(arg_lists), num_devices=1, num_args=len(buffers),
                  output_lists=ctypes.addressof(out_lists), device_complete_events=ctypes.addressof(done))
        outs = [out_list[i] or 0 for i in range(n_out)]
        try:
            self._await(done[0] or 0)
        except PjrtError:
            for b in outs:
                self.destroy_buffer(b)
            raise
        return outs

    def to_host(self, buffer: int) -> bytes:
        size = self._run("PJRT_Buffer_ToHostBuffer", src=buffer)["dst_size"]
        dst = ctypes.create_string_buffer(max(size, 1))
        args = self._run("PJRT_Buffer_ToHostBuffer", src=buffer, dst=ctypes.addressof(dst), dst_size=size)
        self._await(args["event"])
        return dst.raw[:size]

    def destroy_buffer(self, buffer: int) -> None:
        if buffer:
            self._run("PJRT_Buffer_Destroy", buffer=buffer)
