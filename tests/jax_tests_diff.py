"""Differences between gojax and XLA:CPU on JAX's own test files, as Markdown.

Usage: python tests/jax_tests_diff.py XLA_DIR GOJAX_DIR [OUT.md]

Reads the junit XMLs written by the side-by-side runner (xla-FILE.xml in
XLA_DIR, gojax-FILE.xml in GOJAX_DIR) and lists, per test file, the pass
counts and every test that passes on XLA:CPU but not on gojax, grouped by the
cause its failure message shows, with one line of reason per cause. Causes
are matched in the order of CAUSES; a message none matches is grouped by its
first line with digits blanked, under "other".
"""

from __future__ import annotations

import collections
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

TRACE = "\n--- traceback\n"  # between a failure's message and its traceback

# (cause, pattern, reason). Patterns are tried on the failure message first,
# then on message and traceback together (the traceback quotes test and JAX
# source, which may contain any pattern's words).
CAUSES = [
    ("unreduced result sharding", r"(?s)Unexpected XLA sharding override.*unreduced=",
     "the result's user sharding has unreduced axes (`P(..., unreduced={...})`) and gojax reports another "
     "sharding for it"),
    ("partially manual shard_map", r"is not manual: manual computations that leave axes to the partitioner",
     "`shard_map` over part of the mesh (`axis_names=`) inside a program gojax rejects at compile"),
    ("mesh smaller than the program", r"has \d+ devices but the program has \d+ partitions",
     "a value's Shardy mesh has fewer devices than the program has partitions; gojax requires every "
     "non-maximal mesh to span all partitions"),
    ("several meshes", r"shardings use more than one mesh",
     "arguments or results annotated with shardings on different meshes in one program"),
    ("mesh axis not read", r"unsupported mesh axis",
     "an axis spelling in a sharding that gojax's Shardy parser does not read"),
    ("compiled text", r"(?s)'NoneType' (is not iterable|object has no attribute).*(as_text\(|compiled_text)",
     "reads `compile().as_text()`, which is None where the program holds Shardy ops (a shard_map, a sharding "
     "constraint): jaxlib's HLO converter refuses them"),
    ("partitioned compiled text", r"(unexpectedly found in|not found in) 'HloModule",
     "reads `compile().as_text()` expecting XLA's partitioned HLO (per-device shapes, its collectives); gojax's "
     "text is the optimized program it runs, which for a program it runs in global form (not partitioned) has "
     "global shapes and no collectives"),
    ("no-result program", r"HLO module output is an empty tuple",
     "a program without results: jaxlib rejects the output shardings gojax reports for it"),
    ("partitioned host callback", r'unknown custom call target "xla_ffi_partitioned_python_cpu_callback"',
     "`jax.debug.print` / `debug_callback(partitioned=True)` lowers to a callback XLA calls once per shard; "
     "gojax has no kernel for that target"),
    ("custom call target", r"unknown custom call target",
     "a custom call gojax has no kernel for (`inspect_sharding` of a computed value, a debug callback "
     "target) fails the compile"),
    ("host callback in a partition", r"host callback \d+ was not provided",
     "a host callback (`jax.debug.print`) inside a `shard_map` body runs in a partition that does not "
     "find JAX's callable"),
    ("unsupported type", r"types of dialect \w+ are not supported",
     "the program casts to a type gojax's StableHLO reader does not accept (`unrealized_conversion_cast`, "
     "seen from an `io_callback` without results inside `shard_map`)"),
    ("output layouts", r"(?s)out_info.*isinstance\(l, Layout\)",
     "reads the compiled program's output layouts (`compiled.out_info`), which are not `Layout` objects on "
     "gojax"),
    ("result sharding differs", r"Named\[\d+ chars\]|NamedSharding\(.*\) != |P\(.*\) != P\(",
     "a result's sharding differs from XLA:CPU's (gojax leaves it replicated or shards it otherwise)"),
    ("shard shape differs", r"Tuples differ: \(\d+(, \d+)*,?\) != \(",
     "shard shapes differ from XLA:CPU's, following from a different result sharding"),
    ("gradient differs", r"VJP cotangent projection|JVP tangent",
     "a gradient differs from the numerical derivative `check_grads` takes (wrong values; not diagnosed yet)"),
    ("different values", r"Not equal to tolerance|Arrays are not (almost )?equal|Mismatched elements",
     "values differ from XLA:CPU's; in the tests named *unreduced* (and bincount/segment_sum with unreduced "
     "results) these are per-device shards of unreduced values that gojax computes in global form (manual "
     "computations, scatters the partitioner does not keep partial): XLA keeps each device's partial result, "
     "gojax puts the whole value at coordinate 0 (the sums agree)"),
]


def outcomes(path: str) -> dict[str, tuple[str, str]]:
    """test id -> (passed|failed|skipped, message and traceback)."""
    res = {}
    for tc in ET.parse(path).getroot().iter("testcase"):
        tid = f"{tc.get('classname')}::{tc.get('name')}"
        kind, msg = "passed", ""
        for child in tc:
            if child.tag in ("failure", "error"):
                kind, msg = "failed", (child.get("message") or "") + TRACE + (child.text or "")
                break
            if child.tag == "skipped":
                kind = "skipped"
        res[tid] = (kind, msg)
    return res


def cause(msg: str) -> tuple[str, str]:
    head = msg.split(TRACE, 1)[0]
    for text in (head, msg):
        for name, pat, reason in CAUSES:
            if re.search(pat, text):
                return name, reason
    first = (msg.strip().split("\n") or [""])[0]
    return "other: " + re.sub(r"\d+", "N", first)[:120], "not classified: see the message"


def diff(xla_dir: str, gojax_dir: str) -> list[dict]:
    files = []
    for xml in sorted(glob.glob(os.path.join(xla_dir, "xla-*.xml"))):
        name = os.path.basename(xml)[len("xla-"):-len(".xml")]
        xr = outcomes(xml)
        passed = [t for t, (k, _) in xr.items() if k == "passed"]
        gx = os.path.join(gojax_dir, f"gojax-{name}.xml")
        f = {"file": name, "xla_passed": len(passed), "ran": os.path.exists(gx), "groups": {}}
        if f["ran"]:
            gr = outcomes(gx)
            f["gojax_passed"] = sum(gr.get(t, ("missing", ""))[0] == "passed" for t in passed)
            for t in passed:
                k, msg = gr.get(t, ("missing", ""))
                if k == "passed":
                    continue
                c = ("not run on gojax", "the test is missing from gojax's report (the run stopped first)") \
                    if k == "missing" else ("skipped on gojax", "skipped on gojax only") if k == "skipped" \
                    else cause(msg)
                f["groups"].setdefault(c, []).append(t.split("::")[-1])
        files.append(f)
    return files


def markdown(files: list[dict], xla_dir: str, gojax_dir: str) -> str:
    out = ["# JAX's sharding tests: gojax vs XLA:CPU", "",
           f"Generated by `python tests/jax_tests_diff.py {xla_dir} {gojax_dir}` from the junit XMLs of "
           "`jax_tests.py` (JAX's tests of the 0.11.1 tree, jax 0.11.2, 8 devices). A test counts only if it "
           "passes on XLA:CPU; each group is one cause, read from the failure messages. \"not run\": the "
           "gojax side of that file has no XML in the directory (yet).", "",
           "| file | pass on XLA:CPU | of those, pass on gojax | fail on gojax |", "|---|---|---|---|"]
    for f in files:
        if f["ran"]:
            out.append(f"| {f['file']} | {f['xla_passed']} | {f['gojax_passed']} | "
                       f"{f['xla_passed'] - f['gojax_passed']} |")
        else:
            out.append(f"| {f['file']} | {f['xla_passed']} | not run | |")
    ran = [f for f in files if f["ran"]]
    if ran:
        xp, gp = sum(f["xla_passed"] for f in ran), sum(f["gojax_passed"] for f in ran)
        out.append(f"| all run | {xp} | {gp} | {xp - gp} |")
    causes = collections.Counter()
    for f in files:
        for (name, _), tests in f["groups"].items():
            causes[name] += len(tests)
    if causes:
        out += ["", "| cause, all files | tests |", "|---|---|"]
        out += [f"| {name} | {n} |" for name, n in sorted(causes.items(), key=lambda kv: (-kv[1], kv[0]))]
    for f in files:
        if not f["groups"]:
            continue
        out += ["", f"## {f['file']}", ""]
        for (name, reason), tests in sorted(f["groups"].items(), key=lambda kv: (-len(kv[1]), kv[0][0])):
            out += [f"- **{name}** ({len(tests)}): {reason}.", "  " + ", ".join(f"`{t}`" for t in sorted(tests))]
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__)
        return 2
    text = markdown(diff(argv[0], argv[1]), argv[0], argv[1])
    if len(argv) == 3:
        with open(argv[2], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
