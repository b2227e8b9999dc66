"""Helpers for the zero-copy interop tests: aligned host buffers, the dtype
table and a wait helper for releases that happen asynchronously (a module name
no other test directory uses)."""

from __future__ import annotations

import ctypes
import gc
import time

import ml_dtypes
import numpy as np

# Every dtype gojax stores, with how Arrow can carry it.
ALL_DTYPES = [
    np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
    np.int64, np.uint64, np.float16, ml_dtypes.bfloat16, np.float32, np.float64,
    np.complex64, np.complex128,
]
ARROW_ZERO_COPY_DTYPES = [
    np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
    np.uint64, np.float16, np.float32, np.float64,
]


def dtype_id(dt) -> str:
    return np.dtype(dt).name


def aligned_empty(shape, dtype, align: int = 64, offset: int = 0) -> np.ndarray:
    """An uninitialized C-contiguous array whose data sits `offset` bytes past an
    `align`-byte boundary (offset 0: aligned, as gojax zero-copy needs)."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + align + offset, np.uint8)
    start = (-raw.ctypes.data) % align + offset
    out = raw[start:start + nbytes].view(dtype).reshape(shape)
    assert nbytes == 0 or out.ctypes.data % align == offset % align
    return out


def sample(shape, dtype, align: int = 64, offset: int = 0) -> np.ndarray:
    """Distinct, exactly representable values of `dtype` in an aligned buffer."""
    out = aligned_empty(shape, dtype, align, offset)
    n = out.size
    vals = np.arange(n) % 100
    if np.dtype(dtype) == np.bool_:
        out[...] = (vals % 3 == 0).reshape(shape)
    elif np.dtype(dtype).kind == "c":
        out[...] = (vals + 1j * (vals % 7)).reshape(shape)
    else:
        out[...] = vals.reshape(shape).astype(dtype)
    return out


def wait_until(pred, timeout: float = 10.0) -> bool:
    """Polls pred (with gc.collect) until it holds: PJRT releases host buffers
    and external references from its own callbacks, not synchronously."""
    deadline = time.monotonic() + timeout
    while True:
        gc.collect()
        if pred():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)




def on_gojax(host, device):
    """A gojax array whose buffer gojax allocated itself. jax.device_put of a
    64-byte-aligned host array aliases the host memory instead (so gojax's
    allocator statistics would not see it); a misaligned source forces a copy."""
    import jax

    host = np.asarray(host)
    src = aligned_empty(host.shape, host.dtype, offset=8 if host.dtype.itemsize <= 8 else 16)
    src[...] = host
    x = jax.device_put(src, device)
    assert x.unsafe_buffer_pointer() != src.ctypes.data
    return x


class DLPackProducer:
    """A minimal DLPack producer over a NumPy array (torch's CPU wheel is not
    installable here; PyPI's torch bundles CUDA). It exports any dtype NumPy
    holds, bfloat16 included (DLPack code kDLBfloat), as a legacy or versioned
    capsule, and counts its deleter calls so tests can check lifetimes. Like a
    C producer's, its deleter outlives the producer object: the exported
    tensors' state lives in the module-level _EXPORTS."""

    _CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}

    def __init__(self, host: np.ndarray, versioned: bool = True, readonly: bool = False):
        self.host = host
        self.versioned = versioned
        self.readonly = readonly
        self.counts = {"exported": 0, "deleted": 0, "live": 0}

    exported = property(lambda self: self.counts["exported"])
    deleted = property(lambda self: self.counts["deleted"])
    live = property(lambda self: self.counts["live"])

    def __dlpack_device__(self):
        return (1, 0)

    def _dl_dtype(self):
        dt = self.host.dtype
        code = 4 if dt == ml_dtypes.bfloat16 else self._CODES[dt.kind]
        return code, dt.itemsize * 8

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        from gojax import interop as ip

        versioned = self.versioned and max_version is not None and tuple(max_version) >= (1, 0)
        ndim = self.host.ndim
        shape = (ctypes.c_int64 * max(ndim, 1))(*self.host.shape)
        strides = (ctypes.c_int64 * max(ndim, 1))(*(s // self.host.itemsize for s in self.host.strides))
        managed = (ip._DLManagedTensorVersioned if versioned else ip._DLManagedTensor)()
        t = managed.dl_tensor
        t.data = self.host.__array_interface__["data"][0]
        t.device_type, t.device_id, t.ndim = 1, 0, ndim
        t.code, t.bits = self._dl_dtype()
        t.lanes = 1
        t.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
        t.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
        managed.deleter = _DELETER_ADDR
        if versioned:
            managed.major, managed.minor = 1, 0
            managed.flags = 1 if self.readonly else 0
        addr = ctypes.addressof(managed)
        _EXPORTS[addr] = (self.counts, managed, shape, strides, self.host)
        self.counts["exported"] += 1
        self.counts["live"] += 1
        name = b"dltensor_versioned" if versioned else b"dltensor"
        return _capsule_new(addr, name, _CAPSULE_DTOR_ADDR)


_EXPORTS: dict[int, tuple] = {}


def _on_delete(addr):
    counts = _EXPORTS.pop(addr)[0]
    counts["deleted"] += 1
    counts["live"] -= 1


def _on_capsule_dead(capsule):
    # An unconsumed capsule still has its original name: delete it here.
    name = _capsule_get_name_raw(capsule)
    if name in (b"dltensor", b"dltensor_versioned"):
        _on_delete(_capsule_get_pointer_raw(capsule, name))


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(_on_delete)
_DELETER_ADDR = ctypes.cast(_DELETER, ctypes.c_void_p).value
_CAPSULE_DTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(_on_capsule_dead)
_CAPSULE_DTOR_ADDR = ctypes.cast(_CAPSULE_DTOR, ctypes.c_void_p).value
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
_capsule_get_name_raw = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_GetName", ctypes.pythonapi))
_capsule_get_pointer_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
