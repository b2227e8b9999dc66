"""tests/jax_tests_diff.py: counts and groups JAX test failures from junit XMLs."""

from __future__ import annotations

import os
import subprocess
import sys

import jax_tests_diff as d


def junit(path, cases):
    body = []
    for name, kind, msg in cases:
        inner = {"passed": "", "skipped": "<skipped/>",
                 "failed": f'<failure message="{msg}">trace</failure>'}[kind]
        body.append(f'<testcase classname="t.T" name="{name}">{inner}</testcase>')
    path.write_text("<testsuites><testsuite>" + "".join(body) + "</testsuite></testsuites>")


def test_groups_failures_of_tests_xla_passes(tmp_path):
    x, g = tmp_path / "x", tmp_path / "g"
    x.mkdir(), g.mkdir()
    junit(x / "xla-a_test.py.xml", [("t1", "passed", ""), ("t2", "passed", ""), ("t3", "passed", ""),
                                    ("t4", "passed", ""), ("t5", "failed", "boom"), ("t6", "passed", "")])
    junit(g / "gojax-a_test.py.xml", [
        ("t1", "passed", ""),
        ("t2", "failed", "AssertionError: Unexpected XLA sharding override: (XLA) "
                         "GSPMDSharding({replicated}) != P(None, unreduced={&apos;x&apos;})"),
        ("t3", "failed", "RuntimeError: weird 12 thing"),
        ("t5", "failed", "also boom"),  # fails on XLA too: not counted
        ("t6", "skipped", "")])  # t4 missing: the run stopped
    junit(x / "xla-b_test.py.xml", [("u", "passed", "")])  # no gojax side yet
    files = d.diff(str(x), str(g))
    a, b = files
    assert (a["file"], a["xla_passed"], a["gojax_passed"]) == ("a_test.py", 5, 1)
    groups = {name: tests for (name, _), tests in a["groups"].items()}
    assert groups == {"unreduced result sharding": ["t2"], "other: RuntimeError: weird N thing": ["t3"],
                      "not run on gojax": ["t4"], "skipped on gojax": ["t6"]}
    assert not b["ran"]
    md = d.markdown(files, str(x), str(g))
    assert "| a_test.py | 5 | 1 | 4 |" in md and "| b_test.py | 1 | not run | |" in md
    out = tmp_path / "o.md"
    p = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "jax_tests_diff.py"),
                        str(x), str(g), str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert out.read_text() == md
