"""Properties of the installed library and package, independent of JAX."""

from __future__ import annotations

import gc
import importlib.metadata
import json
import re
import shutil
import subprocess

import pytest

import gojax
from gojax_testutil import check_python

EXPECTED_EXPORTS = {"PyInit__gojax", "GetPjrtApi"}


def _tool(*args: str) -> str:
    if shutil.which(args[0]) is None:
        pytest.fail(f"{args[0]} (binutils) is needed for this test")
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def test_exports_exactly_pyinit_and_getpjrtapi():
    out = _tool("nm", "-D", "--defined-only", gojax.library_path())
    names = {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}
    assert names == EXPECTED_EXPORTS


def test_no_libpython_needed():
    out = _tool("readelf", "-d", gojax.library_path())
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
    assert needed, out
    assert not [n for n in needed if "python" in n], needed


def test_built_without_fast_math():
    build = gojax.build_info().build
    # The backend refuses fast-math in #cgo lines and C sources before building.
    assert build["sources_scanned_for_fast_math"] > 0
    flags = json.dumps(build)
    for bad in ("-ffast-math", "-Ofast", "-funsafe-math-optimizations"):
        assert bad not in flags
    undefined = _tool("nm", "-D", "--undefined-only", gojax.library_path())
    assert not re.search(r"__\w+_finite\b", undefined)
    symbols = _tool("readelf", "--wide", "--syms", gojax.library_path())
    assert "set_fast_math" not in symbols


def test_loading_gojax_keeps_denormals():
    # crtfastmath.o (linked by -ffast-math) would set FTZ/DAZ in MXCSR for the
    # whole process when the library loads; numpy would then flush denormals.
    out = check_python("""
        import numpy as np
        import jax, jax.numpy as jnp
        import gojax
        x = jax.device_put(np.float32(2.0), jax.devices("gojax")[0])
        (x * 3).block_until_ready()
        tiny = np.array([1e-39], np.float32)
        print(float((tiny * np.float32(1.5))[0]), float((tiny + np.float32(0))[0]))
    """)
    a, b = map(float, out.split())
    assert a == pytest.approx(1.5e-39, rel=1e-6)
    assert b == pytest.approx(1e-39, rel=1e-6)


def test_gopy_gc_hooks_removed():
    names = [getattr(cb, "__name__", "") for cb in gc.callbacks]
    assert "_gopy_gc_cb" not in names


def test_gc_hook_not_added_in_fresh_process():
    out = check_python("""
        import gc
        before = len(gc.callbacks)
        import gojax
        print(len(gc.callbacks) - before,
              [getattr(cb, "__name__", "") for cb in gc.callbacks])
    """)
    assert out.split()[0] == "0", out


def test_import_from_a_deleted_working_directory():
    # numpy is imported first: on CPython 3.13.0 numpy's own import fails
    # there (SystemError in numpy._core, without gojax); what is checked
    # is that gojax's import does not depend on the working directory.
    out = check_python("""
        import numpy
        import os, tempfile
        d = tempfile.mkdtemp()
        os.chdir(d)
        os.rmdir(d)
        import gojax
        print(gojax.__version__)
    """)
    assert out.strip() == gojax.__version__


def test_version_matches_distribution():
    assert gojax.__version__ == importlib.metadata.version("gojax")
    assert gojax.version() == gojax.__version__


def test_jax_plugins_entry_point():
    eps = importlib.metadata.entry_points(group="jax_plugins")
    ours = [ep for ep in eps if ep.name == "gojax"]
    assert len(ours) == 1
    assert ours[0].value == "gojax_plugin"
    module = ours[0].load()
    assert callable(module.initialize)


def test_wheel_tag_matches_glibc_requirement():
    wheel = importlib.metadata.distribution("gojax").read_text("WHEEL")
    tags = re.findall(r"^Tag: (.+)$", wheel, re.M)
    assert len(tags) == 1, wheel
    versions = re.findall(r"Name: GLIBC_(\d+)\.(\d+)",
                          _tool("readelf", "--wide", "-V", gojax.library_path()))
    major, minor = max((int(a), int(b)) for a, b in versions)
    assert tags[0].endswith(f"-manylinux_{major}_{minor}_x86_64"), tags[0]
    assert tags[0].startswith("cp3"), tags[0]


def test_build_info():
    info = gojax.build_info()
    assert info.version == gojax.__version__
    assert info.go_version.startswith("go1.")
    assert info.go["-buildmode"] == "c-shared"
    assert info.go["CGO_ENABLED"] == "1"
    assert info.library == gojax.library_path()
    assert set(info.build["exports"]) == EXPECTED_EXPORTS
    assert not [n for n in info.build["needed"] if "python" in n]


def test_api_pointer_and_capsule():
    ptr = gojax.api_pointer()
    assert ptr != 0
    capsule = gojax.pjrt_api_capsule()
    assert type(capsule).__name__ == "PyCapsule"
    assert "pjrt_c_api" in repr(capsule)


def test_stats_snapshot_is_consistent():
    s = gojax.stats()
    assert isinstance(s, gojax.Stats)
    assert 0 <= s.bytes_in_use <= s.peak_bytes
    assert 0 <= s.live_allocations <= s.num_allocs
    assert 0 <= s.live_buffers <= s.buffers_created


@pytest.mark.parametrize("n", [1, 3])
def test_set_worker_threads(n):
    before = gojax.worker_threads()
    try:
        gojax.set_worker_threads(n)
        assert gojax.worker_threads() == n
    finally:
        gojax.set_worker_threads(0)
    assert gojax.worker_threads() == before


@pytest.mark.parametrize("bad", [1 << 20, "2", 2.0, True])
def test_set_worker_threads_rejects_bad_values(bad):
    with pytest.raises((TypeError, RuntimeError, ValueError)):
        gojax.set_worker_threads(bad)


def _module_level_imports(path: str) -> set[str]:
    """Top-level package names a module imports when it is loaded (imports
    inside functions are lazy and optional, e.g. pyarrow for Arrow interop)."""
    import ast

    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_declared_dependencies_cover_imports():
    """The wheel declares every third-party package that importing gojax or
    its JAX entry point loads, so `pip install gojax` alone is enough."""
    import os
    import sys

    import gojax_plugin

    files = [os.path.join(os.path.dirname(gojax.__file__), f)
             for f in os.listdir(os.path.dirname(gojax.__file__)) if f.endswith(".py")]
    files.append(gojax_plugin.__file__)
    imported = set().union(*(_module_level_imports(f) for f in files))
    third_party = {n for n in imported
                   if n not in sys.stdlib_module_names and n not in ("gojax", "gojax_plugin", "__future__")}
    declared = {re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0].strip().lower().replace("-", "_")
                for r in importlib.metadata.requires("gojax") or []}
    assert third_party, "the import scan found nothing: it is broken"
    assert third_party <= declared, f"imported but not declared in pyproject.toml: {third_party - declared}"


def test_vector_limit_in_force():
    """GOJAX_VECTOR (CI runs the suites with avx2 and none) really limits the
    kernels of this process: the library reports the limit it read."""
    import os

    limit = os.environ.get("GOJAX_VECTOR", "").strip().lower() or "auto"
    vector = gojax.build_info().vector
    assert vector.endswith(f"(GOJAX_VECTOR={limit})"), vector
    if limit == "none":
        assert vector.startswith("none "), vector
    if limit == "avx2":
        assert not vector.startswith("avx512"), vector


@pytest.mark.parametrize("limit,prefix", [("none", "none "), ("avx2", ""), ("avx512", "")])
def test_vector_limit_subprocess(limit, prefix):
    out = check_python("import gojax; print(gojax.build_info().vector)", env={"GOJAX_VECTOR": limit})
    assert out.strip().endswith(f"(GOJAX_VECTOR={limit})"), out
    assert out.startswith(prefix), out
    assert "+amx" not in out, out  # tiles only under auto


def test_bad_vector_limit_is_an_error():
    out = check_python("""
        import jax
        try:
            jax.devices("gojax")
        except RuntimeError as e:
            print("error:", e)
    """, env={"GOJAX_VECTOR": "avx-512"})
    assert "error:" in out and "GOJAX_VECTOR" in out and "accepted values" in out, out
