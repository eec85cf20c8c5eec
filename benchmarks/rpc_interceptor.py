"""``python -m benchmarks.rpc --interceptor``: where the interceptor's cost per call goes,
in instructions under callgrind (load on a shared machine moves CPU times, not counts).

Each echo server of ``benchmarks.rpc`` runs under ``valgrind --tool=callgrind``: without
the interceptor, with it, with it but no log line (log level ``warning``), with it but no
receive timer (``receive_timeout`` None). After ``WARMUP`` calls the counts are zeroed
(``callgrind_control -z``), ``CALLS`` calls are made (8 in flight), and the count dumped
then, divided by the calls, is the server's instructions per call.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from benchmarks.rpc_instructions import CALLS, WARMUP, echo_cmd, have_callgrind, per_call

KINDS = (
    ("aio-bare", "echo, no interceptor"),
    ("aio", "echo, interceptor (metrics, log line, receive timer)"),
    ("aio-nolog", "echo, interceptor, no log line"),
    ("aio-notimer", "echo, interceptor, no receive timer"),
)


def run(env: dict[str, str]) -> None:
    from benchmarks.rpc import ECHO_METHOD, bytes_value_of_size

    if not have_callgrind():
        return
    requests = [bytes_value_of_size(380)]
    with tempfile.TemporaryDirectory(prefix="bench-interceptor-") as tmp:
        counts = {
            kind: per_call(echo_cmd(kind, 2700), env, Path(tmp), kind, ECHO_METHOD, requests)
            for kind, _ in KINDS
        }
    print(
        f"bench-rpc --interceptor: server instructions per echo call under callgrind "
        f"({CALLS} calls after {WARMUP}, 8 in flight, request 380 B, response 2,700 B); "
        f"load average {os.getloadavg()[0]:.1f} (does not move the counts)"
    )
    bare, full = counts["aio-bare"], counts["aio"]
    for kind, name in KINDS:
        print(f"  {name:<56}{counts[kind] / 1e3:>8.1f} k")
    print(
        f"the interceptor: {(full - bare) / 1e3:+.1f} k a call ({full / bare:.2f}x the bare "
        f"echo); its log line {(full - counts['aio-nolog']) / 1e3:.1f} k, its receive "
        f"timer {(full - counts['aio-notimer']) / 1e3:.1f} k"
    )
