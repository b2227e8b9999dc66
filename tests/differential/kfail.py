"""known_failures.txt: parsing and matching (used by conftest.py and
test_known_failures_list.py).

Format, one entry per line:
    <test id relative to tests/differential, `*` wildcards>  | <reason>
e.g. `test_ops.py::test_op[unary-sin-bfloat16] | sin rounds wrongly in bf16`."""

from __future__ import annotations

import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
KNOWN_FAILURES_FILE = os.path.join(HERE, "known_failures.txt")

# Local ids of collected tests by file, filled at collection (before -k/-m
# deselection), read by test_known_failures_list.py.
COLLECTED: dict[str, list[str]] = {}


class FormatError(ValueError):
    pass


def load_known_failures(path=KNOWN_FAILURES_FILE):
    """[(pattern, reason)] from known_failures.txt."""
    entries = []
    if not os.path.exists(path):
        return entries
    with open(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            pat, sep, reason = line.partition("|")
            pat, reason = pat.strip(), reason.strip()
            if not sep or not reason or "::" not in pat:
                raise FormatError(f"{path}:{lineno}: want '<file>::<test id pattern> | <reason>', got {line!r}")
            entries.append((pat, reason))
    return entries


def pattern_matches(pat: str, local_id: str) -> bool:
    """`*` matches any run of characters; everything else (brackets of
    parametrized ids included) is literal."""
    rx = ".*".join(re.escape(part) for part in pat.split("*"))
    return re.fullmatch(rx, local_id) is not None


def local_id(item) -> str:
    rel = os.path.relpath(str(item.path), HERE)
    return rel + "::" + item.nodeid.split("::", 1)[1]
