"""Unit tests of the in-tree PEP 517 backend (build_backend/gojax_build),
without running Go: its checks, rewrites, tags and wheel layout."""

from __future__ import annotations

import base64
import hashlib
import os
import pathlib
import re
import sys
import zipfile

import pytest

from gojax_testutil import REPO_ROOT

sys.path.insert(0, os.path.join(REPO_ROOT, "build_backend"))
from gojax_build import elf, extension, project, wheel  # noqa: E402


@pytest.mark.parametrize("var", ["CGO_CFLAGS", "CGO_LDFLAGS", "CGO_CPPFLAGS", "GOFLAGS"])
@pytest.mark.parametrize("flag", ["-ffast-math", "-Ofast", "-funsafe-math-optimizations"])
def test_env_with_fast_math_is_refused(monkeypatch, var, flag):
    monkeypatch.setenv(var, f"-O2 {flag}")
    with pytest.raises(extension.BuildError, match=var):
        extension._go_env("/usr/local/go/bin/go")


def test_env_puts_the_toolchain_first(monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin")
    env = extension._go_env("/opt/go/bin/go")
    assert env["PATH"].split(os.pathsep)[0] == "/opt/go/bin"
    assert env["CGO_ENABLED"] == "1"


@pytest.mark.parametrize("name,text", [
    ("a.go", "/*\n#cgo CFLAGS: -O3 -ffast-math\n*/\nimport \"C\"\n"),
    ("b.go", "// #cgo LDFLAGS: -Ofast\nimport \"C\"\n"),
    ("c.c", "#pragma GCC optimize(\"Ofast\")\n"),
    ("d.h", "__attribute__((optimize(\"fast-math\"))) void f(void);\n"),
])
def test_fast_math_in_sources_is_refused(tmp_path, name, text):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / name).write_text(text)
    with pytest.raises(extension.BuildError, match="fast-math is not allowed"):
        extension._check_sources(str(tmp_path))


def test_sources_scan_ignores_go_comments_and_testdata(tmp_path):
    (tmp_path / "pkg" / "testdata").mkdir(parents=True)
    (tmp_path / "pkg" / "a.go").write_text("// avoid -ffast-math: it breaks IEEE\n")
    (tmp_path / "pkg" / "testdata" / "x.c").write_text("#pragma GCC optimize(\"Ofast\")\n")
    assert extension._check_sources(str(tmp_path)) == 1


GOPY_PREAMBLE = """package main

/*

#cgo CFLAGS: "-I/py/include" -Wno-error
#cgo LDFLAGS: "-L/py/lib" "-lpython3.12" -ldl -Wl,-rpath,/py/lib -lm

#include <Python.h>
*/
import "C"
"""


def test_cgo_directives_rewritten(tmp_path):
    f = tmp_path / "gojax.go"
    f.write_text(GOPY_PREAMBLE)
    extension._rewrite_cgo_directives(str(f), ["-I/my include", "-Wno-error"])
    text = f.read_text()
    assert '#cgo CFLAGS: "-I/my include" -Wno-error\n' in text
    assert "#cgo LDFLAGS:\n" in text
    assert "python3.12" not in text and "rpath" not in text


def test_cgo_directives_missing_is_an_error(tmp_path):
    f = tmp_path / "gojax.go"
    f.write_text("package main\n")
    with pytest.raises(extension.BuildError, match="gopy output changed"):
        extension._rewrite_cgo_directives(str(f), [])


def test_wrapper_chdir_removed(tmp_path):
    f = tmp_path / "pyapi.py"
    f.write_text("import os\ncwd = os.getcwd()\ncurrentdir = 'x'\nos.chdir(currentdir)\n"
                 "from . import _gojax\nos.chdir(cwd)\n")
    extension._patch_wrapper(str(f))
    text = f.read_text()
    assert "os.chdir(" not in text.replace("removed os.chdir(", "")
    assert "os.getcwd()" not in text.replace("removed cwd = os.getcwd()", "")
    compile(text, "pyapi.py", "exec")
    f.write_text("import os\n")
    with pytest.raises(extension.BuildError, match="gopy output changed"):
        extension._patch_wrapper(str(f))


def _info(**kw):
    base = dict(exports=("PyInit__gojax", "GetPjrtApi"), undefined=(), unresolved=(),
                needed=("libc.so.6",), glibc_max=(2, 34), fast_math_markers=())
    base.update(kw)
    return elf.Info(**base)


@pytest.mark.parametrize("kw,match", [
    ({"exports": ("PyInit__gojax",)}, "export exactly"),
    ({"exports": ("PyInit__gojax", "GetPjrtApi", "DecRef")}, "export exactly"),
    ({"needed": ("libpython3.12.so.1.0", "libc.so.6")}, "libpython"),
    ({"fast_math_markers": ("__exp_finite",)}, "fast-math"),
    ({"unresolved": ("gojax_PJRT_Compile",)}, "nothing defines"),
])
def test_library_checks(kw, match):
    with pytest.raises(extension.BuildError, match=match):
        extension._check_library(_info(**kw))


def test_library_checks_pass():
    extension._check_library(_info())


@pytest.mark.parametrize("kw,tag", [
    ({}, "manylinux_2_34_x86_64"),
    ({"glibc_max": (2, 17)}, "manylinux_2_17_x86_64"),
    ({"needed": ("libc.so.6", "libstdc++.so.6")}, "linux_x86_64"),
    ({"glibc_max": None}, "linux_x86_64"),
])
def test_platform_tag(monkeypatch, kw, tag):
    monkeypatch.setattr(elf.platform, "machine", lambda: "x86_64")
    assert elf.platform_tag(_info(**kw)) == tag


def test_inspect_reads_the_installed_library():
    import gojax

    info = elf.inspect(gojax.library_path())
    assert set(info.exports) == {"PyInit__gojax", "GetPjrtApi"}
    assert info.unresolved == ()
    assert "libc.so.6" in info.needed
    assert info.glibc_max is not None


def test_python_tag():
    v = f"{sys.version_info.major}{sys.version_info.minor}"
    assert wheel.python_tag() == f"cp{v}-cp{v}{sys.abiflags}"


def test_project_metadata():
    meta = project.load(REPO_ROOT)
    assert meta.name == "gojax"
    assert meta.entry_points == {"jax_plugins": {"gojax": "gojax_plugin"}}
    text = wheel.metadata_text(meta)
    assert f"Version: {meta.version}\n" in text
    assert "Requires-Python: >=3.12\n" in text
    assert "Classifier: Programming Language :: Python :: 3.13\n" in text
    assert "Requires-Dist: jax>=0.11.2,<=0.12.0.1\n" in text
    assert wheel.entry_points_text(meta) == "[jax_plugins]\ngojax = gojax_plugin\n"


def test_classifiers_name_the_tested_pythons():
    # The interpreters CI tests on (.ci/lib.sh) and the ones the metadata
    # declares are one list in two places; this keeps them equal.
    lib = (pathlib.Path(REPO_ROOT) / ".ci" / "lib.sh").read_text()
    tested = re.search(r"^GOJAX_PYTHONS=\(([^)]*)\)", lib, re.M).group(1).split()
    declared = [c.rsplit(" :: ", 1)[1] for c in project.load(REPO_ROOT).classifiers
                if c.startswith("Programming Language :: Python :: 3.")]
    assert declared == tested
    assert f"{sys.version_info.major}.{sys.version_info.minor}" in tested


def test_wheel_layout_and_record(tmp_path):
    meta = project.load(REPO_ROOT)
    out = tmp_path / "gopy"
    out.mkdir()
    for name in ("__init__.py", "go.py", "pyapi.py", "build_log.json"):
        (out / name).write_text("# generated\n")
    (out / "_gojax.so").write_bytes(b"\x7fELF fake")
    built = extension.Built(str(out), "_gojax.so", ("__init__.py", "go.py", "pyapi.py"),
                            "build_log.json", "manylinux_2_34_x86_64")
    name = wheel.write_wheel(str(tmp_path), REPO_ROOT, meta, built)
    assert name.endswith(f"-{wheel.python_tag()}-manylinux_2_34_x86_64.whl")
    with zipfile.ZipFile(tmp_path / name) as zf:
        names = set(zf.namelist())
        for expected in ("gojax/__init__.py", "gojax/py.typed", "gojax/_binding/_gojax.so",
                         "gojax/_binding/pyapi.py", "gojax_plugin/__init__.py"):
            assert expected in names
        info = f"gojax-{meta.version}.dist-info"
        assert "[jax_plugins]" in zf.read(f"{info}/entry_points.txt").decode()
        assert "Root-Is-Purelib: false" in zf.read(f"{info}/WHEEL").decode()
        record = zf.read(f"{info}/RECORD").decode().splitlines()
        assert len(record) == len(names)
        for line in record:
            path, digest, size = line.rsplit(",", 2)
            if path.endswith("RECORD"):
                assert digest == size == ""
                continue
            data = zf.read(path)
            assert digest == "sha256=" + base64.urlsafe_b64encode(
                hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert int(size) == len(data)
        assert zf.getinfo("gojax/_binding/_gojax.so").external_attr >> 16 & 0o777 == 0o755
