"""``python -m benchmarks.rpc --instructions``: Act against the echo in server instructions
per call under callgrind, side by side in one run (load on a shared machine moves CPU
times, not instruction counts).

The Act mix is recorded first from a ``stud-server`` running normally (the same requests
and sealing key as ``make bench-rpc``); then each server runs under ``valgrind
--tool=callgrind`` in turn: ``stud-server`` (one worker) replaying the mix, the echo on
the same server settings (grpc.aio, the interceptor, JSON call logs to a file) and the
bare echo (no interceptor), both echoes with the mix's median request and response
sizes. After ``WARMUP`` calls a server's counts are zeroed (``callgrind_control -z``),
``CALLS`` calls are made (8 in flight), and the count dumped then, divided by the calls,
is its instructions per call. Callgrind counts user-space instructions only: the kernel's
share of a call (the sockets), which the CPU times of ``make bench-rpc`` include and
which is about the same for Act and the echo, is not in these counts, so their ratio is
above the CPU-time ratio.
"""

from __future__ import annotations

import asyncio
import glob
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from benchmarks.rpc_load import ServerProcess, send_calls

WARMUP, CALLS = 200, 1000


def _instructions(dump: str) -> int:
    with open(dump) as lines:
        for line in lines:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError(f"{dump}: no totals")


def have_callgrind() -> bool:
    if shutil.which("valgrind") and shutil.which("callgrind_control"):
        return True
    print("valgrind is not installed (apt-get install valgrind)")
    return False


def per_call(
    server_cmd: Sequence[str],
    env: dict[str, str],
    tmp: Path,
    name: str,
    method: str,
    requests: Sequence[bytes],
) -> float:
    """The instructions per call of the server ``server_cmd`` under callgrind, answering
    ``CALLS`` calls to ``method`` (cycling through ``requests``) after ``WARMUP``."""
    out = tmp / f"callgrind.{name}"
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p", *server_cmd]
    server = ServerProcess(cmd, env, tmp, name)
    try:
        server.wait_ready(600)
        target = f"127.0.0.1:{server.port}"
        asyncio.run(send_calls(target, method, requests, WARMUP, 8))
        pid = str(server.proc.pid)
        subprocess.run(["callgrind_control", "-z", pid], check=True, capture_output=True)
        asyncio.run(send_calls(target, method, requests, CALLS, 8))
        subprocess.run(["callgrind_control", "-d", pid], check=True, capture_output=True)
    finally:
        server.stop()
    (dump,) = glob.glob(f"{out}.*.1")
    return _instructions(dump) / CALLS


def echo_cmd(kind: str, response_bytes: int) -> list[str]:
    """The echo server process of ``benchmarks.rpc`` (``kind``: see ``serve_echo``)."""
    cmd = [sys.executable, "-m", "benchmarks.rpc", "--serve-echo", kind]
    return [*cmd, "--response-bytes", str(response_bytes)]


STUD_CMD = [sys.executable, "-m", "studengine.server", "--port", "0", "--metrics-port", "0"]


def recorded_mix(
    env: dict[str, str], logs: Path, hands: int, seed: int
) -> tuple[list[bytes], int, int]:
    """Act requests of ``hands`` random hands recorded from a ``stud-server`` running
    normally, with their median request and response sizes (``benchmarks.rpc.record``)."""
    from benchmarks.rpc import record

    recorder = ServerProcess(STUD_CMD, env, logs, "recorder")
    try:
        recorder.wait_ready()
        return record(f"127.0.0.1:{recorder.port}", hands, random.Random(seed))
    finally:
        recorder.stop()


def run(env: dict[str, str], hands: int, seed: int) -> None:
    from benchmarks.rpc import ACT_METHOD, ECHO_METHOD, bytes_value_of_size

    if not have_callgrind():
        return
    with tempfile.TemporaryDirectory(prefix="bench-instructions-") as tmp:
        logs = Path(tmp)
        mix, request_bytes, response_bytes = recorded_mix(env, logs, hands, seed)
        echo = [bytes_value_of_size(request_bytes)]
        act = per_call(STUD_CMD, env, logs, "act", ACT_METHOD, mix)
        same = per_call(echo_cmd("aio", response_bytes), env, logs, "echo", ECHO_METHOD, echo)
        bare = per_call(echo_cmd("aio-bare", response_bytes), env, logs, "bare", ECHO_METHOD, echo)
    print(
        f"bench-rpc --instructions: server instructions per call under callgrind ({CALLS} "
        f"calls after {WARMUP}, 8 in flight); Act mix: {len(mix)} recorded Act requests from "
        f"{hands} random hands (Five/Seven, 2-8 players, seed {seed}), the echoes with its "
        f"median request {request_bytes} B and response {response_bytes} B; load average "
        f"{os.getloadavg()[0]:.1f} (does not move the counts)"
    )
    for name, count in (
        ("Act (stud-server, 1 worker)", act),
        ("echo, same server settings", same),
        ("echo, no interceptor", bare),
    ):
        print(f"  {name:<40}{count / 1e3:>10.1f} k")
    print(
        f"Act / echo (same settings): {act / same:.2f}x the instructions per call; Act less "
        f"the echo {(act - same) / 1e3:.1f} k ({(act - same) / same:.2f}x the echo); the "
        f"interceptor {(same - bare) / 1e3:+.1f} k"
    )
