"""``python -m benchmarks.rpc --interceptor``: where the interceptor's cost per call goes,
in instructions under callgrind (load on a shared machine moves CPU times, not counts).

Each echo server of ``benchmarks.rpc`` runs under ``valgrind --tool=callgrind``: without
the interceptor, with it, with it but no log line (log level ``warning``), with it but no
receive timer (``receive_timeout`` None), and with it in prometheus-client's multiprocess
mode (``PROMETHEUS_MULTIPROC_DIR`` set, as ``stud-server --workers N`` runs each worker:
every metric update writes a memory-mapped file). After ``WARMUP`` calls the counts are zeroed
(``callgrind_control -z``), ``CALLS`` calls are made (8 in flight), and the count dumped
then, divided by the calls, is the server's instructions per call.
"""

from __future__ import annotations

import asyncio
import glob
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

KINDS = (  # the echo servers of ``benchmarks.rpc --serve-echo``
    ("aio-bare", "echo, no interceptor"),
    ("aio", "echo, interceptor (metrics, log line, receive timer)"),
    ("aio-nolog", "echo, interceptor, no log line"),
    ("aio-notimer", "echo, interceptor, no receive timer"),
)
MULTIPROC = "echo, interceptor, multiprocess metrics (--workers)"  # ``aio``, files
WARMUP, CALLS = 200, 1000


def _instructions(dump: str) -> int:
    with open(dump) as lines:
        for line in lines:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError(f"{dump}: no totals")


def per_call(kind: str, env: dict[str, str], tmp: Path, multiproc: bool = False) -> float:
    from benchmarks.rpc import ECHO_METHOD, ServerProcess, _drive, bytes_value_of_size

    name = f"{kind}-multiproc" if multiproc else kind
    if multiproc:  # as each worker of ``stud-server --workers N`` runs
        (tmp / "metrics").mkdir()
        env = {**env, "PROMETHEUS_MULTIPROC_DIR": str(tmp / "metrics")}
    out = tmp / f"callgrind.{name}"
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p"]
    cmd += [sys.executable, "-m", "benchmarks.rpc", "--serve-echo", kind]
    server = ServerProcess([*cmd, "--response-bytes", "2700"], env, tmp, name)
    try:
        server.wait_ready(600)
        target, requests = f"127.0.0.1:{server.port}", [bytes_value_of_size(380)]
        asyncio.run(_drive(target, ECHO_METHOD, requests, WARMUP, 8))
        pid = str(server.proc.pid)
        subprocess.run(["callgrind_control", "-z", pid], check=True, capture_output=True)
        asyncio.run(_drive(target, ECHO_METHOD, requests, CALLS, 8))
        subprocess.run(["callgrind_control", "-d", pid], check=True, capture_output=True)
    finally:
        server.stop()
    (dump,) = glob.glob(f"{out}.*.1")
    return _instructions(dump) / CALLS


def run(env: dict[str, str]) -> None:
    if not (shutil.which("valgrind") and shutil.which("callgrind_control")):
        print("valgrind is not installed (apt-get install valgrind)")
        return
    with tempfile.TemporaryDirectory(prefix="bench-interceptor-") as tmp:
        counts = {kind: per_call(kind, env, Path(tmp)) for kind, _ in KINDS}
        multiproc = per_call("aio", env, Path(tmp), multiproc=True)
    print(
        f"bench-rpc --interceptor: server instructions per echo call under callgrind "
        f"({CALLS} calls after {WARMUP}, 8 in flight, request 380 B, response 2,700 B); "
        f"load average {os.getloadavg()[0]:.1f} (does not move the counts)"
    )
    bare, full = counts["aio-bare"], counts["aio"]
    for kind, name in KINDS:
        print(f"  {name:<56}{counts[kind] / 1e3:>8.1f} k")
    print(f"  {MULTIPROC:<56}{multiproc / 1e3:>8.1f} k")
    print(
        f"the interceptor: {(full - bare) / 1e3:+.1f} k a call ({full / bare:.2f}x the bare "
        f"echo); its log line {(full - counts['aio-nolog']) / 1e3:.1f} k, its receive "
        f"timer {(full - counts['aio-notimer']) / 1e3:.1f} k; multiprocess metrics "
        f"{(multiproc - full) / 1e3:+.1f} k"
    )
