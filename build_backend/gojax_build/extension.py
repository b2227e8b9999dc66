"""Compiles gojax's single shared library: gopy extension + PJRT plugin.

Steps (gopy gen compiles the tree once in the default mode, shared with
`go vet`/`go test` through the build cache; the c-shared link compiles it
once more with -shared):
 1. `go tool gopy gen` writes the cgo glue (gojax.go), the pybindgen script
    (build.py) and the Python wrappers (go.py, pyapi.py) for go/pyapi.
 2. The wrappers lose gopy's os.chdir around the extension import; the
    generated cgo directives are replaced: Python's include directory
    only, and no libpython on the link line (an extension resolves Python's
    symbols from the interpreter that loads it; libpython is not allowed in
    manylinux wheels).
 3. build.py (pybindgen) writes gojax.c; `go tool cgo -exportheader` writes
    the gojax_go.h it includes, without a throwaway link.
 4. `go build -buildmode=c-shared` links the library with a version script
    that exports only PyInit__gojax and GetPjrtApi (gopy's own link would
    hide GetPjrtApi and add -ffast-math to every cgo package).
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time

from . import elf

MODULE = "gojax"  # gopy -name: extension module _gojax, init PyInit__gojax
PYAPI_PKG = "github.com/gojax/gojax/go/pyapi"
EXPORTS = ("PyInit__" + MODULE, "GetPjrtApi")
# Generated C needs these on GCC >= 14, where the diagnostics became errors.
GOPY_CFLAGS = ("-Wno-error", "-Wno-implicit-function-declaration", "-Wno-int-conversion")
# Flags that change floating-point semantics; never allowed in a gojax build.
FORBIDDEN_FLAGS = ("-ffast-math", "-Ofast", "-funsafe-math-optimizations")


@dataclasses.dataclass(frozen=True)
class Built:
    out_dir: str  # holds the generated Python wrappers and the library
    library: str  # file name of the shared library inside out_dir
    python_files: tuple[str, ...]  # generated wrapper files inside out_dir
    build_log: str  # file name of the JSON build record inside out_dir
    platform_tag: str


class BuildError(RuntimeError):
    pass


def build(root: str, meta) -> Built:
    os.makedirs(os.path.join(root, "build"), exist_ok=True)
    # Two builds in one checkout (e.g. two venvs being set up) share build/_gopy.
    with open(os.path.join(root, "build", ".gojax-build.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build(root, meta)


def _build(root: str, meta) -> Built:
    start = time.monotonic()
    go = _find_go()
    env = _go_env(go)
    out = os.path.join(root, "build", "_gopy")  # "_" keeps it out of ./...
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    log: dict = {"python": sys.executable, "go": go, "steps": []}

    def run(args, cwd, step):
        t0 = time.monotonic()
        _say(f"{step}: {shlex.join(args)}")
        proc = subprocess.run(args, cwd=cwd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        elapsed = time.monotonic() - t0
        log["steps"].append({"step": step, "args": args, "seconds": round(elapsed, 2)})
        if proc.returncode != 0:
            raise BuildError(f"gojax build step {step!r} failed (exit {proc.returncode}):\n"
                             f"$ {shlex.join(args)}\n{proc.stdout}")
        return proc.stdout

    log["sources_scanned_for_fast_math"] = _check_sources(os.path.join(root, "go"))
    run([go, "version"], root, "go version")
    # gopy gen first compiles go/pyapi and its imports in the default build
    # mode; `go vet`/`go test` reuse those objects from the build cache. The
    # c-shared link below compiles once more with -shared (no way to share).
    run([go, "tool", "gopy", "gen", f"-vm={sys.executable}", f"-name={MODULE}", "-no-make",
         f"-output={out}", PYAPI_PKG], root, "gopy gen")
    gofile = os.path.join(out, MODULE + ".go")
    run([go, "tool", "goimports", "-w", gofile], out, "goimports")

    wrappers = ("go.py", PYAPI_PKG.rsplit("/", 1)[1] + ".py")
    for name in wrappers:
        _patch_wrapper(os.path.join(out, name))

    cflags = _python_cflags() + list(GOPY_CFLAGS)
    _rewrite_cgo_directives(gofile, cflags)
    run([sys.executable, "build.py"], out, "pybindgen")
    with tempfile.TemporaryDirectory() as objdir:
        run([go, "tool", "cgo", "-objdir", objdir, "-exportheader", MODULE + "_go.h", "--",
             *cflags, MODULE + ".go"], out, "cgo header")

    version_script = os.path.join(out, "exports.map")
    with open(version_script, "w", encoding="utf-8") as f:
        f.write("{ global: %s; local: *; };\n" % "; ".join(EXPORTS))

    library = "_" + MODULE + sysconfig.get_config_var("EXT_SUFFIX")
    ldflags = ["-X", f"{PYAPI_PKG}.version={meta.version}"]
    if os.environ.get("GOJAX_BUILD_KEEP_SYMBOLS", "") in ("", "0"):
        ldflags += ["-s", "-w"]  # Go tracebacks use pclntab, not these tables
    ldflags.append(_quote_go_flag(f"-extldflags=-Wl,--version-script={version_script}"))
    run([go, "build", "-buildmode=c-shared", "-trimpath", "-buildvcs=false",
         "-ldflags=" + " ".join(ldflags), "-o", os.path.join(out, library),
         "./" + os.path.relpath(out, root)], root, "go build c-shared")

    lib_path = os.path.join(out, library)
    info = elf.inspect(lib_path)
    _check_library(info)
    tag = elf.platform_tag(info)

    log.update({
        "cgo_cflags_env": env.get("CGO_CFLAGS", "(go default: -O2 -g)"),
        "cgo_ldflags_env": env.get("CGO_LDFLAGS", ""),
        "main_package_cflags": cflags,
        "version_script": list(EXPORTS),
        "exports": sorted(info.exports),
        "needed": sorted(info.needed),
        "glibc_max": ".".join(map(str, info.glibc_max)) if info.glibc_max else None,
        "platform_tag": tag,
        "seconds": round(time.monotonic() - start, 2),
        "library_bytes": os.path.getsize(lib_path),
    })
    build_log = "build_log.json"
    with open(os.path.join(out, build_log), "w", encoding="utf-8") as f:
        json.dump(log, f, indent=1)
    _say(f"built {library} ({log['library_bytes']} bytes, {tag}) in {log['seconds']} s")
    return Built(out, library, ("__init__.py", *wrappers), build_log, tag)


def _find_go() -> str:
    go = shutil.which("go") or next(
        (p for p in ("/usr/local/go/bin/go", "/usr/lib/go/bin/go") if os.access(p, os.X_OK)), None)
    if go is None:
        raise BuildError("gojax needs the Go toolchain (go 1.26 or newer) on PATH to build")
    return go


def _go_env(go: str) -> dict[str, str]:
    env = dict(os.environ)
    env["CGO_ENABLED"] = "1"
    # gopy runs `go` itself, so the toolchain found here must come first on PATH.
    env["PATH"] = os.pathsep.join([os.path.dirname(go), env.get("PATH", "")])
    for var in ("CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_LDFLAGS", "CGO_CXXFLAGS", "GOFLAGS"):
        value = env.get(var, "")
        bad = [f for f in FORBIDDEN_FLAGS if f in value.split()]
        if bad:
            raise BuildError(f"{var} contains {bad}: gojax must be built with IEEE floating point")
    return env


_FAST_MATH_SOURCE = re.compile(
    r"fast-math|-Ofast|unsafe-math-optimizations|optimize\s*\(\s*\"(?:O|-O)fast")


def _check_sources(go_dir: str) -> int:
    """Refuses fast-math requested from source: #cgo flags in Go files, or
    pragmas/attributes in C files. Returns the number of files scanned."""
    scanned = 0
    for dirpath, dirnames, filenames in os.walk(go_dir):
        dirnames[:] = [d for d in dirnames if not d.startswith((".", "_")) and d != "testdata"]
        for name in filenames:
            if not name.endswith((".go", ".c", ".h", ".cc", ".s", ".S")):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    if name.endswith(".go") and "#cgo" not in line:
                        continue
                    if _FAST_MATH_SOURCE.search(line):
                        raise BuildError(f"{path}:{lineno}: fast-math is not allowed in gojax: "
                                         f"{line.strip()}")
            scanned += 1
    return scanned


def _python_cflags() -> list[str]:
    paths = sysconfig.get_paths()
    dirs = [paths["include"]]
    if paths.get("platinclude") and paths["platinclude"] != paths["include"]:
        dirs.append(paths["platinclude"])
    return ["-I" + d for d in dirs]


def _rewrite_cgo_directives(gofile: str, cflags: list[str]) -> None:
    with open(gofile, encoding="utf-8") as f:
        lines = f.read().split("\n")
    seen = set()
    for i, line in enumerate(lines):
        if line.startswith("#cgo CFLAGS:"):
            lines[i] = "#cgo CFLAGS: " + " ".join(_quote_go_flag(c) for c in cflags)
            seen.add("CFLAGS")
        elif line.startswith("#cgo LDFLAGS:"):
            # Python's symbols come from the interpreter at load time.
            lines[i] = "#cgo LDFLAGS:"
            seen.add("LDFLAGS")
    if seen != {"CFLAGS", "LDFLAGS"}:
        raise BuildError(f"{gofile}: gopy output changed; #cgo directives found: {sorted(seen)}")
    with open(gofile, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


# gopy's wrappers chdir into their own directory while importing the
# extension: not thread-safe, needless for a package-relative import, and
# os.getcwd() fails in a process whose working directory was removed.
_WRAPPER_LINES_REMOVED = ("cwd = os.getcwd()", "os.chdir(currentdir)", "os.chdir(cwd)")


def _patch_wrapper(path: str) -> None:
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for target in _WRAPPER_LINES_REMOVED:
        hits = [i for i, line in enumerate(lines) if line == target]
        if len(hits) != 1:
            raise BuildError(f"{path}: gopy output changed; expected one line {target!r}, "
                             f"found {len(hits)}")
        lines[hits[0]] = "pass  # gojax build: removed " + target
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def _quote_go_flag(flag: str) -> str:
    if not any(c.isspace() or c in "'\"" for c in flag):
        return flag
    if '"' in flag:
        raise BuildError(f"cannot quote build flag {flag!r}")
    return '"' + flag + '"'


def _check_library(info) -> None:
    if info.unresolved:
        shown = ", ".join(sorted(info.unresolved)[:20])
        raise BuildError(f"the gojax library references {len(info.unresolved)} symbols that "
                         f"nothing defines (they would fail at import): {shown}")
    exports = set(info.exports)
    if exports != set(EXPORTS):
        raise BuildError(f"the gojax library must export exactly {sorted(EXPORTS)}, "
                         f"it exports {sorted(exports)} (GetPjrtApi comes from //export in go/capi)")
    libpython = [n for n in info.needed if n.startswith("libpython")]
    if libpython:
        raise BuildError(f"the gojax library must not link libpython, NEEDED has {libpython}")
    if info.fast_math_markers:
        raise BuildError(f"the gojax library carries fast-math code: {info.fast_math_markers}")


def _say(msg: str) -> None:
    print(f"[gojax build] {msg}", file=sys.stderr, flush=True)
