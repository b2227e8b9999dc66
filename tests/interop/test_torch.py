"""PyTorch <-> gojax through DLPack, with pointer identity.

torch.from_dlpack(x) for a gojax array and jax.dlpack.from_dlpack(t,
device=gojax) / gojax.from_dlpack(t) for a torch tensor share memory; tensors
that are not contiguous or not 64-byte aligned are copied, not refused.
torch is installed by .ci/setup (.ci/requirements-torch.txt): nothing here is
skipped."""

from __future__ import annotations

import gc

import jax
import ml_dtypes
import numpy as np
import pytest
import torch

from interop_util import sample

# (NumPy dtype, torch dtype) pairs DLPack carries both ways.
PAIRS = [
    (np.bool_, torch.bool), (np.int8, torch.int8), (np.uint8, torch.uint8),
    (np.int16, torch.int16), (np.int32, torch.int32), (np.int64, torch.int64),
    (np.uint16, torch.uint16), (np.uint32, torch.uint32), (np.uint64, torch.uint64),
    (np.float16, torch.float16), (ml_dtypes.bfloat16, torch.bfloat16),
    (np.float32, torch.float32), (np.float64, torch.float64),
    (np.complex64, torch.complex64), (np.complex128, torch.complex128),
]
IDS = [str(t).removeprefix("torch.") for _, t in PAIRS]


def _torch_sample(shape, tdtype) -> torch.Tensor:
    t = torch.arange(int(np.prod(shape)), dtype=torch.int64).reshape(shape) % 100
    if tdtype == torch.bool:
        return t % 3 == 0
    return t.to(tdtype)


def _ptr(x: jax.Array) -> int:
    return x.unsafe_buffer_pointer()


@pytest.mark.parametrize("np_dtype,t_dtype", PAIRS, ids=IDS)
def test_torch_from_dlpack_shares_gojax_memory(gojax_device, x64, np_dtype, t_dtype):
    x = jax.device_put(sample((3, 5), np_dtype), gojax_device)
    t = torch.from_dlpack(x)
    assert t.dtype == t_dtype and tuple(t.shape) == (3, 5)
    assert t.data_ptr() == _ptr(x), "torch sees gojax's buffer, no copy"
    assert t.device.type == "cpu"
    want = torch.from_numpy(np.asarray(sample((3, 5), np_dtype)).view(np.uint16)) \
        if np_dtype is ml_dtypes.bfloat16 else None
    if want is None:
        np.testing.assert_array_equal(t.numpy(), sample((3, 5), np_dtype))
    else:
        assert torch.equal(t.view(torch.uint16), want)


@pytest.mark.parametrize("np_dtype,t_dtype", PAIRS, ids=IDS)
def test_jax_from_dlpack_torch_onto_gojax(gojax_device, x64, np_dtype, t_dtype):
    t = _torch_sample((4, 16), t_dtype)
    assert t.data_ptr() % 64 == 0, "torch's CPU allocator aligns to 64 bytes"
    x = jax.dlpack.from_dlpack(t, device=gojax_device)
    assert x.devices() == {gojax_device}
    assert _ptr(x) == t.data_ptr()
    assert x.dtype == np.dtype(np_dtype)
    np.testing.assert_array_equal(np.asarray(x).astype(np.float64) if np_dtype is ml_dtypes.bfloat16
                                  else np.asarray(x),
                                  t.to(torch.float64).numpy() if t_dtype == torch.bfloat16 else t.numpy())


@pytest.mark.parametrize("np_dtype,t_dtype", PAIRS, ids=IDS)
def test_gojax_from_dlpack_torch(gojax_device, interop, x64, np_dtype, t_dtype):
    t = _torch_sample((2, 8), t_dtype)
    x = interop.from_dlpack(t)
    assert x.devices() == {gojax_device}
    assert _ptr(x) == t.data_ptr()


def test_non_contiguous_and_misaligned_tensors_are_copied(gojax_device, interop):
    base = torch.arange(64, dtype=torch.float32).reshape(8, 8)
    transposed = base.T  # not row-major
    shifted = base.reshape(-1)[1:33]  # 4 bytes past a 64-byte boundary
    for t in (transposed, shifted):
        for x in (jax.dlpack.from_dlpack(t, device=gojax_device), interop.from_dlpack(t)):
            assert x.devices() == {gojax_device}
            assert _ptr(x) != t.data_ptr()
            np.testing.assert_array_equal(np.asarray(x), t.numpy())


def test_lifetimes_either_side_first(gojax_device):
    # gojax array first: the torch view keeps the buffer alive.
    x = jax.device_put(np.arange(1 << 12, dtype=np.float32) + 1, gojax_device)
    t = torch.from_dlpack(x)
    ptr = t.data_ptr()
    del x
    gc.collect()
    assert t.data_ptr() == ptr and float(t.sum()) == float(np.arange(1 << 12).sum() + (1 << 12))
    del t
    gc.collect()

    # torch tensor first: the gojax array keeps torch's memory alive.
    t = torch.arange(1 << 12, dtype=torch.float32) * 3
    x = jax.dlpack.from_dlpack(t, device=gojax_device)
    ptr = t.data_ptr()
    del t
    gc.collect()
    assert _ptr(x) == ptr
    np.testing.assert_array_equal(np.asarray(x), np.arange(1 << 12, dtype=np.float32) * 3)


def test_round_trip_through_a_jitted_function(gojax_device):
    t = torch.linspace(-2, 2, 256, dtype=torch.float32)
    x = jax.dlpack.from_dlpack(t, device=gojax_device)
    y = jax.jit(lambda a: jax.numpy.tanh(a) * 2)(x)
    back = torch.from_dlpack(y)
    assert back.data_ptr() == _ptr(y)
    torch.testing.assert_close(back, torch.tanh(t) * 2, rtol=1e-6, atol=1e-6)
