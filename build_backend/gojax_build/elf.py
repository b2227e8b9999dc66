"""Reads what the build must check in the library: exported dynamic symbols,
NEEDED entries and glibc symbol versions (binutils' readelf, which the cgo
link needs anyway), and picks the wheel's platform tag from them."""

from __future__ import annotations

import dataclasses
import platform
import re
import subprocess

# Libraries a manylinux wheel may depend on without bundling (PEP 600 policy,
# trimmed to what a Go c-shared library can pull in).
_PYTHON_SYMBOL = re.compile(r"_?Py[A-Z_]")
MANYLINUX_ALLOWED = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1"}


@dataclasses.dataclass(frozen=True)
class Info:
    exports: tuple[str, ...]  # defined global/weak dynamic symbols
    undefined: tuple[str, ...]
    # Undefined, unversioned, non-weak symbols that are not Python's C API:
    # nothing at load time will provide them (the link allows undefined
    # symbols because Python's come from the interpreter).
    unresolved: tuple[str, ...]
    needed: tuple[str, ...]
    glibc_max: tuple[int, int] | None  # highest GLIBC_x.y version needed
    fast_math_markers: tuple[str, ...]


def _readelf(*args: str) -> str:
    return subprocess.run(["readelf", "--wide", *args], check=True, stdout=subprocess.PIPE,
                          text=True).stdout


def inspect(path: str) -> Info:
    exports, undefined, unresolved = [], [], []
    for line in _readelf("--dyn-syms", path).splitlines():
        # Num: Value Size Type Bind Vis Ndx Name
        f = line.split()
        if len(f) < 8 or not f[0].rstrip(":").isdigit() or f[3] in ("SECTION", "FILE"):
            continue
        name, _, version = f[7].partition("@")
        if f[6] == "UND":
            if name:
                undefined.append(name)
                if not version and f[4] != "WEAK" and not _PYTHON_SYMBOL.match(name):
                    unresolved.append(name)
        elif f[4] in ("GLOBAL", "WEAK"):
            exports.append(name)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", _readelf("-d", path))
    versions = [(int(a), int(b)) for a, b in
                re.findall(r"Name: GLIBC_(\d+)\.(\d+)", _readelf("-V", path))]
    markers = [s for s in undefined if s.startswith("__") and s.endswith("_finite")]
    symtab = _readelf("--syms", path)
    if re.search(r"\bset_fast_math\b", symtab):
        markers.append("set_fast_math (crtfastmath.o)")
    return Info(tuple(exports), tuple(undefined), tuple(unresolved), tuple(needed),
                max(versions) if versions else None, tuple(markers))


def platform_tag(info: Info) -> str:
    """manylinux_X_Y_<arch> from the highest GLIBC symbol version (PEP 600),
    or the plain linux tag when the library needs anything outside the policy."""
    arch = platform.machine()
    if info.glibc_max is None or not set(info.needed) <= MANYLINUX_ALLOWED:
        return f"linux_{arch}"
    major, minor = info.glibc_max
    return f"manylinux_{major}_{minor}_{arch}"
