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

import os
import tempfile
from pathlib import Path

from benchmarks.rpc_instructions import CALLS, WARMUP, echo_cmd, have_callgrind
from benchmarks.rpc_instructions import per_call as counted

KINDS = (  # the echo servers of ``benchmarks.rpc --serve-echo``
    ("aio-bare", "echo, no interceptor"),
    ("aio", "echo, interceptor (metrics, log line, receive timer)"),
    ("aio-nolog", "echo, interceptor, no log line"),
    ("aio-notimer", "echo, interceptor, no receive timer"),
)
MULTIPROC = "echo, interceptor, multiprocess metrics (--workers)"  # ``aio``, files


def per_call(kind: str, env: dict[str, str], tmp: Path, multiproc: bool = False) -> float:
    """The instructions per call of the echo server ``kind`` (``rpc_instructions``)."""
    from benchmarks.rpc import ECHO_METHOD, bytes_value_of_size

    name = f"{kind}-multiproc" if multiproc else kind
    if multiproc:  # as each worker of ``stud-server --workers N`` runs
        (tmp / "metrics").mkdir()
        env = {**env, "PROMETHEUS_MULTIPROC_DIR": str(tmp / "metrics")}
    requests = [bytes_value_of_size(380)]
    return counted(echo_cmd(kind, 2700), env, tmp, name, ECHO_METHOD, requests)


def run(env: dict[str, str]) -> None:
    if not have_callgrind():
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
