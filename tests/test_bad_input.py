"""Malformed programs handed straight to gojax's PJRT C API (below jaxlib,
which would reject most of them itself) give errors, never crashes. Each
check runs in a subprocess so a crash fails the test instead of the run."""

from __future__ import annotations

import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src.lib import xla_client

from gojax_testutil import check_python, float32s_past_machine, run_python

_RUNNER = """
import json, sys
import pjrt_ctypes
cases = json.load(open(sys.argv[1] if len(sys.argv) > 1 else {path!r}))
api = pjrt_ctypes.Api()
api.initialize()
client = api.create_client()
results = []
for case in cases:
    try:
        api.compile(client, bytes.fromhex(case["code"]), case["format"].encode(),
                    bytes.fromhex(case["options"]))
        results.append(["ok", ""])
    except pjrt_ctypes.PjrtError as e:
        results.append(["error", str(e)])
api.destroy_client(client)
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def artifact() -> bytes:
    """A real portable artifact, serialized the way jax.export does."""
    f = jax.jit(lambda x, y: jnp.tanh(x @ y).sum(axis=0) + 1)
    spec = jax.ShapeDtypeStruct((4, 4), np.float32)
    return bytes(jax.export.export(f)(spec, spec).mlir_module_serialized)


@pytest.fixture(scope="module")
def options() -> bytes:
    return xla_client.CompileOptions().SerializeAsString()


def _compile_all(tmp_path, cases):
    path = os.path.join(tmp_path, "cases.json")
    with open(path, "w") as f:
        json.dump([{"code": c.hex(), "format": fmt, "options": o.hex()} for c, fmt, o in cases], f)
    proc = run_python(_RUNNER.format(path=path))
    assert proc.returncode == 0, (
        f"gojax crashed or failed (exit {proc.returncode})\n{proc.stdout}\n{proc.stderr[-4000:]}")
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(results) == len(cases)
    return results


def test_valid_artifact_compiles(tmp_path, artifact, options):
    # Positive control: the harness compiles a good program.
    assert _compile_all(tmp_path, [(artifact, "mlir", options)]) == [["ok", ""]]


def test_garbage_programs_are_rejected(tmp_path, options):
    rng = np.random.default_rng(1)
    garbage = [
        b"",
        b"\x00" * 64,
        bytes(rng.integers(0, 256, 4096, dtype=np.uint8)),
        b"ML\xefR" + bytes(rng.integers(0, 256, 512, dtype=np.uint8)),
        b"module { func.func @main( ",
        b"ML\xefR",
    ]
    results = _compile_all(tmp_path, [(g, "mlir", options) for g in garbage])
    for (status, msg), g in zip(results, garbage):
        assert status == "error", g[:16]
        assert msg.strip(), "error without a message"


def test_unknown_format_is_rejected(tmp_path, artifact, options):
    [(status, msg)] = _compile_all(tmp_path, [(artifact, "hlo_with_config", options)])
    assert status == "error" and msg.strip()


def test_garbage_compile_options_are_rejected(tmp_path, artifact):
    [(status, msg)] = _compile_all(tmp_path, [(artifact, "mlir", b"\xff\xff\xff\xff")])
    assert status == "error" and msg.strip()


def test_truncated_artifacts_are_rejected(tmp_path, artifact, options):
    cuts = sorted({int(len(artifact) * k / 24) for k in range(1, 24)})
    results = _compile_all(tmp_path, [(artifact[:c], "mlir", options) for c in cuts])
    for (status, msg), c in zip(results, cuts):
        assert status == "error", f"artifact truncated to {c}/{len(artifact)} bytes compiled"
        assert msg.strip()


def test_corrupted_artifacts_never_crash(tmp_path, artifact, options):
    rng = np.random.default_rng(2)
    cases = []
    for _ in range(48):
        b = bytearray(artifact)
        for pos in rng.integers(4, len(b), rng.integers(1, 4)):
            b[pos] ^= 1 << int(rng.integers(0, 8))
        cases.append((bytes(b), "mlir", options))
    results = _compile_all(tmp_path, cases)
    # Some flips land in harmless places (names, padding) and still compile;
    # what matters is that every case came back with a result and a message.
    for status, msg in results:
        assert status in ("ok", "error")
        if status == "error":
            assert msg.strip()


def _nested_case(depth: int) -> bytes:
    """A program of depth stablehlo.case ops, each inside a branch of the one
    before (what nested lax.conds lower to; JAX's tracer itself stops short of
    1000), serialized as a portable artifact as JAX sends it."""
    from jax._src.interpreters import mlir
    from jax._src.lib import _jax
    from jax._src.lib.mlir import ir
    from jax._src.lib.mlir.dialects import hlo

    t = "tensor<2xf32>"
    lines = [f"func.func public @main(%i: tensor<i32>, %x: {t}) -> {t} {{"]
    lines += [f'%r{d} = "stablehlo.case"(%i) ({{' for d in range(depth)]
    lines.append(f"%y = stablehlo.add %x, %x : {t}")
    inner = "%y"
    for d in reversed(range(depth)):
        lines.append(f"stablehlo.return {inner} : {t}")
        lines.append(f"}}, {{\nstablehlo.return %x : {t}\n}}) : (tensor<i32>) -> {t}")
        inner = f"%r{d}"
    lines.append(f"return %r0 : {t}\n}}")
    with mlir.make_ir_context():
        module = ir.Module.parse("module {\n" + "\n".join(lines) + "\n}\n")
        version = hlo.get_version_from_compatibility_requirement(hlo.StablehloCompatibilityRequirement.WEEK_4)
        return bytes(_jax.mlir.serialize_portable_artifact(mlir.module_to_bytecode(module), version, False))


def test_deeply_nested_conds_compile(tmp_path, options):
    # XLA compiles such nests; gojax once refused past 256 levels, and its
    # dead-code pass took time doubling with each level.
    cases = [(_nested_case(d), "mlir", options) for d in (300, 1000)]
    assert _compile_all(tmp_path, cases) == [["ok", ""], ["ok", ""]]


def test_output_too_large_is_resource_exhausted(gojax_device):
    # Two 64 TiB outputs (the largest tensors gojax compiles): together more
    # than a process's address space, so one allocation fails even where the
    # kernel overcommits, before anything runs; the error names its size.
    x = jax.device_put(np.float32(1), gojax_device)
    big = (1 << 22, 1 << 22)
    with pytest.raises(Exception, match=r"RESOURCE_EXHAUSTED: .*out of memory allocating 70368744177664 bytes"):
        jax.block_until_ready(jax.jit(lambda v: (jnp.broadcast_to(v, big), jnp.broadcast_to(v + 1, big)))(x))


def test_go_heap_exhaustion_is_resource_exhausted():
    # Tables and arenas gojax keeps on the Go heap, whose exhaustion ends the
    # process (Go's runtime aborts): an iota table and an arena of
    # temporaries, both known while compiling and each sized past this
    # machine's RAM plus swap (powers of two, so the shapes stay simple).
    # Each must be a RESOURCE_EXHAUSTED error from the compiler naming an op
    # and its source line, after which the same process goes on computing.
    # Run in a child so that a regression aborts it, not pytest.
    floats, side = float32s_past_machine()
    out = check_python(r"""
        import re
        import jax, jax.numpy as jnp
        gojax = jax.devices()[0]
        assert "gojax" in gojax.client.platform_version, gojax.client.platform_version
        cases = {
            "iota table": lambda: jax.jit(lambda a: jnp.sort(jnp.arange(FLOATS, dtype=jnp.float32) * a)[:4])
                .lower(jnp.float32(-1)).compile(),
            "temporaries": lambda: jax.jit(lambda: jnp.sum(jnp.ones((SIDE, SIDE)))).lower().compile(),
        }
        for name, f in cases.items():
            try:
                jax.block_until_ready(f())
                print(name, "ran")
            except Exception as e:
                msg = str(e)
                assert "RESOURCE_EXHAUSTED" in msg and "out of memory allocating" in msg, (name, msg)
                assert re.search(r"stablehlo\.\w+ at .*<string>:\d+", msg), msg  # names the op and its line
                assert name != "iota table" or "stablehlo.iota at" in msg, msg
                print(name, "RESOURCE_EXHAUSTED")
        print("after", float(jax.jit(lambda x: x * 2)(jnp.float32(21))))
    """.replace("FLOATS", str(floats)).replace("SIDE", str(side)))
    assert out.split("\n")[:3] == ["iota table RESOURCE_EXHAUSTED", "temporaries RESOURCE_EXHAUSTED", "after 42.0"], out
