"""Issue 17's reproducers, each ending in a Python exception or the right
result, with the next call in the same process succeeding: kernel scratch
past the memory limit, a 2**40-element intermediate, long cumulative sums
in linear memory, and nests deeper than any fixed limit (a 1000-deep chain
of func.call, 200 levels of while and case around 1000 ops). The limits
are small so the tests stay cheap; the ones that could end the process run
in a child."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gojax
from gojax_testutil import check_python


def _under_limit(f, args, room):
    """Runs f(*args) with memory_limit set `room` bytes above what gojax
    holds now (args are placed first); returns the error message."""
    jax.block_until_ready(args)
    gojax.config.memory_limit = gojax.stats().bytes_in_use + room
    try:
        with pytest.raises(Exception) as info:
            jax.block_until_ready(f(*args))
    finally:
        gojax.config.memory_limit = None
    return str(info.value)


@pytest.mark.parametrize("case", ["sort", "int8 dot", "f16 dot"])
def test_kernel_scratch_past_the_limit(case, gojax_device, cpu_device):
    # Room for the result but not the kernel's scratch (sort's permutation,
    # the dots' operands converted to i64 / f32): RESOURCE_EXHAUSTED naming
    # the op and the scratch size, then the same call succeeds as XLA:CPU.
    rng = np.random.default_rng(0)
    if case == "sort":
        f, op = jnp.sort, "stablehlo.sort"
        host = [rng.standard_normal(1 << 22).astype(np.float32)]  # 16 MiB, scratch 16 MiB+
        room = (16 << 20) + (4 << 20)
    else:
        f, op = jnp.dot, "stablehlo.dot_general"
        dt = np.int8 if case == "int8 dot" else np.float16
        a = rng.integers(-9, 9, (1024, 1024)).astype(dt)
        host = [a, a.T.copy()]
        room = 1024 * 1024 * a.itemsize + (1 << 20)
    f = jax.jit(f)
    args = [jax.device_put(h, gojax_device) for h in host]
    msg = _under_limit(f, args, room)
    assert "RESOURCE_EXHAUSTED" in msg and f"{op} at " in msg and "scratch memory of" in msg, msg
    assert "memory limit" in msg, msg
    want = f(*[jax.device_put(h, cpu_device) for h in host])
    np.testing.assert_array_equal(np.asarray(f(*args)), np.asarray(want))


def test_huge_intermediate_then_next_call():
    # A 2**40-element intermediate (XLA fuses it away; gojax cannot hold
    # it) is RESOURCE_EXHAUSTED at compile time; a 300,000-long cumsum once
    # aborted the process building an out x window table.
    out = check_python("""
        import jax, jax.numpy as jnp, numpy as np
        try:
            jax.jit(lambda a: (jnp.broadcast_to(a, (1 << 40,)) * 2)[::1 << 30])(jnp.float32(1.5))
            print("ran")
        except Exception as e:
            assert "RESOURCE_EXHAUSTED" in str(e) and "temporaries need" in str(e), str(e)
            print("RESOURCE_EXHAUSTED")
        x = np.ones(300000, np.float32)
        got = np.asarray(jax.jit(jnp.cumsum)(x))
        want = np.asarray(jax.jit(jnp.cumsum, backend="cpu")(x))
        np.testing.assert_allclose(got, want, rtol=1e-6)
        print("cumsum", got[-1])
        print("after", float(jax.jit(lambda v: v * 2)(jnp.float32(21))))
    """)
    assert out.split("\n")[:3] == ["RESOURCE_EXHAUSTED", "cumsum 300000.0", "after 42.0"], out


def test_cumsum_of_ten_million_in_linear_memory():
    # Peak RSS while running a 10**7-element cumsum, beyond its 40 MB input
    # and 40 MB output, stays a small multiple of them (O(n**2) would be
    # terabytes); XLA:CPU measured 144 MiB here, gojax 61 MiB.
    out = check_python("""
        import resource
        import jax, jax.numpy as jnp, numpy as np
        n = 10 ** 7
        x = jax.device_put(np.ones(n, np.float32))
        f = jax.jit(jnp.cumsum)
        f(jnp.ones(10, jnp.float32)).block_until_ready()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        y = f(x).block_until_ready()
        grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        assert float(y[-1]) == n and float(y[n // 2]) == n // 2 + 1, (float(y[-1]), float(y[n // 2]))
        print(grew >> 10)
    """)
    assert int(out.split()[-1]) < 400, f"peak RSS grew {out.split()[-1]} MiB"


def test_deep_nests_compile_and_run():
    # XLA accepts any depth; gojax once stopped at 256 nested regions.
    out = check_python("""
        import sys
        sys.setrecursionlimit(20000)
        import numpy as np
        import pjrt_ctypes
        from test_resource_limits import artifact, call_chain, nested_loops
        api = pjrt_ctypes.Api()
        api.initialize()
        client = api.create_client()
        dev = api.device(client)
        def run(text, x):
            exe = api.compile_loaded(client, artifact(text))
            b = api.buffer_from_host(client, dev, np.float32(x).tobytes(), "F32", ())
            return float(np.frombuffer(api.to_host(api.execute(exe, [b])[0]), np.float32)[0])
        x = np.float32(3)
        for _ in range(1000):
            x = x * np.float32(0.5) + np.float32(1)
        print(run(call_chain(1000), 3.0) == float(x))
        # 200 levels; the three innermost whiles run twice: 3 + 8 * 1000.
        print(run(nested_loops(200, 1000, lambda level: 2 if level >= 194 else 1), 3.0))
    """)
    assert out.split("\n")[:2] == ["True", "8003.0"], out


_T = "tensor<f32>"


def artifact(text: str) -> bytes:
    """A portable artifact of MLIR text, serialized as JAX sends it."""
    from jax._src.interpreters import mlir
    from jax._src.lib import _jax
    from jax._src.lib.mlir import ir
    from jax._src.lib.mlir.dialects import hlo

    with mlir.make_ir_context():
        module = ir.Module.parse(text)
        version = hlo.get_version_from_compatibility_requirement(hlo.StablehloCompatibilityRequirement.WEEK_4)
        return bytes(_jax.mlir.serialize_portable_artifact(mlir.module_to_bytecode(module), version, False))


def _affine(x: str) -> str:
    return (f"%h = stablehlo.constant dense<0.5> : {_T}\n%o = stablehlo.constant dense<1.0> : {_T}\n"
            f"%m = stablehlo.multiply {x}, %h : {_T}\n%r = stablehlo.add %m, %o : {_T}\nreturn %r : {_T}\n}}")


def call_chain(depth: int) -> str:
    """main calls f{depth-1}, which calls the one below; each applies x/2 + 1."""
    fs = [f"func.func private @f0(%x: {_T}) -> {_T} {{\n" + _affine("%x")]
    for k in range(1, depth):
        fs.append(f"func.func private @f{k}(%x: {_T}) -> {_T} {{\n"
                  f"%c = func.call @f{k - 1}(%x) : ({_T}) -> {_T}\n" + _affine("%c"))
    fs.append(f"func.func public @main(%x: {_T}) -> {_T} {{\n"
              f"%r = func.call @f{depth - 1}(%x) : ({_T}) -> {_T}\nreturn %r : {_T}\n}}")
    return "module {\n" + "\n".join(fs) + "\n}\n"


def nested_loops(levels: int, ops: int, trips) -> str:
    """levels nested regions, alternately a stablehlo.while running trips(level)
    times and a stablehlo.case taking its second branch, around ops adds of 1."""
    count = [0]

    def fresh() -> str:
        count[0] += 1
        return f"%v{count[0]}"

    def body(x: str, level: int) -> tuple[list[str], str]:
        if level == levels:
            one, cur = fresh(), x
            lines = [f"{one} = stablehlo.constant dense<1.0> : {_T}"]
            for _ in range(ops):
                nxt = fresh()
                lines.append(f"{nxt} = stablehlo.add {cur}, {one} : {_T}")
                cur = nxt
            return lines, cur
        if level % 2 == 0:
            i, v, r, c0, n, lt, one, i2 = (fresh() for _ in range(8))
            inner, res = body(v, level + 1)
            return [f"{c0} = stablehlo.constant dense<0> : tensor<i32>",
                    f"{r}:2 = stablehlo.while({i} = {c0}, {v} = {x}) : tensor<i32>, {_T}\n cond {{",
                    f"{n} = stablehlo.constant dense<{trips(level)}> : tensor<i32>",
                    f"{lt} = stablehlo.compare LT, {i}, {n} : (tensor<i32>, tensor<i32>) -> tensor<i1>",
                    f"stablehlo.return {lt} : tensor<i1>\n}} do {{",
                    *inner,
                    f"{one} = stablehlo.constant dense<1> : tensor<i32>",
                    f"{i2} = stablehlo.add {i}, {one} : tensor<i32>",
                    f"stablehlo.return {i2}, {res} : tensor<i32>, {_T}\n}}"], f"{r}#1"
        idx, r = fresh(), fresh()
        inner, res = body(x, level + 1)
        return [f"{idx} = stablehlo.constant dense<1> : tensor<i32>",
                f'{r} = "stablehlo.case"({idx}) ({{\nstablehlo.return {x} : {_T}\n}}, {{',
                *inner,
                f"stablehlo.return {res} : {_T}\n}}) : (tensor<i32>) -> {_T}"], r

    lines, res = body("%x", 0)
    return ("module {\n" + f"func.func public @main(%x: {_T}) -> {_T} {{\n" + "\n".join(lines)
            + f"\nreturn {res} : {_T}\n}}\n}}\n")
