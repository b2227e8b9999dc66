"""Writes the wheel (PEP 427) and its .dist-info with the standard library."""

from __future__ import annotations

import base64
import hashlib
import os
import sys
import zipfile

# Source directories copied into the wheel: repo path -> package path.
PACKAGES = {
    "python/gojax": "gojax",
    "jax_plugin/gojax_plugin": "gojax_plugin",
}
BINDING = "gojax/_binding"  # gopy wrappers + the shared library
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # reproducible archives


def metadata_text(meta) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {meta.name}",
        f"Version: {meta.version}",
    ]
    if meta.summary:
        lines.append(f"Summary: {meta.summary}")
    if meta.requires_python:
        lines.append(f"Requires-Python: {meta.requires_python}")
    lines += [f"Classifier: {c}" for c in meta.classifiers]
    lines += [f"Requires-Dist: {d}" for d in meta.dependencies]
    body = ""
    if meta.readme and os.path.exists(meta.readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(meta.readme, encoding="utf-8") as f:
            body = "\n" + f.read()
    return "\n".join(lines) + "\n" + body


def entry_points_text(meta) -> str:
    out = []
    for group, entries in meta.entry_points.items():
        out.append(f"[{group}]")
        out += [f"{name} = {value}" for name, value in entries.items()]
        out.append("")
    return "\n".join(out)


def wheel_text(tag: str) -> str:
    return ("Wheel-Version: 1.0\nGenerator: gojax_build\nRoot-Is-Purelib: false\n"
            f"Tag: {tag}\n")


def dist_info_name(meta) -> str:
    return f"{meta.dist_name}-{meta.version}.dist-info"


def write_dist_info(directory: str, meta) -> str:
    name = dist_info_name(meta)
    path = os.path.join(directory, name)
    os.makedirs(path, exist_ok=True)
    for fname, text in (("METADATA", metadata_text(meta)),
                        ("entry_points.txt", entry_points_text(meta))):
        with open(os.path.join(path, fname), "w", encoding="utf-8") as f:
            f.write(text)
    return name


def python_tag() -> str:
    impl = "cp" if sys.implementation.name == "cpython" else sys.implementation.name[:2]
    ver = f"{sys.version_info.major}{sys.version_info.minor}"
    # gopy's C uses the full (non-limited) C API, so the wheel is per interpreter ABI.
    return f"{impl}{ver}-{impl}{ver}{sys.abiflags}"


def write_wheel(wheel_directory: str, root: str, meta, built) -> str:
    tag = f"{python_tag()}-{built.platform_tag}"
    fname = f"{meta.dist_name}-{meta.version}-{tag}.whl"
    files: list[tuple[str, bytes]] = []
    for src, dst in PACKAGES.items():
        base = os.path.join(root, src)
        if not os.path.isdir(base):
            raise FileNotFoundError(f"gojax build: missing package directory {src}")
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith((".pyc", ".so")):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), base)
                files.append((f"{dst}/{rel}".replace(os.sep, "/"), _read(os.path.join(dirpath, name))))
    for name in (*built.python_files, built.library, built.build_log):
        files.append((f"{BINDING}/{name}", _read(os.path.join(built.out_dir, name))))

    info = dist_info_name(meta)
    files += [
        (f"{info}/METADATA", metadata_text(meta).encode()),
        (f"{info}/WHEEL", wheel_text(tag).encode()),
        (f"{info}/entry_points.txt", entry_points_text(meta).encode()),
    ]
    record = [f"{path},sha256={_digest(data)},{len(data)}" for path, data in files]
    record.append(f"{info}/RECORD,,")
    files.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))

    out = os.path.join(wheel_directory, fname)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path, data in files:
            zi = zipfile.ZipInfo(path, date_time=_ZIP_TIME)
            zi.compress_type = zipfile.ZIP_DEFLATED
            mode = 0o755 if path.endswith(".so") else 0o644
            zi.external_attr = (0o100000 | mode) << 16
            zf.writestr(zi, data)
    return fname


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
