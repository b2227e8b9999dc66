"""The cross-host transfers extension as jaxlib finds it, called below jaxlib
with ctypes in one process: it is in the chain (so the backend reports
supports_cross_host_transfers), the descriptor-based calls answer
UNIMPLEMENTED without crashing (CopyToRemoteDevice through its callback), and
a transfer outside a multi-process job is an error. Transfers between
processes are tested in test_distributed.py."""

from __future__ import annotations

import ctypes

import pytest

import pjrt_ctypes as pc

CROSS_HOST_TRANSFERS = 12  # PJRT_Extension_Type_CrossHostTransfers


@pytest.fixture(scope="module")
def ext():
    api = pc.Api()
    e = api.extension(CROSS_HOST_TRANSFERS)
    assert e is not None, "no cross-host transfers extension in the chain"
    assert ctypes.c_size_t.from_address(e).value == 56  # base and four calls
    return api, e


def _fn(e: int, offset: int, restype=ctypes.c_void_p):
    return ctypes.CFUNCTYPE(restype, ctypes.c_void_p)(ctypes.c_void_p.from_address(e + offset).value)


def test_backend_supports_cross_host_transfers(gojax_device):
    assert getattr(gojax_device.client, "supports_cross_host_transfers", False)


def test_make_receive_buffers_is_unimplemented(ext):
    api, e = ext
    args = pc._args(16)
    with pytest.raises(pc.PjrtError, match="MakeCrossHostReceiveBuffers: gojax moves arrays between processes"):
        api._check(_fn(e, 24)(ctypes.addressof(args)))


def test_copy_to_remote_device_reports_through_its_callback(ext):
    api, e = ext
    seen = []
    cb_type = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_bool, ctypes.c_void_p)

    def on_done(err, enqueued, user_arg):
        seen.append((api.error_text(err) if err else None, enqueued, user_arg))

    cb = cb_type(on_done)
    args = pc._args(72)  # ..., on_done {user_arg, on_done}, descriptor_destructor
    pc._set(args, 48, 1234)
    pc._set(args, 56, ctypes.cast(cb, ctypes.c_void_p).value)
    _fn(e, 32, None)(ctypes.addressof(args))
    assert len(seen) == 1
    text, enqueued, user_arg = seen[0]
    assert "CopyToRemoteDevice" in text and "not supported" in text and not enqueued and user_arg == 1234


def test_transfer_needs_a_multi_process_job(ext):
    api, e = ext
    api.initialize()
    client = api.create_client()
    try:
        ranks = (ctypes.c_size_t * 1)(1)
        dims = (ctypes.c_int64 * 1)(3)
        dim_ptrs = (ctypes.c_void_p * 1)(ctypes.addressof(dims))
        types = (ctypes.c_int32 * 1)(pc.ABI.enums["PJRT_Buffer_Type_F32"])
        src = (ctypes.c_int32 * 1)(1)
        keys = (ctypes.c_int64 * 1)(0)
        out = (ctypes.c_void_p * 1)()
        args = pc._args(96)  # without the version-8 task snapshot
        for off, v in ((16, client), (24, 1), (32, ctypes.addressof(ranks)), (40, ctypes.addressof(dim_ptrs)),
                       (48, ctypes.addressof(types)), (64, api.device(client)), (72, ctypes.addressof(src)),
                       (80, ctypes.addressof(keys)), (88, ctypes.addressof(out))):
            pc._set(args, off, v)
        with pytest.raises(pc.PjrtError, match="CrossHostReceiveBuffers: cross-host transfers need a multi-process"):
            api._check(_fn(e, 40)(ctypes.addressof(args)))
        short = pc._args(88)
        with pytest.raises(pc.PjrtError, match="struct_size is 88, gojax needs at least 96"):
            api._check(_fn(e, 40)(ctypes.addressof(short)))
        # Sending nothing is fine, in or out of a job.
        send = pc._args(88)
        pc._set(send, 16, client)
        api._check(_fn(e, 48)(ctypes.addressof(send)))
    finally:
        api.destroy_client(client)
