"""The harness itself: runs really reach two different backends, and the
comparison really fails on differences."""

from __future__ import annotations

import numpy as np
import pytest

from diffutil import BF16, assert_same, cpu_device, dot_bounds, gojax_device, make, rng_for, run_both


def test_devices_are_distinct_backends():
    g, c = gojax_device(), cpu_device()
    assert g.client.platform_version != c.client.platform_version
    assert "gojax" in g.client.platform_version


def test_results_live_on_their_devices():
    got, want = run_both(lambda x: x + 1, np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dt,delta,cls", [(np.int32, 1, "exact"), (np.bool_, True, "exact"),
                                          (np.float32, 1e-3, "transc"), (BF16, 0.25, "default"),
                                          (np.complex64, 1e-3j, "default")])
def test_assert_same_detects_differences(dt, delta, cls):
    w = np.ones((3,), dt)
    g = w.copy()
    g[1] = g[1] + delta if dt != np.bool_ else False
    with pytest.raises(AssertionError):
        assert_same(g, w, cls)
    assert_same(w.copy(), w, cls)


def test_assert_same_checks_dtype_and_shape():
    with pytest.raises(AssertionError):
        assert_same(np.zeros(3, np.float32), np.zeros(3, np.float64))
    with pytest.raises(AssertionError):
        assert_same(np.zeros((3, 1)), np.zeros((3,)))


@pytest.mark.parametrize("dt", [np.float32, BF16, np.complex64])
def test_dot_bounds_hold_and_catch_wrong_results(dt):
    """The "dot" class: XLA's matmul is within half the bound of the float64
    result (each engine is within gamma_n * sum|a||b|), and a result with
    one term dropped, a wrong element or a transposition is beyond it.
    (bf16's worst-case bound grows fast with k: 16 terms allow ~16 % of
    sum|a||b|, as much as a dropped term; 4 terms keep it at ~5 %.)"""
    rng = rng_for("dot-bounds", np.dtype(dt).name)
    k = 4 if dt == BF16 else 16
    a, b = make(rng, (6, k), dt), make(rng, (k, 6), dt)
    fn = lambda x, y: {"mm": x @ y, "sum": x.sum(axis=1)}
    bounds = dot_bounds(fn, a, b)
    _, want = run_both(fn, a, b)
    wide = np.complex128 if np.dtype(dt).kind == "c" else np.float64
    exact = a.astype(wide) @ b.astype(wide)
    diff = np.abs(want["mm"].astype(wide) - exact)
    assert np.all(diff <= bounds["mm"] / 2), np.max(diff / bounds["mm"])
    assert_same(want, want, "dot", bounds=bounds)
    mm = want["mm"]
    dropped = mm.copy()
    dropped[2, 3] = (exact[2, 3] - a[2, 1].astype(wide) * b[1, 3].astype(wide)).astype(dt)
    swapped = mm.copy()
    swapped[[1, 4]] = swapped[[4, 1]]
    for wrong in (dropped, swapped, mm.T.copy()):
        with pytest.raises(AssertionError, match="beyond the error bound"):
            assert_same({"mm": wrong, "sum": want["sum"]}, want, "dot", bounds=bounds)
    with pytest.raises(AssertionError, match="pass bounds"):
        assert_same(want, want, "dot")
