"""os.fork() after gojax has loaded: Go's runtime threads do not survive fork,
so the child must get a clear error at once, never hang, and the parent must
keep working. Each scenario runs in its own interpreter (a hang there fails
the test through the subprocess timeout instead of wedging pytest)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

MESSAGE = "gojax cannot be used in a forked child process"

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

_PRELUDE = """
import json, os, sys, time, warnings
warnings.simplefilter("ignore")  # JAX warns that fork may deadlock: the point here
import jax, jax.numpy as jnp, numpy as np
import gojax
dev = jax.devices("gojax")[0]
f = jax.jit(lambda x: x * 2 + 1)
x = jax.device_put(np.arange(4, dtype=np.float32), dev)
assert np.asarray(f(x)).tolist() == [1, 3, 5, 7]


def attempt(fn):
    t0 = time.monotonic()
    try:
        fn()
        out = "no error"
    except Exception as e:  # what the child sees, reported to the parent
        out = f"{type(e).__name__}: {e}"
    return {"error": out, "seconds": time.monotonic() - t0}
"""


def _run(body: str, timeout: float = 120) -> tuple[dict, str]:
    code = _PRELUDE + textwrap.dedent(body)
    # gojax only: XLA's own CPU client cannot survive fork either (its
    # teardown in the child waits on threads that are gone).
    env = dict(os.environ, JAX_PLATFORMS="gojax")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)
    assert p.returncode == 0, p.stderr[-4000:]
    return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr


def test_forked_child_gets_error_and_parent_keeps_working():
    got, _ = _run(
        """
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            res = {
                "jit_cached": attempt(lambda: f(x).block_until_ready()),
                "jit_new": attempt(lambda: jax.jit(lambda y: y - 3)(x).block_until_ready()),
                "device_put": attempt(lambda: jax.device_put(np.ones(3, np.float32), dev).block_until_ready()),
                "stats": attempt(gojax.stats),
                "config": attempt(lambda: gojax.config.worker_threads),
                "in_forked_child": gojax.in_forked_child(),
            }
            os.write(w, json.dumps(res).encode())
            os.close(w)
            os._exit(0)
        os.close(w)
        data = b""
        while chunk := os.read(r, 65536):
            data += chunk
        _, status = os.waitpid(pid, 0)
        child = json.loads(data)
        parent = np.asarray(jax.jit(lambda y: y * y)(x)).tolist()
        print(json.dumps({"child": child, "status": status, "parent": parent,
                          "stats": gojax.stats().executions, "in_forked_child": gojax.in_forked_child()}))
        """
    )
    assert got["status"] == 0
    assert got["parent"] == [0, 1, 4, 9]
    assert got["stats"] >= 2
    assert got["child"].pop("in_forked_child") is True
    assert got["in_forked_child"] is False
    for what, res in got["child"].items():
        assert MESSAGE in res["error"], (what, res)
        assert res["seconds"] < 1.0, (what, res)
    for what in ("stats", "config"):
        assert got["child"][what]["error"].startswith("RuntimeError"), got["child"][what]


def test_forked_child_exits_normally():
    # The child's interpreter shutdown (JAX's atexit clean-up destroys the
    # client and its buffers) must not hang or abort either.
    got, stderr = _run(
        """
        pid = os.fork()
        if pid == 0:
            try:
                f(x).block_until_ready()
            except Exception:
                pass
            sys.exit(7)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"code": os.waitstatus_to_exitcode(status)}))
        """,
        timeout=60,
    )
    assert got["code"] == 7
    assert "Exception ignored" not in stderr, stderr


def test_multiprocessing_fork_worker_gets_error():
    got, _ = _run(
        """
        import multiprocessing as mp


        def work(_):
            return attempt(lambda: np.asarray(f(x)).tolist())


        if __name__ == "__main__":
            # Python 3.12's default on Linux; named so later defaults still test it.
            ctx = mp.get_context("fork")
            with ctx.Pool(1) as pool:
                res = pool.map_async(work, [0]).get(timeout=60)
            print(json.dumps({"worker": res[0], "parent": np.asarray(f(x)).tolist()}))
        """
    )
    assert MESSAGE in got["worker"]["error"], got
    assert got["worker"]["seconds"] < 1.0, got
    assert got["parent"] == [1, 3, 5, 7]


def test_forked_child_metadata_matches_parent():
    # jaxlib aborts the process (LOG(FATAL)) when a getter it treats as
    # infallible fails: device, memory, client and executable metadata must
    # answer in a child as in the parent, and deleting an array in the child
    # must work; only calls that do work fail there.
    got, _ = _run(
        """
        from jax._src import xla_bridge
        compiled = f.lower(x).compile()
        topo = xla_bridge.make_pjrt_topology("gojax", "")
        def facts():
            mem = dev.default_memory()
            return {
                "device": [dev.id, dev.process_index, dev.device_kind, str(dev), repr(dev),
                           dev.local_hardware_id, dev.platform],
                "memories": [[m.kind, str(m), repr(m)] for m in dev.addressable_memories()],
                "default_memory": [mem.kind, str(mem), [d.id for d in mem.addressable_by_devices()]],
                "process_index": jax.process_index(),
                "array": [str(x.dtype), list(x.shape), [d.id for d in x.devices()], x.sharding.memory_kind,
                          x.is_deleted()],
                "executable": [compiled.output_shardings.memory_kind, str(compiled.out_info)],
                "topology": [topo.platform, topo.platform_version,
                             [[d.id, d.device_kind, d.process_index] for d in topo._make_compile_only_devices()]],
            }
        parent = facts()
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            res = {"facts": facts(), "cached": attempt(lambda: f(x).block_until_ready()),
                   "compiled": attempt(lambda: compiled(x).block_until_ready())}
            x.delete()
            res["deleted"] = x.is_deleted()
            os.write(w, json.dumps(res).encode())
            os.close(w)
            os._exit(0)
        os.close(w)
        data = b""
        while chunk := os.read(r, 65536):
            data += chunk
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"child": json.loads(data) if data else None, "status": status, "parent": parent,
                          "after": np.asarray(f(x)).tolist()}))
        """
    )
    assert got["status"] == 0, got
    child = got["child"]
    assert child["facts"] == got["parent"]
    for what in ("cached", "compiled"):
        assert MESSAGE in child[what]["error"], (what, child[what])
    assert child["deleted"] is True
    assert got["after"] == [1, 3, 5, 7]  # the child's delete left the parent's array alone
