"""Every function slot of gojax's PJRT_Api, called straight through ctypes
with malformed args: NULL, a zeroed struct, a struct_size that covers only
itself, one a byte short of the 0.114 struct, and sizes beyond it (a newer
framework's larger struct, and an absurd one). Each call must come back, with an error or with
success, never crash or hang. The slots come from the ABI table
(testdata/pjrt/pjrt-abi-0.114.txt) through pjrt_ctypes, so a slot added
there is tortured too. The calls run in a subprocess so a crash fails this
test instead of the run, and the child prints each call before making it,
so the report names the call that crashed."""

from __future__ import annotations

import json

import pjrt_ctypes
from gojax_testutil import run_python

# args as the modes build them: struct_size, then zeroed bytes.
MODES = ("null", "zeroed", "tiny", "short", "oversized", "huge")

_RUNNER = """
import ctypes, json, sys
import pjrt_ctypes as pc

api = pc.Api()
results = []
for slot in pc.ABI.slots:
    size = pc.ABI.sizes[slot.args_struct]
    for mode in {modes!r}:
        print("calling", slot.name, mode, flush=True)
        if mode == "null":
            address = 0
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
"""

# The one slot that must succeed whatever it is given: the framework calls
# it on every error it converts.
_NEVER_FAILS = {"PJRT_Error_ForEachPayload"}


def test_every_slot_survives_malformed_args():
    proc = run_python(_RUNNER.format(modes=MODES), timeout=180)
    last = [ln for ln in proc.stdout.splitlines() if ln.startswith("calling ")][-1:]
    assert proc.returncode == 0, (
        f"gojax crashed (exit {proc.returncode}) in {last}\n{proc.stderr[-4000:]}")
    results = json.loads(proc.stdout.split("RESULTS ", 1)[1])
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
