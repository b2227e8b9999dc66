"""The harness itself: runs really reach two different backends, and the
comparison really fails on differences."""

from __future__ import annotations

import numpy as np
import pytest

from diffutil import BF16, assert_same, cpu_device, gojax_device, run_both


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
