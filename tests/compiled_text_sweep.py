"""pytest plugin (-p compiled_text_sweep): after every compile for a gojax
device, asks the executable for its HLO modules (what compile().as_text()
prints: gojax's optimized program, which jaxlib converts from StableHLO) and
records the failures. At the end it writes
{"checked": n, "optimized": m, "failures": [...]} to $GOJAX_TEXT_SWEEP_OUT.
test_introspection.py runs other test files under it."""

from __future__ import annotations

import json
import os
import re

_state = {"checked": 0, "optimized": 0, "failures": []}


def pytest_configure(config):
    from jax._src import compiler

    orig = compiler.backend_compile_and_load

    def compile_and_check(backend, module, *args, **kwargs):
        exe = orig(backend, module, *args, **kwargs)
        # gojax's client calls its platform "cpu"; its version names it.
        if str(getattr(backend, "platform_version", "")).startswith("gojax"):
            try:
                text = exe.hlo_modules()[0].to_string()
                if "\nENTRY " not in text:
                    raise AssertionError("no ENTRY computation")
                _state["checked"] += 1
                if re.search(r"^HloModule .*gojax\.kernel_steps=", text, re.M):
                    _state["optimized"] += 1
            except Exception as e:  # recorded, not raised: the sweep reports every failure
                name = str(module.operation.attributes["sym_name"])
                _state["failures"].append(f"{name}: {type(e).__name__}: {str(e)[:500]}")
        return exe

    compiler.backend_compile_and_load = compile_and_check


def pytest_sessionfinish(session, exitstatus):
    out = os.environ.get("GOJAX_TEXT_SWEEP_OUT")
    if out:
        with open(out, "w") as f:
            json.dump(_state, f)
