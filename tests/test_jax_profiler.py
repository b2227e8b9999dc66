"""jax.profiler traces record gojax's executions and steps (the PJRT
profiler extension, go/capi/profiler.go) next to jaxlib's host events."""

from __future__ import annotations

import gzip
import inspect
import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

PLANE = "/device:CUSTOM:gojax"


def _fields(buf: bytes):
    """Yields (field number, int or bytes) of one protobuf message."""
    i = 0

    def varint() -> int:
        nonlocal i
        v = shift = 0
        while True:
            b = buf[i]
            i += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return v

    while i < len(buf):
        key = varint()
        wire = key & 7
        if wire == 0:
            yield key >> 3, varint()
        elif wire == 2:
            n = varint()
            yield key >> 3, buf[i:i + n]
            i += n
        elif wire == 1:
            yield key >> 3, int.from_bytes(buf[i:i + 8], "little")
            i += 8
        elif wire == 5:
            yield key >> 3, int.from_bytes(buf[i:i + 4], "little")
            i += 4
        else:
            raise ValueError(f"wire type {wire}")


def _planes(space: bytes) -> dict[str, list[dict]]:
    """XSpace -> {plane name: [event {name, line, offset_ps, duration_ps, stats}]}
    (field numbers from xplane.proto)."""
    out: dict[str, list[dict]] = {}
    for f, plane in _fields(space):
        if f != 1:
            continue
        name, lines, event_md, stat_md = "", [], {}, {}
        for pf, v in _fields(plane):
            if pf == 2:
                name = v.decode()
            elif pf == 3:
                lines.append(v)
            elif pf in (4, 5):
                entry = dict(_fields(v))
                md = dict(_fields(entry.get(2, b"")))
                (event_md if pf == 4 else stat_md)[entry.get(1, 0)] = md.get(2, b"").decode()
        events = out.setdefault(name, [])
        for line in lines:
            lf = list(_fields(line))
            line_id = next((v for f2, v in lf if f2 == 1), 0)
            for f2, ev in lf:
                if f2 != 4:
                    continue
                e = dict(offset_ps=0, duration_ps=0, line=line_id, stats={})
                for ef, v in _fields(ev):
                    if ef == 1:
                        e["name"] = event_md.get(v, "")
                    elif ef == 2:
                        e["offset_ps"] = v
                    elif ef == 3:
                        e["duration_ps"] = v
                    elif ef == 4:
                        s = dict(_fields(v))
                        value = s[5].decode() if 5 in s else s.get(3, s.get(4))
                        e["stats"][stat_md.get(s.get(1, 0), "")] = value
                events.append(e)
    return out


def _layer(x, w):
    return jnp.tanh(x @ w)


_LAYER_LINE = inspect.getsourcelines(_layer)[1] + 1


def _trace_files(tmp_path: pathlib.Path, pattern: str) -> list[pathlib.Path]:
    return sorted(tmp_path.glob(f"plugins/profile/*/{pattern}"))


def test_trace_records_gojax_executions_and_ops(gojax_device, tmp_path):
    rng = np.random.default_rng(0)
    x = jax.device_put(rng.normal(size=(8, 16)).astype(np.float32), gojax_device)
    w = jax.device_put(rng.normal(size=(16, 32)).astype(np.float32), gojax_device)
    layer = jax.jit(_layer)
    jax.block_until_ready(layer(x, w))  # compile outside the trace

    with jax.profiler.trace(str(tmp_path), create_perfetto_trace=True):
        for _ in range(3):
            jax.block_until_ready(layer(x, w))

    (pb,) = _trace_files(tmp_path, "*.xplane.pb")
    planes = _planes(pb.read_bytes())
    assert "/host:CPU" in planes, list(planes)  # jaxlib's own host events
    events = planes[PLANE]
    runs = [e for e in events if e["name"] == "jit__layer"]
    assert len(runs) == 3, [e["name"] for e in events]
    assert all(r["stats"]["program"] == "jit__layer" and r["duration_ps"] > 0 for r in runs)
    ops = [e for e in events if e["name"] != "jit__layer"]
    dots = [e for e in ops if e["name"] == "stablehlo.dot_general"]
    assert len(dots) == 3, [e["name"] for e in ops]
    for d in dots:
        assert f"test_jax_profiler.py:{_LAYER_LINE}:" in d["stats"]["source"], d
        assert d["stats"]["program"] == "jit__layer"
        # Nested in the execution of the same run, on its line.
        (run,) = [r for r in runs if r["stats"]["run"] == d["stats"]["run"]]
        assert run["line"] == d["line"]
        assert run["offset_ps"] <= d["offset_ps"]
        assert d["offset_ps"] + d["duration_ps"] <= run["offset_ps"] + run["duration_ps"]
    assert any("tanh" in e["name"] for e in ops), [e["name"] for e in ops]

    # jaxlib's trace-viewer conversion shows the plane as a process.
    (perfetto,) = _trace_files(tmp_path, "*.trace.json.gz")
    trace = json.loads(gzip.decompress(perfetto.read_bytes()))
    pids = {e["pid"] for e in trace["traceEvents"]
            if e.get("name") == "process_name" and e["args"]["name"] == PLANE}
    assert len(pids) == 1
    names = {e["name"] for e in trace["traceEvents"] if e.get("pid") in pids and e.get("ph") == "X"}
    assert {"jit__layer", "stablehlo.dot_general"} <= names, names


def test_each_trace_holds_only_its_own_executions(gojax_device, tmp_path):
    f = jax.jit(lambda v: v * 3.0 + 1.0)
    x = jax.device_put(np.ones(4, np.float32), gojax_device)
    jax.block_until_ready(f(x))
    for i, n in enumerate((1, 2)):
        d = tmp_path / str(i)
        jax.profiler.start_trace(str(d))
        for _ in range(n):
            jax.block_until_ready(f(x))
        jax.profiler.stop_trace()
        jax.block_until_ready(f(x))  # after the trace: not recorded
        (pb,) = _trace_files(d, "*.xplane.pb")
        events = _planes(pb.read_bytes())[PLANE]
        assert sum(e["name"] == "jit__lambda" for e in events) == n, [e["name"] for e in events]
