"""JAX finds gojax through the jax_plugins entry point and makes it the
default backend, while XLA's CPU backend stays reachable as "cpu"."""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src import xla_bridge

import gojax
import gojax_plugin
from gojax_testutil import check_python, run_python


def test_gojax_devices():
    devs = jax.devices("gojax")
    assert len(devs) >= 1
    backend = xla_bridge.get_backend("gojax")
    assert all(d.client is backend for d in devs)
    assert [d.id for d in devs] == sorted({d.id for d in devs})


def test_platform_is_cpu():
    # Registered as "gojax"; the PJRT platform name is "cpu" so JAX lowers
    # programs with its CPU rules.
    for d in jax.devices("gojax"):
        assert d.platform == "cpu"
    assert xla_bridge.get_backend("gojax").platform == "cpu"
    assert jax.default_backend() == "cpu"


def test_cpu_is_still_xla():
    cpu = xla_bridge.get_backend("cpu")
    ours = xla_bridge.get_backend("gojax")
    assert cpu is not ours
    assert not set(jax.devices("cpu")) & set(jax.devices("gojax"))
    x = jax.device_put(np.arange(4.0, dtype=np.float32), jax.devices("cpu")[0])
    assert x.devices() == {jax.devices("cpu")[0]}
    np.testing.assert_array_equal(np.asarray(x * 2), np.arange(4.0) * 2)


def test_default_backend_is_gojax():
    assert xla_bridge.get_backend() is xla_bridge.get_backend("gojax")
    assert jax.devices()[0] == jax.devices("gojax")[0]
    y = jnp.arange(5) + 1
    assert y.devices() == {jax.devices("gojax")[0]}
    np.testing.assert_array_equal(np.asarray(y), np.arange(5) + 1)


def test_both_backends_registered_with_priorities():
    assert "gojax" in xla_bridge.backends()
    assert "cpu" in xla_bridge.backends()
    assert gojax_plugin.PRIORITY > 0  # XLA CPU's priority


def test_one_copy_of_the_library_is_mapped():
    jax.devices("gojax")
    path = os.path.realpath(gojax.library_path())
    st = os.stat(path)
    mapped = set()
    with open("/proc/self/maps") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 6 and "_gojax" in fields[5]:
                mapped.add((fields[3], fields[4], os.path.realpath(fields[5])))
    inodes = {(dev, inode) for dev, inode, _ in mapped}
    assert {p for _, _, p in mapped} == {path}
    assert inodes and all(int(i) == st.st_ino for _, i in inodes)


@pytest.mark.parametrize("n", [2, 3])
def test_num_devices_env(n):
    out = check_python("""
        import jax, numpy as np
        devs = jax.devices("gojax")
        print(len(devs), len({d.id for d in devs}))
        last = devs[-1]
        x = jax.device_put(np.arange(6, dtype=np.int32), last)
        assert x.devices() == {last}, x.devices()
        np.testing.assert_array_equal(np.asarray(x + 1), np.arange(6) + 1)
        print("ok")
    """, env={"GOJAX_NUM_DEVICES": str(n)})
    assert out.split() == [str(n), str(n), "ok"]


def test_default_is_one_device():
    env = {k: v for k, v in os.environ.items() if k != "GOJAX_NUM_DEVICES"}
    out = check_python("import jax; print(len(jax.devices('gojax')))", env=env)
    assert out.strip() == "1"


def test_jax_platforms_gojax_only():
    out = check_python("""
        import jax
        print(jax.devices()[0] in jax.devices("gojax"), sorted(jax._src.xla_bridge.backends()))
    """, env={"JAX_PLATFORMS": "gojax"})
    assert out.strip() == "True ['gojax']"


def test_bad_num_devices_env_is_reported():
    proc = run_python("""
        import jax
        jax.devices("gojax")
    """, env={"GOJAX_NUM_DEVICES": "zero", "JAX_PLATFORMS": "gojax"})
    assert proc.returncode != 0
    assert "GOJAX_NUM_DEVICES" in proc.stderr


def test_plugin_parses_no_settings():
    # GOJAX_NUM_DEVICES and the rest are parsed once, by Go (go/config);
    # the plugin passes no options of its own.
    assert not hasattr(gojax_plugin, "create_options")
    assert gojax_plugin.PLUGIN_NAME == gojax.PLUGIN_NAME
