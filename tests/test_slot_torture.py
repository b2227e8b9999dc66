"""Every function slot of gojax's PJRT_Api, called straight through ctypes
with malformed args: NULL, a zeroed struct, a struct_size that covers only
itself, one a byte short of the 0.114 struct, and sizes beyond it (a newer
framework's larger struct, and an absurd one), and a zeroed struct whose every object field
(client, device, buffer, executable, event, ...) holds a live object made
for that call alone, so that the slot gets past its handle checks to the
NULL data pointers and zero counts behind them. Each call must come back,
with an error or with success, never crash or hang. The slots come from the ABI table
(testdata/pjrt/pjrt-abi-0.114.txt) through pjrt_ctypes, so a slot added
there is tortured too. The calls run in a subprocess so a crash fails this
test instead of the run, and the child prints each call before making it,
so the report names the call that crashed."""

from __future__ import annotations

import json
import os

from jax._src.lib import xla_client

import pjrt_ctypes
from gojax_testutil import REPO_ROOT, run_python

# args as the modes build them: struct_size, then zeroed bytes.
MODES = ("null", "zeroed", "tiny", "short", "oversized", "huge", "live")

_RUNNER = """
import ctypes, json, sys
import pjrt_ctypes as pc

api = pc.Api()
api.initialize()
code = open(sys.argv[1], "rb").read()
options = bytes.fromhex(sys.argv[2])


def made(slot, **fields):
    args = pc.Struct(slot + "_Args")
    for k, v in fields.items():
        args[k] = v
    api.call(slot, args)
    return args


def live_objects():
    # Fresh objects for one call, never destroyed here: the call may destroy
    # any of them. The topology is one the caller owns.
    client = api.create_client()
    device = api.device(client)
    buffer = api.buffer_from_host(client, device, bytes(16), "F32", (4,))
    exe = api.compile_loaded(client, code, b"mlir", options)
    failed = api.function(pc.ABI.slot["PJRT_Client_Compile"])(0)
    return {{
        "PJRT_Client": client, "PJRT_Device": device, "PJRT_Buffer": buffer,
        "PJRT_LoadedExecutable": exe,
        "PJRT_Executable": made("PJRT_LoadedExecutable_GetExecutable", loaded_executable=exe)["executable"],
        "PJRT_DeviceDescription": made("PJRT_Device_GetDescription", device=device)["device_description"],
        "PJRT_Memory": made("PJRT_Device_DefaultMemory", device=device)["memory"],
        "PJRT_Event": made("PJRT_Buffer_ReadyEvent", buffer=buffer)["event"],
        "PJRT_TopologyDescription": made("PJRT_TopologyDescription_Create")["topology"],
        "PJRT_ExecuteContext": made("PJRT_ExecuteContext_Create")["context"],
        "PJRT_Error": failed,
    }}


results = []
filled = {{}}
for slot in pc.ABI.slots:
    size = pc.ABI.sizes[slot.args_struct]
    for mode in {modes!r}:
        print("calling", slot.name, mode, flush=True)
        if mode == "null":
            address = 0
        elif mode == "live":
            objects = live_objects()
            args = pc.Struct(slot.args_struct)
            for field, pointee in pc.ABI.pointees.get(slot.args_struct, {{}}).items():
                if pointee in objects:
                    args[field] = objects[pointee]
                    filled.setdefault(slot.name, []).append(field)
            address = args.address
        else:
            declared = {{"zeroed": size, "tiny": 8, "short": size - 1, "oversized": size + 4096,
                         "huge": (1 << 64) - 1}}[mode]
            args = pc._args(size + 4096)
            args[0] = declared
            address = ctypes.addressof(args)
        fn = api.function(slot)
        if not slot.returns_error:
            fn(address)
            results.append([slot.name, mode, "returned", ""])
            continue
        err = fn(address)
        results.append([slot.name, mode, "error", api.error_text(err)] if err else [slot.name, mode, "ok", ""])
print("RESULTS " + json.dumps(results))
print("FILLED " + json.dumps(filled))
"""

# The one slot that must succeed whatever it is given: the framework calls
# it on every error it converts.
_NEVER_FAILS = {"PJRT_Error_ForEachPayload"}


def test_every_slot_survives_malformed_args(tmp_path):
    artifact = os.path.join(REPO_ROOT, "testdata", "jax-export", "cpu_triangular_solve_blas_trsm#1.bc")
    runner = os.path.join(tmp_path, "runner.py")
    with open(runner, "w") as f:
        f.write(_RUNNER.format(modes=MODES))
    options = xla_client.CompileOptions().SerializeAsString().hex()
    proc = run_python(f"import runpy, sys; sys.argv = ['runner', {artifact!r}, {options!r}]; "
                      f"runpy.run_path({runner!r}, run_name='__main__')", timeout=180)
    last = [ln for ln in proc.stdout.splitlines() if ln.startswith("calling ")][-1:]
    assert proc.returncode == 0, (
        f"gojax crashed (exit {proc.returncode}) in {last}\n{proc.stderr[-4000:]}")
    results = json.loads(proc.stdout.split("RESULTS ", 1)[1].split("\n", 1)[0])
    filled = json.loads(proc.stdout.split("FILLED ", 1)[1])
    # Most slots take an object the live mode makes (all but the transfer
    # manager's, the stream's, the tracking event's and a few object-free ones).
    assert len(filled) >= 110, sorted(filled)
    slots = pjrt_ctypes.ABI.slots
    assert len(slots) == 138  # PJRT C API 0.114: a shorter table would test less
    assert len(results) == len(slots) * len(MODES)
    for name, mode, outcome, msg in results:
        if outcome == "error":
            assert msg.strip(), f"{name} ({mode} args): error without a message"
        # (A struct a byte short may still hold every field gojax reads.)
        if mode in ("null", "tiny") and outcome == "ok" and name not in _NEVER_FAILS:
            raise AssertionError(f"{name} accepted {mode} args")
    # A slot that cannot read its args says which slot and why.
    by_call = {(name, mode): msg for name, mode, outcome, msg in results}
    for slot in slots:
        if slot.returns_error and slot.name not in _NEVER_FAILS:
            assert slot.name in by_call[slot.name, "null"], (slot.name, by_call[slot.name, "null"])
            assert "struct_size" in by_call[slot.name, "tiny"], (slot.name, by_call[slot.name, "tiny"])


def test_abi_table_sizes_are_field_ends():
    """The struct sizes pjrt_ctypes derives where the table lists only fields
    follow the table's own rule, checked on the structs it lists both ways."""
    abi = pjrt_ctypes.Abi()
    with open(pjrt_ctypes.ABI_TABLE) as f:
        listed = {ln.split()[1]: int(ln.split()[2]) for ln in f if ln.startswith("SIZE ")}
    checked = 0
    for struct, size in listed.items():
        fields = abi.fields.get(struct)
        if fields:
            assert max(o + s for o, s in fields.values()) == size, struct
            checked += 1
    assert checked > 100
