"""``make bench-rpc`` runs end to end (a tiny load: this checks it works, not its figures)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from support.paths import REPO
from support.server_harness import server_env


def _bench_rpc(*args: str) -> str:
    """What ``python -m benchmarks.rpc ARGS`` prints."""
    return subprocess.run(
        [sys.executable, "-m", "benchmarks.rpc", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=server_env(),
        cwd=REPO,
        check=True,
    ).stdout


def test_bench_rpc_prints_every_figure() -> None:
    out = _bench_rpc(
        *("--calls", "100", "--warmup", "10", "--rounds", "1", "--hands", "3"),
        *("--concurrency", "4"),
    )
    number = r"\s+[\d.]+"
    for name in (
        "Act (stud-server, 1 worker)",
        "echo, same server settings",
        "echo, no interceptor",
        "echo, sync gRPC, no interceptor",
    ):
        assert re.search(re.escape(name) + number * 5 + r"\s*$", out, re.MULTILINE), out
    headline = r"Act / echo \(same settings\), server CPU per call: [\d.]+x round by round "
    assert re.search(headline + r".*: [\d.]+x to [\d.]+x; aim <= 1.4x\); [\d.]+x best", out), out
    assert re.search(r"^steal .* during the rounds: \d+\.\d%", out, re.MULTILINE), out
    if len(os.sched_getaffinity(0)) > 1:  # the servers on a core of their own
        assert re.search(r"servers pinned to core \d+, client to \[[\d, ]+\]", out), out
    sizes = re.findall(r"^\s+(Five|Seven)\s+(\d) players\s+(\d+)\s+(\d+)$", out, re.MULTILINE)
    assert {(game, players) for game, players, _, _ in sizes} == {
        ("Five", "2"),
        ("Five", "8"),
        ("Seven", "2"),
        ("Seven", "8"),
    }
    for _, _, first, largest in sizes:
        assert 0 < int(first) <= int(largest)


def test_bench_rpc_handler_prints_both_builds() -> None:
    out = _bench_rpc("--handler", "--hands", "1", "--rounds", "1")
    number = r"\s+([\d.]+)"
    rows = re.findall(
        rf"^(mypyc|python){number}{number}{number}\s+(\d+)%{number}$", out, re.MULTILINE
    )
    assert len(rows) == 2 and rows[1][0] == "python", out
    for _, median, best, views, share, parse in rows:
        assert 0 < float(best) <= float(median), out
        assert 0 < float(views) < float(median) and 0 < int(share) < 100, out
        assert float(parse) >= 0, out
    assert re.search(r"^pure / (mypyc|python): [\d.]+x \(medians\)$", out, re.MULTILINE), out
