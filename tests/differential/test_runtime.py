"""Runtime behaviour seen through results: donation, outputs aliasing inputs
or each other, constant-only programs, repeated and concurrent executions of
one executable, strided/Fortran-order host inputs, and cross-device copies."""

from __future__ import annotations

import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from diffutil import BF16, assert_same, check, cpu_device, gojax_device, make, rng_for, tolerance, unit_roundoff


def test_donated_arguments():
    def f(x, y):
        return x * 2 + y, y - 1, jnp.sum(y)

    x, y = make(rng_for("don"), (64, 32), np.float32), make(rng_for("don2"), (64, 32), np.float32)
    g, c = gojax_device(), cpu_device()
    jf = jax.jit(f, donate_argnums=(0, 1))
    want = jf(jax.device_put(x, c), jax.device_put(y, c))
    xg, yg = jax.device_put(x, g), jax.device_put(y, g)
    got = jf(xg, yg)
    assert_same(jax.tree.map(np.asarray, got), jax.tree.map(np.asarray, want))


def test_outputs_aliasing_inputs_and_each_other():
    check(lambda x, y: (x, x, y, x.T, x.reshape(-1), jnp.float32(1.5), {"a": y, "b": (x, 3)}),
          make(rng_for("al"), (3, 4), np.float32), np.arange(5, dtype=np.int32), cls="exact")


def test_constant_only_program():
    check(lambda: (jnp.arange(10) * 3, jnp.full((2, 3), 7.5, jnp.bfloat16), jnp.eye(4, dtype=bool),
                   jnp.linspace(0.0, 1.0, 11), jnp.array(np.random.default_rng(0).standard_normal((300, 7)),
                                                         jnp.float32)), cls="exact")


def test_repeated_executions_of_one_executable():
    f = jax.jit(lambda x, i: lax.fori_loop(0, i, lambda k, c: c * 1.5 + k, x) + jnp.cumsum(x))
    g, c = gojax_device(), cpu_device()
    for k in range(4):
        x = make(rng_for("rep", k), (17,), np.float32)
        i = np.int32(k)
        want = np.asarray(f(jax.device_put(x, c), jax.device_put(i, c)))
        got = np.asarray(f(jax.device_put(x, g), jax.device_put(i, g)))
        assert_same(got, want, "default", path=f"run {k}")


def _tanh_gram_sum_bound(x):
    """Allowed |gojax - XLA| per element of tanh(x @ x.T).sum(axis=0), float32.

    Each engine computes each dot d_ij within gamma_k * sum_l |x_il x_jl| of
    its exact value (k terms, any order), which tanh passes on scaled by its
    slope sech^2(d_ij); its tanh is within the suite's transcendental
    tolerance of the exact tanh; and the n-term sum adds at most gamma_n *
    sum_i |tanh(d_ij)|. The engines may err in opposite directions: twice
    the dot and sum parts."""
    n, k = x.shape
    u = unit_roundoff(np.float32)
    gamma = lambda m: m * u / (1 - m * u)
    x64 = x.astype(np.float64)
    d, mags = x64 @ x64.T, np.abs(x64) @ np.abs(x64).T
    t = np.abs(np.tanh(d))
    rtol_tanh = tolerance(np.float32, "transc")[0]
    terms = 2 * gamma(k) * mags / np.cosh(d) ** 2 + rtol_tanh * t
    return terms.sum(axis=0) + 2 * gamma(n) * t.sum(axis=0)


def test_concurrent_executions():
    f = jax.jit(lambda x: (jnp.tanh(x @ x.T).sum(axis=0), jnp.sort(x, axis=None)))
    g, c = gojax_device(), cpu_device()
    inputs = [make(rng_for("conc", k), (48, 40), np.float32) for k in range(8)]
    wants = [jax.tree.map(np.asarray, f(jax.device_put(x, c))) for x in inputs]
    gots = [None] * len(inputs)
    errors = []

    def worker(k):
        try:
            for _ in range(3):
                gots[k] = jax.tree.map(np.asarray, f(jax.device_put(inputs[k], g)))
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    for k, (got, want) in enumerate(zip(gots, wants)):
        assert_same(got[1], want[1], "exact", path=f"thread {k} sort")
        assert_same([got[0]], [want[0]], "dot", path=f"thread {k} tanh sum", bounds=[_tanh_gram_sum_bound(inputs[k])])


@pytest.mark.parametrize("dt", [np.float32, np.int8, np.bool_, BF16, np.complex64], ids=lambda d: np.dtype(d).name)
def test_strided_and_fortran_host_inputs(dt):
    base = make(rng_for("strided", np.dtype(dt).name), (6, 8), dt)
    views = [base.T, base[::2, 1::3], np.asfortranarray(base), base[:, ::-1]]
    check(lambda *vs: [v * 1 if v.dtype != jnp.bool_ else ~v for v in vs], *views, cls="exact")


def test_cross_device_copies():
    g, c = gojax_device(), cpu_device()
    x = make(rng_for("xdev"), (5, 7), np.float32)
    on_g = jax.device_put(x, g)
    back = jax.device_put(on_g, c)
    again = jax.device_put(back, g)
    np.testing.assert_array_equal(np.asarray(back), x)
    np.testing.assert_array_equal(np.asarray(again), x)
    assert again.devices() == {g}
    y = jax.jit(lambda a: a + 1)(again)
    np.testing.assert_array_equal(np.asarray(y), x + 1)


def test_many_arguments_and_outputs():
    xs = [make(rng_for("many", k), (k % 4 + 1,), np.float32) for k in range(80)]
    check(lambda *a: [v * (k + 1) for k, v in enumerate(a)] + [jnp.concatenate(a)] + [a[0]] * 20, *xs, cls="exact")
