"""Jitted programs on gojax agree with XLA CPU; errors reach Python."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from gojax_testutil import check_python, float32s_past_machine


@jax.jit  # a nested jit lowers to func.call of a private function
def _layer(x, w):
    return jnp.tanh(x @ w)


def _program(x, w, b, k):
    h = _layer(x, w) + b  # matmul, elementwise, broadcasting of b over rows
    s = jnp.sum(h * h, axis=1)  # reduction

    def cond(carry):
        i, _ = carry
        return i < k

    def body(carry):
        i, v = carry
        return i + 1, 0.5 * v + jnp.max(v) - jnp.where(v > 1.0, v, 0.0)

    n, v = lax.while_loop(cond, body, (jnp.int32(0), s))
    return v, jnp.exp(-jnp.abs(h)).mean(axis=0), n


def _on(device, *args):
    return [jax.device_put(a, device) for a in args]


def _inputs(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((8, 16), dtype=np.float32)
    w = rng.standard_normal((16, 4), dtype=np.float32) / 4
    b = rng.standard_normal((4,), dtype=np.float32)
    return x, w, b, np.int32(5)


def test_lowered_program_has_the_intended_ops():
    text = jax.jit(_program).lower(*_inputs()).as_text()
    for op in ("stablehlo.while", "stablehlo.dot_general", "stablehlo.reduce",
               "stablehlo.broadcast_in_dim", "call @", "stablehlo.tanh"):
        assert op in text, op


def test_mixed_program_matches_xla_cpu(gojax_device, cpu_device):
    f = jax.jit(_program)
    args = _inputs()
    want = f(*_on(cpu_device, *args))
    got = f(*_on(gojax_device, *args))
    for g, w in zip(got, want):
        assert g.devices() == {gojax_device}
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=1e-5)
    assert int(got[2]) == 5


@pytest.mark.parametrize("seed", range(3))
def test_grad_of_program_matches_xla_cpu(seed, gojax_device, cpu_device):
    # Reverse mode needs a loop with a static trip count (lowered as a while).
    def loss(w, x, b):
        h = _layer(x, w) + b
        v = lax.fori_loop(0, 3, lambda i, v: 0.5 * v + jnp.sin(v) * i, jnp.sum(h * h, axis=1))
        return jnp.sum(v) + jnp.exp(-jnp.abs(h)).mean()

    g = jax.jit(jax.grad(loss))
    x, w, b, _ = _inputs(seed)
    assert "stablehlo.while" in g.lower(w, x, b).as_text()
    want = g(*_on(cpu_device, w, x, b))
    got = g(*_on(gojax_device, w, x, b))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-5)


def test_integer_and_bool_program(gojax_device, cpu_device):
    @jax.jit
    def f(a, m):
        c = jnp.cumsum(a, axis=0) % 7
        return jnp.where(m, c, -c).sum(axis=1), jnp.argmax(a, axis=1), m.any()

    a = np.arange(24, dtype=np.int32).reshape(6, 4) * 13 % 11
    m = (a % 2 == 0)
    for g, w in zip(f(*_on(gojax_device, a, m)), f(*_on(cpu_device, a, m))):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_async_dispatch_and_block_until_ready(gojax_device):
    step = jax.jit(lambda x: jnp.sin(x) @ jnp.cos(x).T / x.shape[0])
    x = jax.device_put(np.eye(64, dtype=np.float32), gojax_device)
    outs = []
    for _ in range(10):
        x = step(x)
        outs.append(x)
    assert x.block_until_ready() is x
    assert x.is_ready()
    assert jax.block_until_ready(outs) is outs
    ref = np.eye(64, dtype=np.float32)
    for _ in range(10):
        ref = np.sin(ref) @ np.cos(ref).T / 64
    np.testing.assert_allclose(np.asarray(x), ref, rtol=1e-4, atol=1e-6)


def test_donated_argument(gojax_device):
    @functools.partial(jax.jit, donate_argnums=0)
    def add_one(x):
        return x + 1

    x = jax.device_put(np.arange(1024, dtype=np.float32), gojax_device)
    y = add_one(x)
    np.testing.assert_array_equal(np.asarray(y), np.arange(1024) + 1)
    assert x.is_deleted()


def test_donating_a_buffer_also_passed_again_is_an_error(gojax_device):
    # As on XLA:CPU: the program may overwrite the donated buffer while it
    # still reads it as the other argument. The buffer stays usable.
    f = jax.jit(lambda x, y: x + y, donate_argnums=0)
    x = jax.device_put(np.arange(10, dtype=np.float32), gojax_device)
    with pytest.raises(RuntimeError, match="donated, but the same buffer is passed as another argument"):
        jax.block_until_ready(f(x, x))
    assert not x.is_deleted()
    np.testing.assert_array_equal(np.asarray(f(x, x + 0)), np.arange(10) * 2)


@pytest.mark.parametrize("body", [
    "jnp.broadcast_to(v, (SIDE, SIDE)) * v",  # only the output is huge
    "jnp.broadcast_to(v, (SIDE, SIDE)) + 1",  # a huge constant too (folding)
])
def test_failed_execution_raises_and_backend_survives(body):
    # An output larger than this machine's RAM plus swap cannot be allocated:
    # it must be refused up front (under memory overcommit mmap succeeds and
    # touching the pages would get the process killed), come back to Python
    # as an exception, and gojax must keep working afterwards.
    side = float32s_past_machine()[1]
    out = check_python("""
        import jax, jax.numpy as jnp, numpy as np
        dev = jax.devices("gojax")[0]
        x = jax.device_put(np.float32(1), dev)
        huge = jax.jit(lambda v: BODY)
        try:
            huge(x).block_until_ready()
        except Exception as e:
            print("raised", type(e).__name__)
            print("message", str(e).replace("\\n", " ")[:300])
        else:
            print("no exception")
        y = jax.jit(lambda v: v * 3)(x)
        print("after", float(y))
    """.replace("BODY", body.replace("SIDE", str(side))))
    lines = dict(line.split(" ", 1) for line in out.strip().splitlines())
    assert "raised" in lines, out
    assert "RESOURCE_EXHAUSTED" in lines["message"] and "more than this machine can hold" in lines["message"], out
    assert lines["after"] == "3.0"


def test_dce_sink_kept_from_mlir_dce_compiles(gojax_device):
    # prevent_mlir_dce=True lowers to a custom call "dce_sink" with no
    # results, which XLA:CPU runs as a no-op; gojax drops it.
    def f(x):
        lax.dce_sink(jnp.sin(x) + 1, prevent_mlir_dce=True)
        return x * 2

    x = jax.device_put(np.arange(4, dtype=np.float32), gojax_device)
    assert "dce_sink" in jax.jit(f).lower(x).as_text()
    np.testing.assert_array_equal(jax.jit(f)(x), np.arange(4, dtype=np.float32) * 2)
    np.testing.assert_array_equal(jax.jit(jax.vmap(f))(x.reshape(2, 2)), np.arange(4, dtype=np.float32).reshape(2, 2) * 2)


@pytest.mark.parametrize("dtype,preferred", [
    (np.int8, np.float32), (np.int8, jnp.bfloat16), (np.int16, np.float16), (np.int32, np.float32),
])
def test_integer_operands_with_a_float_result(gojax_device, cpu_device, dtype, preferred):
    # lax.dot/conv with integer inputs and a float preferred_element_type:
    # products and sums in the float type, as XLA:CPU computes them (they
    # compiled to an error before).
    rng = np.random.default_rng(0)
    x = rng.integers(-100, 100, (2, 3, 9, 10)).astype(dtype)
    w = rng.integers(-100, 100, (4, 3, 4, 5)).astype(dtype)
    a, b = rng.integers(-100, 100, (5, 7)).astype(dtype), rng.integers(-100, 100, (7, 3)).astype(dtype)
    conv = jax.jit(lambda x, w: lax.conv(x, w, (1, 1), "VALID", preferred_element_type=preferred))
    dot = jax.jit(lambda a, b: lax.dot(a, b, preferred_element_type=preferred))
    for f, args in ((conv, (x, w)), (dot, (a, b))):
        got = f(*jax.device_put(args, gojax_device))
        want = f(*jax.device_put(args, cpu_device))
        assert got.dtype == want.dtype == np.dtype(preferred)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
