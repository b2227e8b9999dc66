"""Checks a built gojax wheel: RECORD hashes, the interpreter tag against the
Python running this check (the extension is built for one CPython ABI), the
platform tag against the highest GLIBC_x.y symbol version the library needs
(PEP 600), NEEDED entries inside the manylinux policy, and exactly the two
exported symbols.

Usage: python wheels/check_wheel.py dist/gojax-*.whl
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import zipfile

EXPORTS = {"PyInit__gojax", "GetPjrtApi"}
ALLOWED_NEEDED = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1"}


def readelf(*args: str) -> str:
    return subprocess.run(["readelf", "--wide", *args], check=True, capture_output=True,
                          text=True).stdout


def check(path: str) -> list[str]:
    problems = []
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        record_name = next(n for n in names if n.endswith(".dist-info/RECORD"))
        for line in zf.read(record_name).decode().splitlines():
            name, digest, size = line.rsplit(",", 2)
            if name == record_name:
                continue
            data = zf.read(name)
            want = "sha256=" + base64.urlsafe_b64encode(
                hashlib.sha256(data).digest()).rstrip(b"=").decode()
            if digest != want or int(size) != len(data):
                problems.append(f"RECORD mismatch for {name}")
        wheel = zf.read(record_name.replace("RECORD", "WHEEL")).decode()
        tags = re.findall(r"^Tag: (.+)$", wheel, re.M)
        libs = [n for n in names if re.search(r"/_gojax\..*\.so$", n)]
        if len(libs) != 1:
            return problems + [f"expected one gojax library, found {libs}"]
        with tempfile.TemporaryDirectory() as tmp:
            lib = zf.extract(libs[0], tmp)
            versions = re.findall(r"Name: GLIBC_(\d+)\.(\d+)", readelf("-V", lib))
            needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]",
                                    readelf("-d", lib)))
            exports = set()
            for line in readelf("--dyn-syms", lib).splitlines():
                f = line.split()
                if len(f) >= 8 and f[6] != "UND" and f[4] in ("GLOBAL", "WEAK") \
                        and f[3] not in ("SECTION", "FILE"):
                    exports.add(f[7].split("@")[0])
    major, minor = max((int(a), int(b)) for a, b in versions)
    plat = f"manylinux_{major}_{minor}_x86_64"
    if len(tags) != 1 or not tags[0].endswith("-" + plat):
        problems.append(f"WHEEL tags {tags}, expected one ending in {plat}")
    cp = f"cp{sys.version_info.major}{sys.version_info.minor}"
    if len(tags) != 1 or not tags[0].startswith(f"{cp}-{cp}-"):
        problems.append(f"WHEEL tags {tags}, expected one for {cp}-{cp}")
    if not libs[0].endswith(f".cpython-{cp[2:]}-x86_64-linux-gnu.so"):
        problems.append(f"library {libs[0]} is not built for CPython {cp[2:]}")
    if not os.path.basename(path).endswith(f"-{plat}.whl"):
        problems.append(f"file name {os.path.basename(path)} does not end in {plat}")
    if not needed <= ALLOWED_NEEDED:
        problems.append(f"NEEDED outside the manylinux policy: {sorted(needed - ALLOWED_NEEDED)}")
    if exports != EXPORTS:
        problems.append(f"exports {sorted(exports)}, expected {sorted(EXPORTS)}")
    print(f"{os.path.basename(path)}: GLIBC_{major}.{minor}, NEEDED {sorted(needed)}, "
          f"exports {sorted(exports)}")
    return problems


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    found = check(sys.argv[1])
    for p in found:
        print("problem:", p, file=sys.stderr)
    sys.exit(1 if found else 0)
