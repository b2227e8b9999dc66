"""gojax.profile() and config.debug_nans, end to end through JAX."""

from __future__ import annotations

import json

import gojax
import jax
import jax.numpy as jnp
import numpy as np
import pytest


def _mlp(params, x):
    w1, b1, w2, b2 = params
    h = jnp.tanh(x @ w1 + b1)
    return jnp.sum((h @ w2 + b2) ** 2)


def test_profile_lists_ops_and_writes_a_chrome_trace(gojax_device, tmp_path):
    rng = np.random.default_rng(0)
    params = [jax.device_put(a, gojax_device) for a in (
        rng.normal(size=(16, 32)).astype(np.float32), np.zeros(32, np.float32),
        rng.normal(size=(32, 4)).astype(np.float32), np.zeros(4, np.float32))]
    x = jax.device_put(rng.normal(size=(8, 16)).astype(np.float32), gojax_device)
    step = jax.jit(jax.grad(_mlp))
    jax.block_until_ready(step(params, x))  # compile outside the profile

    with gojax.profile() as prof:
        for _ in range(3):
            jax.block_until_ready(step(params, x))
    ops = prof.ops()
    names = {o.name for o in ops}
    assert "stablehlo.dot_general" in names, names
    assert all(o.calls >= 1 and o.total_seconds >= 0 for o in ops)
    dot = next(o for o in ops if o.name == "stablehlo.dot_general")
    assert dot.calls % 3 == 0 and dot.total_seconds > 0
    assert "test_profile.py" in " ".join(o.where for o in ops)
    assert "dot_general" in prof.summary()

    path = tmp_path / "trace.json"
    prof.save_chrome_trace(path)
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    assert len(events) == sum(o.calls for o in ops)
    for e in events:
        assert e["ph"] == "X" and e["dur"] >= 0 and e["ts"] >= 0
        assert {"name", "pid", "tid", "args"} <= e.keys()
    assert len({e["tid"] for e in events}) == 3, "one row per execution"


def test_profile_records_nothing_outside_and_cannot_nest(gojax_device):
    f = jax.jit(lambda a: a * 2 + 1)
    x = jax.device_put(np.ones(4, np.float32), gojax_device)
    f(x).block_until_ready()
    with gojax.profile() as prof:
        with pytest.raises(RuntimeError, match="already"):
            with gojax.profile():
                pass
    assert prof.ops() == []
    f(x).block_until_ready()
    assert prof.ops() == []


def test_debug_nans_names_the_op_and_line(gojax_device):
    def f(a):
        b = a * 2.0
        c = jnp.log(b)  # the NaN is born here for negative inputs
        return jnp.exp(c) + 1.0

    bad = jax.device_put(np.array([1.0, -1.0], np.float32), gojax_device)
    fused = jax.jit(f)
    assert np.isnan(np.asarray(fused(bad))[1]), "off: NaNs flow through"
    gojax.config.debug_nans = True
    try:
        assert gojax.config.debug_nans
        # Compiled before: the fused chain is blamed as a whole.
        # (Splat constants enter the fusion as broadcasts of scalars.)
        with pytest.raises(Exception, match=r"NaN produced inside fusion\((broadcast_in_dim,)*multiply,log"):
            np.asarray(fused(bad))
        g = jax.jit(lambda a: f(a))  # compiled now: not fused
        with pytest.raises(Exception, match=r"NaN produced by stablehlo\.log.*test_profile\.py:\d+"):
            np.asarray(g(bad))
        good = jax.device_put(np.array([1.0, 2.0], np.float32), gojax_device)
        np.testing.assert_allclose(np.asarray(g(good)), [3.0, 5.0], rtol=1e-6)
        # A NaN passed in is not blamed on the ops it flows through.
        nan_in = jax.device_put(np.array([np.nan, 2.0], np.float32), gojax_device)
        assert np.isnan(np.asarray(g(nan_in))[0])
    finally:
        gojax.config.debug_nans = False
    assert np.isnan(np.asarray(g(bad))[1])
    assert np.isnan(np.asarray(fused(bad))[1])


def test_debug_nans_from_the_environment():
    from gojax_testutil import check_python

    out = check_python("""
        import gojax, jax, jax.numpy as jnp, numpy as np
        print(gojax.config.debug_nans)
        x = jax.device_put(np.float32(0), jax.devices("gojax")[0])
        try:
            np.asarray(jax.jit(lambda a: a / a)(x))
            print("no error")
        except Exception as e:
            print("error:", "NaN produced by stablehlo.divide" in str(e))
    """, env={"GOJAX_DEBUG_NANS": "1"})
    assert out.split() == ["True", "error:", "True"]
