"""Zero-copy exchange between gojax arrays and NumPy, DLPack producers and Arrow.

gojax devices keep array data in host memory (64-byte-aligned, row-major), so
other libraries can read it in place:

* ``np.asarray(x)`` and ``np.from_dlpack(x)`` already alias a gojax array (JAX
  pins the buffer with a PJRT external reference while the view lives).
* ``jax.device_put(a, gojax_device)`` aliases a C-contiguous NumPy array whose
  data is 64-byte aligned (kImmutableZeroCopy); anything else is copied.
* :func:`from_dlpack` lands any DLPack producer on a gojax device. JAX's own
  ``jax.dlpack.from_dlpack`` maps every kDLCPU tensor to the XLA "cpu"
  backend: without ``device=`` the result is on XLA's CPU device, not gojax,
  and with ``JAX_PLATFORMS=gojax`` it fails ("Unknown backend cpu").
* :func:`to_arrow` / :func:`from_arrow` cross the Arrow C Data Interface
  through Apache Arrow Go v15's cdata (go/interop/arrowx). The exported
  ArrowArray's values buffer is the gojax buffer itself; its release callback
  drops the owner registered here, a NumPy view that holds JAX's external
  reference, so the memory outlives ``del x`` and even ``x.delete()`` until
  every Arrow consumer has released it. An import hands gojax the producer's
  buffer, held (through a NumPy view) until the gojax array is gone.
"""

from __future__ import annotations

import atexit
import ctypes
import itertools
import threading
from typing import Any

import numpy as np

from ._library import _pyapi, in_forked_child

# gojax's allocator alignment; the runtime aliases host memory only at this
# alignment (go/engine/transfer.go), so it is also from_arrow's zero-copy test.
ALIGNMENT = 64

# Arrow has no type laid out like these gojax dtypes: bool is bit-packed in
# Arrow (one byte per element in gojax); bfloat16 and complex have no Arrow
# primitive at all.
_ARROW_DTYPES = frozenset(
    "int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 float32 float64".split()
)

__all__ = [
    "ALIGNMENT",
    "ArrowTensor",
    "from_arrow",
    "from_dlpack",
    "live_arrow_exports",
    "live_arrow_imports",
    "to_arrow",
]


# ---------------------------------------------------------------- owners ---

_owners: dict[int, Any] = {}
# Reentrant: dropping an owner can run the garbage collector, which may release
# another Arrow import and so re-enter _on_release on this thread.
_owners_lock = threading.RLock()
_handles = itertools.count(1)


def _register(owner: Any) -> int:
    with _owners_lock:
        h = next(_handles)
        _owners[h] = owner
    return h


def _on_release(handle: int) -> None:
    # Runs inside an ArrowArray release callback, possibly on a consumer's
    # thread (ctypes takes the GIL). Popping may free the last view of the
    # buffer; that only drops a PJRT external reference.
    with _owners_lock:
        owner = _owners.pop(handle, None)
    del owner


_RELEASE_HOOK = ctypes.CFUNCTYPE(None, ctypes.c_int64)(_on_release)
_RELEASE_HOOK_ADDR = ctypes.cast(_RELEASE_HOOK, ctypes.c_void_p).value


@atexit.register
def _disable_hooks() -> None:
    # Arrays still alive at exit are released during finalization, when a
    # callback into Python is no longer safe; their memory dies with the process.
    # A forked child cannot reach Go, and its hooks never run anyway.
    if not in_forked_child():
        _pyapi.ArrowSetHooksEnabled(False)


def live_arrow_exports() -> int:
    """How many Arrow exports are still held by a consumer (for tests and leak checks)."""
    with _owners_lock:
        return len(_owners)


def live_arrow_imports() -> int:
    """How many Arrow imports gojax still holds (for tests and leak checks)."""
    return int(_pyapi.ArrowLiveImports())


# ------------------------------------------------------------- devices ---


def _gojax_device(device: Any = None) -> Any:
    import jax

    if device is None:
        return jax.devices("gojax")[0]
    if isinstance(device, jax.sharding.Sharding):
        devs = device.device_set
        if len(devs) != 1:
            raise ValueError(f"gojax: expected a single-device sharding, got {len(devs)} devices")
        (device,) = devs
    if _platform_of(device) != "gojax":
        raise ValueError(f"gojax: {device!r} is not a gojax device")
    return device


def _platform_of(device: Any) -> str:
    # gojax devices report platform "cpu" (so JAX takes its host-memory fast
    # paths); membership in the "gojax" backend is what tells them apart.
    import jax

    try:
        if device in jax.devices("gojax"):
            return "gojax"
    except RuntimeError:  # the gojax backend failed to load
        pass
    return str(device.platform)


# --------------------------------------------------------------- arrow ----


def _pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError as e:  # pragma: no cover - pyarrow is a test requirement
        raise ImportError("gojax: Arrow interop needs pyarrow (pip install pyarrow)") from e
    return pyarrow


def _export_source(x: Any) -> tuple[np.ndarray, str]:
    """The host view of x to export (the owner) and its dtype name."""
    import jax

    if not isinstance(x, jax.Array):
        raise TypeError(f"gojax.to_arrow: expected a jax.Array, got {type(x).__name__}")
    devs = x.devices()
    if len(devs) != 1 or _platform_of(next(iter(devs))) != "gojax":
        raise ValueError(
            f"gojax.to_arrow: the array must live on one gojax device, not {sorted(map(str, devs))}; "
            "use jax.device_put(x, jax.devices('gojax')[0]) first"
        )
    view = np.asarray(x)
    if view.size and view.ctypes.data != x.unsafe_buffer_pointer():
        # np.asarray copied: the export would not share x's memory.
        raise RuntimeError("gojax.to_arrow: NumPy could not view the gojax buffer in place")
    return view, view.dtype.name


def _export_structs(view: np.ndarray, dtype: str) -> tuple[int, int]:
    """Fills freshly allocated ArrowSchema/ArrowArray structs aliasing view.
    The caller owns both addresses and must free them with _free_structs."""
    shape = view.shape if view.ndim else (1,)
    shape_s = ",".join(str(int(d)) for d in shape)
    schema, array = int(_pyapi.ArrowNewSchema()), int(_pyapi.ArrowNewArray())
    try:
        handle = _register(view)
        try:
            _pyapi.ArrowExportArray(array, schema, view.ctypes.data, dtype, shape_s, handle, _RELEASE_HOOK_ADDR)
        except BaseException:
            _on_release(handle)  # a failed export never calls the hook
            raise
    except BaseException:
        _free_structs(schema, array)
        raise
    return schema, array


def _free_structs(schema: int, array: int) -> None:
    # Frees the struct shells; one still owned (never moved out by a consumer)
    # is released first, which unregisters its owner.
    _pyapi.ArrowFreeArray(array)
    _pyapi.ArrowFreeSchema(schema)


def _check_arrow_dtype(dtype: str, copy: bool | None) -> None:
    if dtype in _ARROW_DTYPES:
        return
    if dtype == "bool" and copy is not False:
        return
    if dtype == "bool":
        raise ValueError(
            "gojax.to_arrow: bool arrays cannot be shared with Arrow (Arrow packs booleans "
            "into bits; gojax stores one byte each); pass copy=None or copy=True to convert"
        )
    raise TypeError(
        f"gojax.to_arrow: dtype {dtype} has no Arrow equivalent (supported: bool (copied), "
        "int8..int64, uint8..uint64, float16, float32, float64)"
    )


def to_arrow(x: Any, *, copy: bool | None = None) -> Any:
    """A pyarrow array sharing the memory of the gojax array ``x``.

    1-D (and 0-d, as length 1) arrays become a primitive ``pyarrow.Array``;
    N-D arrays a ``pyarrow.FixedShapeTensorArray`` of length ``x.shape[0]``
    whose elements have shape ``x.shape[1:]``. The Arrow data keeps the gojax
    buffer alive after ``del x`` or ``x.delete()``.

    ``copy``: None shares memory where Arrow's layout allows and converts
    otherwise (bool only: Arrow booleans are bit-packed); False raises instead
    of converting; True always returns an independent copy. bfloat16 and
    complex dtypes have no Arrow type and raise TypeError.
    """
    pa = _pyarrow()
    view, dtype = _export_source(x)
    _check_arrow_dtype(dtype, copy)
    if dtype == "bool" or _empty_rows(view.shape):
        return _pyarrow_tensor(pa, view)
    if copy:
        view = np.array(view, copy=True)
    schema, array = _export_structs(view, dtype)
    try:
        return pa.Array._import_from_c(array, schema)
    finally:
        _free_structs(schema, array)


def _empty_rows(shape: tuple[int, ...]) -> bool:
    # Rows of no elements: Arrow Go v15 has no fixed_size_list of size 0
    # (arrow.FixedSizeListOf panics), so pyarrow builds these; no data to share.
    return len(shape) > 1 and 0 in shape[1:]


def _pyarrow_tensor(pa: Any, host: np.ndarray) -> Any:
    """host converted by pyarrow: bool (packing one byte per element into
    Arrow's bitmap is the copy) and tensors with empty rows."""
    typ = pa.from_numpy_dtype(host.dtype)
    flat = pa.array(host.reshape(-1), type=typ)
    if host.ndim <= 1:
        return flat
    inner = int(np.prod(host.shape[1:]))
    storage = pa.FixedSizeListArray.from_arrays(flat, list_size=inner) if inner else pa.array(
        [[]] * host.shape[0], type=pa.list_(typ, 0)
    )
    return pa.ExtensionArray.from_storage(pa.fixed_shape_tensor(typ, list(host.shape[1:])), storage)


class ArrowTensor:
    """A gojax array exposed through the Arrow PyCapsule interface.

    ``pyarrow.array(ArrowTensor(x))`` (or any consumer of
    ``__arrow_c_array__``) imports it without copying. Each call exports a
    fresh pair of capsules; the gojax buffer stays alive until every
    consumer releases its import.
    """

    def __init__(self, x: Any):
        self._view, self._dtype = _export_source(x)
        _check_arrow_dtype(self._dtype, False)
        # Nothing to share in rows of no elements; pyarrow exports those.
        self._empty = _pyarrow_tensor(_pyarrow(), self._view) if _empty_rows(self._view.shape) else None

    def __arrow_c_schema__(self) -> object:
        if self._empty is not None:
            return self._empty.type.__arrow_c_schema__()
        schema = int(_pyapi.ArrowNewSchema())
        shape = self._view.shape if self._view.ndim else (1,)
        try:
            _pyapi.ArrowExportSchema(schema, self._dtype, ",".join(map(str, shape)))
        except BaseException:
            _pyapi.ArrowFreeSchema(schema)
            raise
        return _capsule(schema, _SCHEMA_NAME, _FREE_SCHEMA)

    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]:
        if requested_schema is not None:
            # Casting would copy; the consumer can cast the imported array itself.
            want = _pyarrow().DataType._import_from_c_capsule(requested_schema)
            have = _pyarrow().DataType._import_from_c_capsule(self.__arrow_c_schema__())
            if want != have:
                raise ValueError(f"gojax.ArrowTensor: cannot export {have} as {want} without a copy")
        if self._empty is not None:
            return self._empty.__arrow_c_array__()
        schema, array = _export_structs(self._view, self._dtype)
        return _capsule(schema, _SCHEMA_NAME, _FREE_SCHEMA), _capsule(array, _ARRAY_NAME, _FREE_ARRAY)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._view.shape)

    @property
    def dtype(self) -> np.dtype:
        return self._view.dtype


# PyCapsule names must outlive the capsules.
_SCHEMA_NAME = b"arrow_schema"
_ARRAY_NAME = b"arrow_array"
_FREE_SCHEMA = int(_pyapi.ArrowCapsuleDestructor(False))
_FREE_ARRAY = int(_pyapi.ArrowCapsuleDestructor(True))
_pyapi.ArrowSetCapsuleGetPointer(ctypes.cast(ctypes.pythonapi.PyCapsule_GetPointer, ctypes.c_void_p).value)
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)


def _capsule(addr: int, name: bytes, destructor: int) -> object:
    try:
        return _capsule_new(addr, name, destructor)
    except BaseException:
        (_pyapi.ArrowFreeArray if name == _ARRAY_NAME else _pyapi.ArrowFreeSchema)(addr)
        raise


def _as_single_array(pa: Any, a: Any) -> Any:
    if isinstance(a, pa.ChunkedArray):
        if a.num_chunks == 1:
            return a.chunk(0)
        # Several chunks are several buffers: one copy into a single buffer.
        return a.combine_chunks() if a.num_chunks else pa.array([], type=a.type)
    if isinstance(a, pa.Array):
        return a
    if hasattr(a, "__arrow_c_array__"):
        return pa.array(a)
    if hasattr(a, "__arrow_c_stream__"):
        return _as_single_array(pa, pa.chunked_array(a))
    raise TypeError(
        f"gojax.from_arrow: expected a pyarrow Array or ChunkedArray (or an Arrow "
        f"PyCapsule producer), got {type(a).__name__}"
    )


def _value_type(pa: Any, typ: Any) -> Any:
    if isinstance(typ, pa.BaseExtensionType):
        typ = typ.storage_type
    return typ.value_type if pa.types.is_fixed_size_list(typ) else typ


def _fill_bits(pa: Any, typ: Any, fill_value: Any) -> tuple[bool, int]:
    """fill_value as gojax's import wants it: its little-endian bit pattern in
    the array's dtype."""
    if fill_value is None:
        return False, 0
    value = _value_type(pa, typ)
    if not (pa.types.is_boolean(value) or pa.types.is_integer(value) or pa.types.is_floating(value)):
        return True, 0  # the import refuses the type itself
    dtype = np.dtype(value.to_pandas_dtype())
    return True, int.from_bytes(np.asarray(fill_value, dtype=dtype).tobytes(), "little")


class _ArrowImport:
    """One array imported by gojax (go/interop/arrowx): NumPy views keep this
    object as their base, and dropping the last one releases the import (the
    producer's release callback runs, or gojax's converted copy is freed)."""

    def __init__(self, handle: int):
        self._handle = handle
        shape = tuple(int(d) for d in _pyapi.ArrowImportShape(handle).split(","))
        self.dtype = np.dtype(_pyapi.ArrowImportDType(handle))
        self.copied = bool(_pyapi.ArrowImportCopied(handle))
        self.__array_interface__ = {
            "version": 3,
            "shape": shape,
            "typestr": self.dtype.str,
            "data": (int(_pyapi.ArrowImportData(handle)), True),
        }

    def release(self) -> None:
        handle, self._handle = self._handle, 0
        if handle:
            _pyapi.ArrowImportRelease(handle)

    def __del__(self) -> None:
        try:
            self.release()
        except Exception:  # pragma: no cover - interpreter teardown
            pass


_IMPORT_ERRORS = (("TypeError: ", TypeError), ("ValueError: ", ValueError))


def _import_view(pa: Any, arr: Any, fill_value: Any) -> np.ndarray:
    """A NumPy view of arr's values imported by gojax through the C Data
    Interface: the producer's memory when there is nothing to convert."""
    has_fill, bits = _fill_bits(pa, arr.type, fill_value)
    schema, array = arr.__arrow_c_array__()
    try:
        handle = _pyapi.ArrowImport(
            _capsule_get_pointer(array, _ARRAY_NAME), _capsule_get_pointer(schema, _SCHEMA_NAME), has_fill, bits
        )
    except RuntimeError as e:
        msg = str(e)
        for prefix, cls in _IMPORT_ERRORS:
            if msg.startswith(prefix):
                raise cls("gojax.from_arrow: " + msg[len(prefix):]) from None
        raise
    owner = _ArrowImport(int(handle))
    shape = owner.__array_interface__["shape"]
    if 0 in shape:
        owner.release()
        return np.empty(shape, owner.dtype)
    return np.asarray(owner)


def _fallback_view(pa: Any, arr: Any, fill_value: Any) -> np.ndarray | None:
    """What Arrow Go v15 cannot import, converted by pyarrow (one copy):
    tensors stored transposed (a permutation; gojax does not transpose) and
    fixed_size_list<T>[0] storage (Arrow Go has no list of size 0). None when
    gojax imports arr itself."""
    typ = arr.type
    if isinstance(typ, pa.FixedShapeTensorType):
        perm = typ.permutation
        if perm is not None and list(perm) != sorted(perm):
            return arr.to_numpy_ndarray()
    storage = arr.storage if isinstance(typ, pa.BaseExtensionType) else arr
    if not (pa.types.is_fixed_size_list(storage.type) and storage.type.list_size == 0):
        return None
    if storage.null_count and fill_value is None:
        raise ValueError(
            f"gojax.from_arrow: the tensor array has {storage.null_count} null element(s); "
            "pass fill_value= to replace them (this copies)"
        )
    row = tuple(typ.shape) if isinstance(typ, pa.FixedShapeTensorType) else (0,)
    return np.empty((len(arr), *row), np.dtype(_value_type(pa, typ).to_pandas_dtype()))


def from_arrow(a: Any, device: Any = None, fill_value: Any = None) -> Any:
    """A jax.Array on a gojax device holding the values of an Arrow array.

    Accepts a pyarrow Array, ChunkedArray (e.g. a table column),
    FixedShapeTensorArray (N-D result) or any Arrow PyCapsule producer. The
    result aliases the Arrow buffer (no copy) when it is a single chunk without
    nulls whose values start at a 64-byte-aligned address and whose dtype JAX
    keeps (64-bit types need jax_enable_x64); otherwise the data is copied
    once. Nulls raise ValueError unless ``fill_value`` replaces them. The
    Arrow memory stays alive as long as the result does.
    """
    import jax

    pa = _pyarrow()
    dev = _gojax_device(device)
    arr = _as_single_array(pa, a)
    host = _fallback_view(pa, arr, fill_value)
    if host is None:
        host = _import_view(pa, arr, fill_value)
    return jax.device_put(host, dev)


# -------------------------------------------------------------- dlpack ----


def from_dlpack(obj: Any, device: Any = None) -> Any:
    """A jax.Array on a gojax device from any DLPack producer on the host.

    Aliases the producer's memory when it is C-contiguous and 64-byte aligned
    (the producer's deleter runs once the result is gone), otherwise copies
    once. Unlike ``jax.dlpack.from_dlpack``, this lands on gojax by default,
    works when JAX's XLA "cpu" backend is not loaded (JAX_PLATFORMS=gojax) and
    takes bfloat16 from any producer (NumPy's DLPack import rejects it).
    """
    import jax

    dev = _gojax_device(device)
    if isinstance(obj, jax.Array):
        # jax arrays export every dtype (bfloat16 too, which NumPy's DLPack
        # import rejects); on host backends np.asarray is already a view.
        if len(obj.devices()) != 1:
            raise ValueError("gojax.from_dlpack: the array must live on one device")
        view = np.asarray(obj)
    else:
        if not hasattr(obj, "__dlpack__"):
            raise TypeError(f"gojax.from_dlpack: {type(obj).__name__} has no __dlpack__")
        view = _dlpack_view(obj)
    return jax.device_put(view, dev)


# gojax's own DLPack consumer: np.from_dlpack rejects bfloat16 (torch's bf16
# tensors) and other ml_dtypes, so from_dlpack reads the managed tensor itself.
# The structs are the DLPack ABI (dlpack.h, legacy and v1.x versioned).


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device_type", ctypes.c_int32),
        ("device_id", ctypes.c_int32),
        ("ndim", ctypes.c_int32),
        ("code", ctypes.c_uint8),
        ("bits", ctypes.c_uint8),
        ("lanes", ctypes.c_uint16),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("major", ctypes.c_uint32),
        ("minor", ctypes.c_uint32),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", _DLTensor),
    ]


_DLPACK_READ_ONLY = 1
_DL_CPU = 1
_DL_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_capsule_get_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_get_name.restype = ctypes.c_char_p
_capsule_get_name.argtypes = (ctypes.py_object,)
_capsule_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_get_pointer.restype = ctypes.c_void_p
_capsule_get_pointer.argtypes = (ctypes.py_object, ctypes.c_char_p)
_capsule_set_name = ctypes.pythonapi.PyCapsule_SetName
_capsule_set_name.restype = ctypes.c_int
_capsule_set_name.argtypes = (ctypes.py_object, ctypes.c_char_p)
# Capsule names are kept by pointer: these bytes must live forever.
_USED_NAMES = {b"dltensor": b"used_dltensor", b"dltensor_versioned": b"used_dltensor_versioned"}


def _dl_dtype(code: int, bits: int, lanes: int) -> np.dtype:
    import ml_dtypes

    if lanes != 1:
        raise BufferError(f"gojax.from_dlpack: vector dtypes (lanes={lanes}) are not supported")
    table = {
        (0, 8): np.int8, (0, 16): np.int16, (0, 32): np.int32, (0, 64): np.int64,
        (1, 8): np.uint8, (1, 16): np.uint16, (1, 32): np.uint32, (1, 64): np.uint64,
        (2, 16): np.float16, (2, 32): np.float32, (2, 64): np.float64,
        (4, 16): ml_dtypes.bfloat16,
        (5, 64): np.complex64, (5, 128): np.complex128,
        (6, 8): np.bool_,
    }
    if (code, bits) not in table:
        raise BufferError(f"gojax.from_dlpack: unsupported DLPack dtype (code {code}, {bits} bits)")
    return np.dtype(table[(code, bits)])


class _DLPackOwner:
    """Owns an imported DLManagedTensor: NumPy views of it keep this object as
    their base, and dropping the last view calls the producer's deleter once."""

    def __init__(self, capsule: object, name: bytes):
        versioned = name == b"dltensor_versioned"
        addr = _capsule_get_pointer(capsule, name)
        if not addr:
            raise BufferError("gojax.from_dlpack: empty DLPack capsule")
        cls = _DLManagedTensorVersioned if versioned else _DLManagedTensor
        managed = cls.from_address(addr)
        if versioned and managed.major != 1:
            raise BufferError(f"gojax.from_dlpack: unsupported DLPack version {managed.major}.{managed.minor}")
        # Take ownership: a renamed capsule no longer calls the deleter.
        if _capsule_set_name(capsule, _USED_NAMES[name]) != 0:
            raise BufferError("gojax.from_dlpack: could not take the DLPack capsule")
        self._addr = addr
        self._deleter = managed.deleter
        t = managed.dl_tensor
        readonly = bool(versioned and managed.flags & _DLPACK_READ_ONLY)
        if t.device_type != _DL_CPU:
            self._release()
            raise BufferError(f"gojax.from_dlpack: DLPack device type {t.device_type} is not host memory (kDLCPU)")
        try:
            self.dtype = _dl_dtype(t.code, t.bits, t.lanes)
        except BufferError:
            self._release()
            raise
        shape = tuple(t.shape[i] for i in range(t.ndim))
        item = self.dtype.itemsize
        strides = None if not t.strides else tuple(t.strides[i] * item for i in range(t.ndim))
        # Plain unsigned/void storage of the same size; the caller views it as dtype.
        storage = {1: "|u1", 2: "<u2", 4: "<u4", 8: "<u8"}.get(item, f"|V{item}")
        self.__array_interface__ = {
            "version": 3,
            "shape": shape,
            "typestr": storage,
            "strides": strides,
            "data": ((t.data or 0) + t.byte_offset, readonly),
        }

    def _release(self) -> None:
        deleter, self._deleter = self._deleter, None
        if deleter:
            _DL_DELETER(deleter)(self._addr)

    def __del__(self) -> None:
        self._release()


def _dlpack_view(obj: Any) -> np.ndarray:
    """A read-through NumPy view of obj's DLPack export (any dtype, strides kept)."""
    try:
        capsule = obj.__dlpack__(max_version=(1, 0))
    except TypeError:
        capsule = obj.__dlpack__()
    name = _capsule_get_name(capsule)
    if name not in _USED_NAMES:
        raise BufferError(f"gojax.from_dlpack: __dlpack__ returned a capsule named {name!r}")
    owner = _DLPackOwner(capsule, name)
    return np.asarray(owner).view(owner.dtype)
