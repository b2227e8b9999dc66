"""jax.distributed jobs of several gojax processes on loopback, started by
the tests themselves: every collective, all-reduce-heavy programs and a
data-parallel training step give bit-identical results to one process with
as many devices (and match XLA:CPU), the training steps run partitioned
(each process its own devices' programs), a killed or stopped peer makes
the others fail within the timeout naming it (partitioned and in the
global-run model), a stranger on the data-plane port is refused without
harming the job, nothing listens once the client is gone, and device_put
moves arrays between the devices of different processes (a lost sender
fails the receiver within the timeout, naming it).

Each job's processes run tests/distributed_worker.py; every subprocess has
a timeout, so a hang fails the test instead of hanging CI.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from gojax_testutil import TESTS_DIR

WORKER = os.path.join(TESTS_DIR, "distributed_worker.py")
JOB_TIMEOUT = 150  # seconds a whole job may take on a loaded 2-core machine


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(scenario: str, nproc: int, index: int, outdir: str, env: dict[str, str], port: int = 0):
    full = dict(os.environ)
    full.update(env)
    return subprocess.Popen([sys.executable, WORKER, scenario, str(port), str(nproc), str(index), str(outdir)],
                            cwd=TESTS_DIR, env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(procs, then_kill: bool = False) -> list[tuple[int, str, str]]:
    """Waits for every process (killing all on timeout) and returns
    (exit status, stdout, stderr) of each; then_kill kills the others once
    the first has ended."""
    deadline = time.monotonic() + JOB_TIMEOUT
    out = []
    for n, p in enumerate(procs):
        if then_kill and n > 0:
            p.kill()
        try:
            o, e = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            o, e = p.communicate()
            pytest.fail(f"a job process hung past {JOB_TIMEOUT}s\n--- stdout\n{o}\n--- stderr\n{e[-3000:]}")
        out.append((p.returncode, o, e))
    return out


def results(out) -> list[str]:
    return [" ".join(line[len("RESULT "):] for line in o.splitlines() if line.startswith("RESULT ")) for _, o, _ in out]


def run_job(scenario: str, nproc: int, devices_each: int, outdir, env: dict[str, str] | None = None,
            then_kill: bool = False):
    port = free_port()
    procs = [start(scenario, nproc, i, outdir, {"GOJAX_NUM_DEVICES": str(devices_each), **(env or {})}, port)
             for i in range(nproc)]
    return finish(procs, then_kill)


def check_ok(out):
    for i, (rc, o, e) in enumerate(out):
        # A crash report's cause is at its start (the signal, the faulting
        # goroutine) and the runtime's state at its end: keep both.
        err = e if len(e) <= 8000 else e[:4000] + "\n[...]\n" + e[-4000:]
        assert rc == 0 and "RESULT ok" in o, f"process {i} exited {rc}\n--- stdout\n{o}\n--- stderr\n{err}"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """One process with 4 devices: gojax, and XLA:CPU as the outside oracle.
    A job's processes run per device what the partitioner accepts, as one
    process does, and the rest on global arrays, as one process does with
    such programs: the two must agree bit for bit."""
    d = tmp_path_factory.mktemp("ref")
    procs = [start("all", 0, 0, d, {"GOJAX_NUM_DEVICES": "4", "WORKER_PLATFORM": "gojax"}),
             start("all", 0, 0, d, {"WORKER_PLATFORM": "cpu", "WORKER_CPU_DEVICES": "4", "JAX_PLATFORMS": "cpu"})]
    check_ok(finish(procs))
    return dict(np.load(d / "result-0-gojax.npz")), dict(np.load(d / "result-0-cpu.npz"))


@pytest.mark.parametrize("nproc,devices_each", [(2, 2), (4, 1)])
def test_collectives_and_training_match_one_process(reference, tmp_path, nproc, devices_each):
    out = run_job("all", nproc, devices_each, tmp_path)
    check_ok(out)
    # Every process ran each of the 3 training steps per device, on its
    # own devices only (the partitioned path, not the global run).
    assert results(out) == [results(out)[0]] * nproc and "partitioned_train 3" in results(out)[0], results(out)
    got = dict(np.load(tmp_path / f"result-{nproc}-job.npz"))
    single, xla = reference
    assert set(got) == set(single)
    for k in got:
        assert got[k].dtype == single[k].dtype and got[k].shape == single[k].shape, k
        assert got[k].tobytes() == single[k].tobytes(), f"{k} differs from one process with as many devices"
        a, b = got[k], xla[k]
        if a.dtype.kind == "V":  # bfloat16 saved as raw 2-byte values
            a = (a.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
            b = (b.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=f"{k} against XLA:CPU")


@pytest.mark.parametrize("scenario,nproc,why,mode", [("kill", 2, "closed its connection", "jit"),
                                                      ("stop", 2, "sent nothing within", "jit"),
                                                      ("kill", 4, "closed its connection", "jit"),
                                                      ("kill", 2, "closed its connection", "shard_map"),
                                                      ("kill", 2, "closed its connection", "global"),
                                                      ("stop", 2, "sent nothing within", "global")])
def test_lost_peer_fails_the_others(tmp_path, scenario, nproc, why, mode):
    timeout = 6
    env = {"GOJAX_COLLECTIVE_TIMEOUT": str(timeout), "WORKER_COLLECTIVE": mode}
    if mode == "global":
        env["GOJAX_SPMD_PARTITION"] = "0"  # every process runs the global program
    # A stopped process never ends by itself: kill the rest once process 0 is done.
    out = run_job(scenario, nproc, 1, tmp_path, env, then_kill=nproc == 2)
    res = results(out)
    assert res[0].startswith("error after"), f"process 0: {res[0]}\n{out[0][2][-3000:]}"
    assert "process 1 (" in res[0] and why in res[0], res[0]
    if mode != "global":
        # Each process runs its own device's program (a jit sum's or a
        # shard_map's psum): it fails in its all-reduce, which the error names.
        assert "stablehlo.all_reduce" in res[0] and "collective exchange" in res[0], res[0]
        assert "UNAVAILABLE" in res[0], res[0]
    else:
        # The argument exchange before the global run fails.
        assert "exchanging argument shards" in res[0] and "program" in res[0], res[0]
    # Every survivor fails, naming a peer (process 1, or one that failed
    # because of it and exited first).
    for i in range(2, nproc):
        assert res[i].startswith("error after") and re.search(r"process \d \(", res[i]), f"process {i}: {res[i]}"
    for r in res[:1] + res[2:]:
        assert float(r.split()[2].rstrip("s:")) < timeout + 30, r
    assert out[1][0] == -signal.SIGKILL


@pytest.mark.parametrize("nproc,devices_each", [(2, 2), (4, 1)])
def test_device_put_between_processes(tmp_path, nproc, devices_each):
    """jax.device_put onto another process's devices (PJRT cross-host
    transfers): one device to one device and back, and reshards of global
    arrays onto the devices of other processes in another order, in every
    dtype; each process checks its shards against the values it computes."""
    out = run_job("transfer", nproc, devices_each, tmp_path)
    check_ok(out)
    # 10 dtypes x (2 single-device moves + 3 specs x 2 reshards).
    assert all(r == "ok 80" for r in results(out)), results(out)


@pytest.mark.parametrize("scenario,why", [("transfer_lost", "closed its connection|cannot connect"),
                                          ("transfer_silent", "sent nothing for transfer")])
def test_transfer_from_lost_peer_fails(tmp_path, scenario, why):
    timeout = 6
    out = run_job(scenario, 2, 1, tmp_path, {"GOJAX_COLLECTIVE_TIMEOUT": str(timeout)}, then_kill=True)
    res = results(out)[0]
    assert res.startswith("error after"), f"process 0: {res}\n{out[0][2][-3000:]}"
    assert "cross-host receive from device 2048" in res and "process 1 (" in res and re.search(why, res), res
    assert float(res.split()[2].rstrip("s:")) < timeout + 30, res


def test_stranger_is_refused_and_nothing_listens_after(tmp_path):
    ports = [free_port(), free_port()]
    port = free_port()
    procs = [start("stranger", 2, i, tmp_path, {"GOJAX_NUM_DEVICES": "1", "GOJAX_DATAPLANE_HOST": "127.0.0.1",
                                                "GOJAX_DATAPLANE_PORT": str(ports[i])}, port) for i in range(2)]
    try:
        # Wait until the job is up, then knock on both data-plane ports.
        deadline = time.monotonic() + JOB_TIMEOUT
        connected = 0
        while connected < 2 and time.monotonic() < deadline:
            connected = 0
            for p in ports:
                try:
                    with socket.create_connection(("127.0.0.1", p), timeout=2) as s:
                        s.recv(32)  # the challenge
                        s.sendall(b"GOJAXDP1" + bytes(4 + 32 + 32))  # a hello without the secret
                        s.settimeout(5)
                        assert s.recv(64) == b"", "a stranger got an answer"
                    connected += 1
                except (ConnectionRefusedError, socket.timeout, ConnectionResetError):
                    time.sleep(0.2)
            if any(p.poll() is not None for p in procs):
                break
        assert connected == 2, "the job never came up"
        with socket.create_connection(("127.0.0.1", ports[1]), timeout=2) as s:
            s.sendall(b"GET / HTTP/1.0\r\n\r\n" + b"x" * 100)
        (tmp_path / "go").write_text("")
    finally:
        out = finish(procs)
    for i, (rc, o, e) in enumerate(out):
        assert rc == 0, f"process {i} exited {rc}\n{o}\n{e[-3000:]}"
        res = results([(rc, o, e)])[0]
        assert "psum 2.0" in res, res
        assert "listening before=True after=False" in res, res + e[-3000:]
        assert "refused a connection" in e and "wrong job secret" in e, e[-3000:]
    assert "not a gojax data-plane hello" in out[1][2]
