"""gojax's settings: every GOJAX_* variable through Go's one parser, read at
import, in a fresh interpreter per case; gojax.config's setters through the
same parser; invalid values fail loudly at import and in JAX."""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gojax
from gojax_testutil import check_python, run_python

# A variable set to a value that must take effect, and the gojax.config
# field's expected value (printed with repr).
GOOD = [
    ("GOJAX_NUM_DEVICES", " 2", "num_devices", 2),
    ("GOJAX_ASYNC_DISPATCH", "yes", "async_dispatch", True),
    ("GOJAX_ASYNC_DISPATCH", "ON", "async_dispatch", True),
    ("GOJAX_ASYNC_DISPATCH", "true", "async_dispatch", True),
    ("GOJAX_INLINE_BYTES", "1MiB", "inline_bytes", 1 << 20),
    ("GOJAX_INLINE_BYTES", "0", "inline_bytes", 0),
    ("GOJAX_BUFFER_CACHE_BYTES", "12345678", "buffer_cache_bytes", 12345678),
    ("GOJAX_BUFFER_CACHE_BYTES", "64 mib", "buffer_cache_bytes", 64 << 20),
    ("GOJAX_MEMORY_LIMIT", "8GiB", "memory_limit", 8 << 30),
    ("GOJAX_MEMORY_LIMIT", "", "memory_limit", None),
    ("GOJAX_DEBUG_NANS", "off", "debug_nans", False),
    ("GOJAX_DEBUG_NANS", "false", "debug_nans", False),
    ("GOJAX_DEBUG_NANS", "no", "debug_nans", False),
    ("GOJAX_DEBUG_NANS", "Yes", "debug_nans", True),
    ("GOJAX_FLUSH_DENORMALS", "false", "flush_denormals", False),
    ("GOJAX_FLUSH_DENORMALS", "off", "flush_denormals", False),
    ("GOJAX_FLUSH_DENORMALS", "1", "flush_denormals", True),
    ("GOJAX_SPIN_US", " 0 ", "spin_us", 0),
    ("GOJAX_SPIN_US", "250", "spin_us", 250),
    ("GOJAX_VECTOR", "NONE", "vector", "none"),
    ("GOJAX_VECTOR", "", "vector", "auto"),
    ("GOJAX_COLLECTIVE_TIMEOUT", "45", "collective_timeout", 45),
    ("GOJAX_SPMD_PARTITION", "off", "spmd_partition", False),
    ("GOJAX_SPMD_PARTITION", "", "spmd_partition", True),
    ("GOJAX_DATAPLANE_HOST", " 10.1.2.3", "dataplane_host", "10.1.2.3"),
    ("GOJAX_DATAPLANE_HOST", "AUTO", "dataplane_host", "auto"),
    ("GOJAX_DATAPLANE_PORT", "7000", "dataplane_port", 7000),
]


@pytest.mark.parametrize("var,value,field,want", GOOD, ids=[f"{v}={s!r}" for v, s, _, _ in GOOD])
def test_environment_sets_the_field(var, value, field, want):
    out = check_python(f"import gojax; print(repr(gojax.config.{field}))", env={var: value})
    assert out.strip() == repr(want)


def test_crash_output_from_the_environment(tmp_path):
    path = tmp_path / "crash.txt"
    out = check_python("import gojax; print(gojax.config.crash_output)", env={"GOJAX_CRASH_OUTPUT": str(path)})
    assert out.strip() == str(path)
    assert path.exists(), "opened (created) when the library loads"
    out = check_python("import gojax; print(gojax.config.crash_output)", env={"GOJAX_CRASH_OUTPUT": ""})
    assert out.strip() == "None"


def test_dump_dir_from_the_environment_is_absolute(tmp_path):
    out = check_python("import gojax; print(gojax.config.dump_dir)",
                       env={"GOJAX_DUMP_DIR": "dumps here"})
    assert out.strip() == os.path.join(os.path.dirname(os.path.abspath(__file__)), "dumps here")


BAD = [
    ("GOJAX_NUM_DEVICES", "0"), ("GOJAX_NUM_DEVICES", "-1"), ("GOJAX_NUM_DEVICES", "abc"),
    ("GOJAX_ASYNC_DISPATCH", "maybe"),
    ("GOJAX_INLINE_BYTES", "1e3"), ("GOJAX_INLINE_BYTES", "99999999999999999999"),
    ("GOJAX_BUFFER_CACHE_BYTES", "1GB"),
    ("GOJAX_MEMORY_LIMIT", "0"), ("GOJAX_MEMORY_LIMIT", "off"),
    ("GOJAX_DEBUG_NANS", "2"), ("GOJAX_DEBUG_NANS", "-1"),
    ("GOJAX_FLUSH_DENORMALS", "ftz"),
    ("GOJAX_SPIN_US", "abc"), ("GOJAX_SPIN_US", "1e3"),
    ("GOJAX_VECTOR", "sse"),
]


@pytest.mark.parametrize("var,value", BAD, ids=[f"{v}={s!r}" for v, s in BAD])
def test_invalid_environment_raises_at_import(var, value):
    proc = run_python("""
        try:
            import gojax
        except ValueError as e:
            print("ValueError:", e)
        else:
            print("imported")
    """, env={var: value})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ValueError:"), proc.stdout
    assert f"{var}={value!r}".replace("'", '"') in proc.stdout
    assert "accepted values are" in proc.stdout


def test_every_invalid_variable_is_named():
    proc = run_python("import gojax", env={"GOJAX_SPIN_US": "x", "GOJAX_DEBUG_NANS": "x"})
    assert proc.returncode != 0
    assert "GOJAX_SPIN_US" in proc.stderr and "GOJAX_DEBUG_NANS" in proc.stderr


def test_debug_nans_off_leaves_checks_off_and_yes_turns_them_on():
    code = """
        import gojax, jax, numpy as np
        x = jax.device_put(np.float32(0), jax.devices("gojax")[0])
        try:
            print(np.isnan(np.asarray(jax.jit(lambda a: a / a)(x))))
        except Exception as e:
            print("error:", "NaN produced by stablehlo.divide" in str(e))
    """
    assert check_python(code, env={"GOJAX_DEBUG_NANS": "off"}).split() == ["True"]
    assert check_python(code, env={"GOJAX_DEBUG_NANS": "yes"}).split() == ["error:", "True"]


def test_flush_denormals_false_keeps_subnormals():
    code = """
        import gojax, jax, numpy as np
        tiny = np.finfo(np.float32).tiny
        x = jax.device_put(np.array([tiny], np.float32), jax.devices("gojax")[0])
        print(np.asarray(jax.jit(lambda v: v * np.float32(0.5))(x))[0] == tiny / 2)
    """
    assert check_python(code, env={"GOJAX_FLUSH_DENORMALS": "false"}).strip() == "True"
    assert check_python(code, env={"GOJAX_FLUSH_DENORMALS": "on"}).strip() == "False"


def test_num_devices_with_spaces_reaches_jax():
    out = check_python("""
        import gojax, jax
        print(gojax.config.num_devices, len(jax.devices("gojax")))
    """, env={"GOJAX_NUM_DEVICES": " 2 "})
    assert out.split() == ["2", "2"]


def test_invalid_environment_fails_jax_loudly():
    """JAX must not fall back to XLA:CPU when gojax's settings are invalid:
    every jax.devices() call raises with the variable's name."""
    proc = run_python("""
        import jax
        for _ in range(2):
            try:
                print("devices:", jax.devices())
            except RuntimeError as e:
                print("RuntimeError:", e)
    """, env={"GOJAX_NUM_DEVICES": "abc", "JAX_PLATFORMS": ""})
    lines = proc.stdout.splitlines()
    assert len(lines) == 2, proc.stdout + proc.stderr
    for line in lines:
        assert line.startswith("RuntimeError: Unable to initialize backend 'gojax'"), line
        assert 'GOJAX_NUM_DEVICES="abc"' in line and "accepted values are" in line
    assert "Jax plugin configuration error" in proc.stderr
    assert 'GOJAX_NUM_DEVICES="abc"' in proc.stderr


def test_invalid_environment_and_jax_platforms_cpu():
    # Naming only XLA's CPU backend skips gojax: the escape hatch JAX's
    # message points to.
    out = check_python("import jax; print(jax.devices()[0].platform, jax.default_backend())",
                       env={"GOJAX_NUM_DEVICES": "abc", "JAX_PLATFORMS": "cpu"})
    assert out.split() == ["cpu", "cpu"]


@pytest.fixture
def restore_config():
    c = gojax.config
    saved = {f: getattr(c, f) for f in ("async_dispatch", "inline_bytes", "buffer_cache_bytes", "dump_dir",
                                        "debug_nans", "flush_denormals", "spin_us", "memory_limit")}
    yield c
    for f, v in saved.items():
        setattr(c, f, v)


@pytest.mark.parametrize("field,value,want", [
    ("debug_nans", "on", True), ("debug_nans", " OFF ", False), ("debug_nans", True, True), ("debug_nans", "0", False),
    ("flush_denormals", "no", False), ("flush_denormals", "Yes", True), ("flush_denormals", False, False),
    ("async_dispatch", "1", True), ("async_dispatch", False, False),
    ("spin_us", 0, 0), ("spin_us", "250", 250),
    ("inline_bytes", "2KiB", 2048), ("inline_bytes", 4096, 4096),
    ("buffer_cache_bytes", "1MiB", 1 << 20), ("buffer_cache_bytes", 0, 0),
    ("memory_limit", "64 GiB", 64 << 30), ("memory_limit", 1 << 40, 1 << 40), ("memory_limit", None, None),
])
def test_setter_takes_the_variables_spellings(restore_config, field, value, want):
    setattr(restore_config, field, value)
    assert getattr(restore_config, field) == want


@pytest.mark.parametrize("field,value,exc", [
    ("debug_nans", "maybe", ValueError), ("debug_nans", 1, TypeError), ("debug_nans", 1.0, TypeError),
    ("flush_denormals", "ftz", ValueError), ("async_dispatch", "2", ValueError),
    ("spin_us", "1e3", ValueError), ("spin_us", -1, ValueError), ("spin_us", 10**7, ValueError),
    ("spin_us", True, TypeError), ("spin_us", 1.5, TypeError),
    ("inline_bytes", "1MB", ValueError), ("inline_bytes", 1 << 63, ValueError),
    ("buffer_cache_bytes", -1, ValueError), ("buffer_cache_bytes", True, TypeError),
    ("memory_limit", 0, ValueError), ("memory_limit", "1GB", ValueError), ("memory_limit", 1.5, TypeError),
    ("dump_dir", "", ValueError), ("dump_dir", "a\0b", ValueError), ("dump_dir", 3, TypeError),
])
def test_setter_rejects(restore_config, field, value, exc):
    before = getattr(restore_config, field)
    with pytest.raises(exc, match=field):
        setattr(restore_config, field, value)
    assert getattr(restore_config, field) == before


def test_setter_error_names_accepted_values(restore_config):
    with pytest.raises(ValueError, match=r'gojax\.config\.debug_nans="maybe" is invalid: accepted values are 1/0'):
        restore_config.debug_nans = "maybe"


def test_none_restores_defaults(restore_config):
    restore_config.spin_us = 5
    restore_config.spin_us = None
    assert restore_config.spin_us == 100
    restore_config.inline_bytes = 0
    restore_config.inline_bytes = None
    assert restore_config.inline_bytes == 256 << 10


def test_memory_limit_refuses_buffers_and_temporaries_past_it(restore_config, gojax_device):
    # 64 MiB of room: a 128 MiB result, and a program whose temporaries
    # need 256 MiB, fail with RESOURCE_EXHAUSTED naming the limit; the
    # process goes on, and without the limit the same programs run.
    x = jax.device_put(np.float32(1), gojax_device)
    big = jax.jit(lambda v: jnp.broadcast_to(v, (32 << 20,)))
    temps = jax.jit(lambda v: jnp.cumsum(jnp.broadcast_to(v, (64 << 20,)))[::1 << 20])
    restore_config.memory_limit = "64MiB"
    for f in (big, temps):
        with pytest.raises(Exception, match=r"RESOURCE_EXHAUSTED: .*memory limit of 67108864 bytes"):
            jax.block_until_ready(f(x))
    restore_config.memory_limit = None
    assert restore_config.memory_limit is None
    assert big(x).shape == (32 << 20,)
    assert temps(x).shape == (64,)


def test_read_only_fields(restore_config):
    for field in ("num_devices", "vector"):
        with pytest.raises(AttributeError):
            setattr(restore_config, field, getattr(restore_config, field))
    assert restore_config.vector in ("auto", "avx512", "avx2", "none")


def test_unwritable_dump_dir_does_not_fail_compiles(restore_config, tmp_path, capfd, gojax_device):
    """Compiles go on without dumps; the failure is reported once per
    directory on stderr."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    restore_config.dump_dir = blocker / "dumps"  # under a regular file: never creatable
    x = jax.device_put(np.arange(3, dtype=np.float32), gojax_device)
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda a: a * 3.0)(x)), [0, 3, 6])
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda a: a - 1.0)(x)), [-1, 0, 1])
    err = capfd.readouterr().err
    assert err.count("cannot write module dumps to " + str(blocker / "dumps")) == 1, err
