"""Malformed artifacts straight into gojax's PJRT_Client_Compile (below
jaxlib, which would reject most of them itself): random bytes, huge declared
section lengths, huge varints inside sections, splices of two artifacts and
bit flips, made from fixed seeds out of committed JAX artifacts
(testdata/jax-export, see its README). Every case must give a result or an
error with a message; a case that compiles is also executed on the inputs
of the artifact it came from and its outputs read back, where an error is
fine too. The cases run in a subprocess, which prints each case before it
starts, so a crash or hang fails this test and names the case."""

from __future__ import annotations

import json
import os
import subprocess

import numpy as np
from jax._src.lib import xla_client

import artifact_mutations
from gojax_testutil import REPO_ROOT, run_python

SEED = 17
# float32, float64 and complex64 programs, with and without inputs.
BASES = ["cpu_cholesky_lapack_potrf#2", "cpu_schur_lapack_gees#1", "cpu_svd_lapack_gesdd#2",
         "cpu_triangular_solve_blas_trsm#1", "cpu_tridiagonal_solve_lapack_gtsv#0",
         "cpu_lu_lapack_getrf#2", "cpu_qr_lapack_geqrf#3", "cpu_eigh_lapack_syev#2"]
PER_MUTATOR = {"random_bytes": 250, "huge_section_length": 250, "huge_varint": 500,
               "splice": 500, "bit_flips": 1600}
_EXPORT = os.path.join(REPO_ROOT, "testdata", "jax-export")

# Execution runs in a thread the runner watches: a mutated constant can turn
# a loop of 3 iterations into one of trillions, a valid program that would
# run for hours on any backend. A case still running after _LONG_S seconds
# while the process uses the CPU is recorded as a long run, and the runner
# exits and is started again after it; one that uses no CPU is hung.
_LONG_S = 3.0

_RUNNER = """
import json, os, sys, threading, time
import numpy as np
import pjrt_ctypes as pc

TYPES = {"float32": "F32", "float64": "F64", "complex64": "C64", "complex128": "C128",
         "int32": "S32", "uint32": "U32"}
spec = json.load(open(sys.argv[1]))
first = int(sys.argv[2])
inputs = {}
for name in spec["bases"]:
    with np.load(f"{spec['dir']}/{name}.npz", allow_pickle=False) as z:
        inputs[name] = [z[f"in{i}"] for i in range(sum(k.startswith("in") for k in z.files))]
options = bytes.fromhex(spec["options"])
api = pc.Api()
api.initialize()
client = api.create_client()
device = api.device(client)
results = []


def run(exe, base, out):
    args = [api.buffer_from_host(client, device, a.tobytes(), TYPES[a.dtype.name], a.shape)
            for a in inputs[base]]
    try:
        outs = api.execute(exe, args)
        try:
            out.append(["ran", "", [api.to_host(b).hex() for b in outs]])
        finally:
            for b in outs:
                api.destroy_buffer(b)
    except pc.PjrtError as e:
        out.append(["run error", str(e), []])
    for b in args:
        api.destroy_buffer(b)


def stop(outcome):
    results.append([outcome, "", []])
    print("RESULTS " + json.dumps(results), flush=True)
    os._exit(0)


for i, case in enumerate(spec["cases"][first:], first):
    print("case", i, flush=True)
    try:
        exe = api.compile_loaded(client, bytes.fromhex(case["code"]), b"mlir", options)
    except pc.PjrtError as e:
        results.append(["compile error", str(e), []])
        continue
    out = []
    t = threading.Thread(target=run, args=(exe, case["base"], out), daemon=True)
    t.start()
    t.join(spec["long_s"])
    if t.is_alive():
        cpu = time.process_time()
        t.join(2.0)
        if t.is_alive():
            stop("long run" if time.process_time() - cpu > 0.2 else "hung")
    results.append(out[0])
    api.destroy_loaded(exe)
api.destroy_client(client)
print("RESULTS " + json.dumps(results))
"""


def _load(name: str) -> bytes:
    with open(os.path.join(_EXPORT, name + ".bc"), "rb") as f:
        return f.read()


def _run(tmp_path, cases: list[tuple[str, bytes]]):
    """(base name, code) cases through the runner; returns its results."""
    spec = {"dir": _EXPORT, "bases": BASES, "long_s": _LONG_S,
            "options": xla_client.CompileOptions().SerializeAsString().hex(),
            "cases": [{"base": b, "code": c.hex()} for b, c in cases]}
    path = os.path.join(tmp_path, "cases.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    runner = os.path.join(tmp_path, "runner.py")
    with open(runner, "w") as f:
        f.write(_RUNNER)
    results = []
    while len(results) < len(cases):
        try:
            proc = run_python(f"import runpy, sys; sys.argv = ['runner', {path!r}, '{len(results)}']; "
                              f"runpy.run_path({runner!r}, run_name='__main__')", timeout=240)
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            raise AssertionError(f"gojax hung at {out.strip().splitlines()[-1:]}") from None
        last = [ln for ln in proc.stdout.splitlines() if ln.startswith("case ")][-1:]
        if proc.returncode != 0:
            i = int(last[0].split()[1]) if last else -1
            saved = os.path.join(tmp_path, "crash.bc")
            if i >= 0:
                with open(saved, "wb") as f:
                    f.write(cases[i][1])
            raise AssertionError(f"gojax crashed (exit {proc.returncode}) at {last}, bytes in {saved}\n"
                                 f"{proc.stderr[-4000:]}")
        results += json.loads(proc.stdout.split("RESULTS ", 1)[1])
        if results[-1][0] == "hung":
            raise AssertionError(f"gojax hung without using the CPU at {last}, base {cases[len(results) - 1][0]}")
    return results


def test_mutated_artifacts_compile_or_fail_cleanly_and_run(tmp_path):
    bases = [_load(n) for n in BASES]
    for b in bases:  # the walker understands every base (else mutations miss)
        assert artifact_mutations.serialize(*artifact_mutations.parse(b)) == b
    # Every fifth case runs on the inputs of the next base: wrong arity,
    # shapes or element types for the program, which Execute must refuse.
    cases = [(BASES[(base + (k % 5 == 0)) % len(BASES)], code)
             for k, (_, base, code) in enumerate(artifact_mutations.corpus(SEED, bases, PER_MUTATOR))]
    controls = [(n, b) for n, b in zip(BASES, bases)]
    results = _run(tmp_path, controls + cases)
    assert len(results) == len(controls) + len(cases)

    # The unmutated artifacts run and give JAX's recorded outputs where its
    # test compares them directly: the harness itself works.
    index = {e["name"]: e for e in json.load(open(os.path.join(_EXPORT, "index.json")))}
    for name, (outcome, msg, data) in zip(BASES, results):
        assert outcome == "ran", (name, outcome, msg)
        check = index[name]["jax_check"]
        with np.load(os.path.join(_EXPORT, name + ".npz"), allow_pickle=False) as z:
            want = [z[f"out{i}"] for i in range(len(data))]
        for got_hex, w in zip(data, want):
            got = np.frombuffer(bytes.fromhex(got_hex), w.dtype).reshape(w.shape)
            if check["how"] == "allclose to expected_outputs":
                # A null atol is JAX's default for the type (testdata/jax-export/README.md).
                atol = check["atol"] if check["atol"] is not None else (1e-6 if w.dtype.itemsize * (
                    1 if w.dtype.kind == "f" else 0.5) <= 4 else 1e-15)
                np.testing.assert_allclose(got, w, rtol=check["rtol"], atol=atol, err_msg=name)

    outcomes = {}
    for (mutator, _, code), (outcome, msg, _) in zip(artifact_mutations.corpus(SEED, bases, PER_MUTATOR),
                                                      results[len(controls):]):
        outcomes.setdefault(mutator, []).append(outcome)
        if outcome in ("compile error", "run error"):
            assert msg.strip(), f"{mutator}: {outcome} without a message"
    summary = {m: {o: v.count(o) for o in sorted(set(v))} for m, v in outcomes.items()}
    print(summary)
    # With these seeds, bytes that no reader accepts are all rejected, and
    # some flipped artifacts still compile, so execution is exercised.
    assert summary["random_bytes"] == {"compile error": PER_MUTATOR["random_bytes"]}, summary
    assert summary["huge_section_length"] == {"compile error": PER_MUTATOR["huge_section_length"]}, summary
    assert summary["bit_flips"].get("ran", 0) > 0 and summary["bit_flips"].get("run error", 0) > 0, summary
    # Bit flip 1548 turns a loop bound of 3 into 2^41+3: the runner's
    # watchdog must see it running and go on after it.
    assert summary["bit_flips"].get("long run", 0) >= 1, summary
