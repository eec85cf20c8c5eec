"""stud-load against real servers: a short run with zero errors and every hand's chips
conserved, the JSON report's fields, retries onto another target when one is down, and a
failing exit code when nothing answers."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from studclients.load import percentile
from support.paths import REPO
from support.server_harness import LiveServer, free_port

STUD_LOAD = str(Path(sys.executable).parent / "stud-load")
FIELDS = {
    "hands", "calls", "duration_s", "hands_per_s", "calls_per_s", "latency_ms", "errors",
    "retries", "hands_checked", "hands_conserved", "unfinished",
}  # fmt: skip


def run_load(*args: str) -> tuple[int, dict[str, Any], str]:
    proc = subprocess.run(
        [STUD_LOAD, "--json", *args],
        cwd=REPO,
        capture_output=True,
        timeout=120,
    )
    return proc.returncode, json.loads(proc.stdout), proc.stderr.decode()


def check_latency(report: dict[str, Any], methods: set[str]) -> None:
    latency = report["latency_ms"]
    assert methods <= set(latency), latency
    for method, row in latency.items():
        assert 0 < row["p50"] <= row["p95"] <= row["p99"], (method, row)
    assert sum(row["count"] for row in latency.values()) == report["calls"]


def test_short_load_conserves_chips_with_no_errors(live_server: Callable[..., LiveServer]) -> None:
    server = live_server()
    code, report, stderr = run_load(
        "--target", server.target, "--duration", "3", "--tables", "6", "--variant", "mixed",
    )  # fmt: skip
    assert code == 0, (report, stderr)
    assert set(report) >= FIELDS
    assert report["errors"] == {}
    assert report["hands"] > 0
    assert report["hands_checked"] == report["hands_conserved"] == report["hands"]
    assert report["unfinished"] == 0
    assert report["retries"] == 0
    check_latency(report, {"StartHand", "Act"})
    assert report["calls"] > report["hands"]  # at least one Act per hand
    assert report["hands_per_s"] > 0 and report["calls_per_s"] > report["hands_per_s"]
    assert re.search(r"\r +[\d.]+s  hands \d+ .* calls \d+", stderr)  # the progress line


def test_hand_count_bound_and_equity_bots(live_server: Callable[..., LiveServer]) -> None:
    server = live_server()
    code, report, stderr = run_load(
        "--target", server.target, "--hands", "12", "--tables", "3", "--variant", "seven",
        "--players", "5", "--bots", "equity", "--quiet",
    )  # fmt: skip
    assert code == 0, (report, stderr)
    assert report["hands"] == 12 == report["hands_conserved"]
    assert stderr == ""
    # the equity bots asked Equity, or Evaluate when this server has no Equity
    assert {"Equity", "Evaluate"} & set(report["latency_ms"])
    check_latency(report, {"StartHand", "Act"})


def test_unavailable_target_is_retried_on_the_other(
    live_server: Callable[..., LiveServer],
) -> None:
    server = live_server()
    dead = f"127.0.0.1:{free_port()}"  # nothing listens there
    code, report, stderr = run_load(
        "--target", f"{dead},{server.target}", "--duration", "2", "--tables", "4",
        "--connections", "1", "--quiet",
    )  # fmt: skip
    assert code == 0, (report, stderr)
    assert report["retries"] > 0
    assert report["errors"] == {}
    assert report["hands"] > 0 and report["hands_conserved"] == report["hands"]


def test_no_server_answering_fails() -> None:
    dead = f"127.0.0.1:{free_port()}"
    code, report, stderr = run_load("--target", dead, "--duration", "1", "--quiet")
    assert code == 1
    assert report["errors"].get("UNAVAILABLE", 0) > 0
    assert report["hands"] == 0
    assert report["retries"] == 0  # one target: the channel retried, nowhere to fail over to
    assert "FAILED" in stderr


def test_percentile_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 95) == 95.0
    assert percentile(values, 99) == 99.0
    assert percentile(list(reversed(values)), 100) == 100.0
    assert percentile([7.0], 99) == 7.0
    assert percentile([], 50) == 0.0


def test_resync_rereads_the_state_after_aborted(live_server: Callable[..., LiveServer]) -> None:
    """A wrong expected_seq gets ABORTED; resync re-reads the held state with GetView and the
    hand goes on from what the server says."""
    import asyncio

    from stud_api.stud.v1 import stud_engine_pb2 as pb
    from studclients.client import default_table
    from studclients.engine import Dial, Engine, EngineError, act_request
    from studclients.load import Position, resync

    server = live_server()

    async def scenario() -> tuple[Position, Position, str]:
        engine = Engine(Dial((server.target,)))
        start = pb.StartHandRequest(
            variant=pb.VARIANT_SEVEN_CARD_STUD,
            table=default_table(),
            players=[pb.Player(id=f"p{i}", stack=500) for i in range(3)],
            button=1,
        )
        held = Position.of(await engine.start_hand(start))
        wrong = Position(held.state, held.seq + 5, held.to_act, held.legal, held.view)
        act = act_request(wrong.state, wrong.seq, wrong.to_act, held.legal[0].type)
        try:
            await engine.act(act)
            code = "OK"
        except EngineError as error:
            code = error.code
        fixed = await resync(wrong, engine)
        await engine.close()
        return held, fixed, code

    held, fixed, code = asyncio.run(scenario())
    assert code == "ABORTED"
    assert (fixed.seq, fixed.to_act) == (held.seq, held.to_act)
    assert list(fixed.legal) == list(held.legal)
    assert fixed.view.seats[fixed.to_act].cards == held.view.seats[held.to_act].cards


def test_ctrl_c_finishes_the_hands_in_flight_and_reports(
    live_server: Callable[..., LiveServer],
) -> None:
    import pexpect

    server = live_server()
    child = pexpect.spawn(
        STUD_LOAD, ["--target", server.target, "--duration", "120", "--tables", "4", "--json"],
        cwd=str(REPO), encoding="utf-8", timeout=60,
    )  # fmt: skip
    child.expect(r"hands [1-9]\d* ")  # the progress line shows finished hands
    child.sendintr()
    child.expect("interrupted, finishing the hands in flight")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    text = (child.before or "").replace("\r\n", "\n")
    report = json.loads(text[text.index("{") : text.rindex("}") + 1])
    assert report["hands"] > 0 and report["hands_conserved"] == report["hands"]
    assert report["unfinished"] == 0 and report["errors"] == {}


def test_without_targets_it_starts_and_stops_a_two_worker_server() -> None:
    """What `make load` runs: no --target, so a 2-worker stud-server --dev of its own."""
    import socket

    code, report, stderr = run_load("--duration", "2", "--tables", "4", "--quiet")
    assert code == 0, (report, stderr)
    found = re.search(r"started stud-server --dev on 127\.0\.0\.1:(\d+)", stderr)
    assert found, stderr
    assert report["targets"] == [f"127.0.0.1:{found.group(1)}"]
    assert report["hands"] > 0 and report["hands_conserved"] == report["hands"]
    assert report["server_cpu_s"] > 0 and report["server_cpu_ms_per_call"] > 0
    with socket.socket() as sock:  # the server is gone: nothing listens on its port
        assert sock.connect_ex(("127.0.0.1", int(found.group(1)))) != 0


STUD_VERIFY = str(Path(sys.executable).parent / "stud-verify")


def verify(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [STUD_VERIFY, *map(str, paths)], capture_output=True, text=True, timeout=120
    )


def tampered(path: Path, out: Path, old: str, new: str) -> Path:
    """A copy of the history at ``path`` with ``old`` (which it holds once) made ``new``."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    out.write_text(text.replace(old, new), encoding="utf-8")
    return out


def test_verifiable_load_writes_histories_stud_verify_accepts_and_tampering_it_refuses(
    live_server: Callable[..., LiveServer], tmp_path: Path
) -> None:
    """Issue 32's must-show: every hand of ``stud-load --verifiable`` is dealt with a deal
    ticket and per-player contributions, its players' history passes ``stud-verify``, and
    a copy with one contribution changed, the seed changed, or two cards swapped fails,
    naming the field."""
    server = live_server()
    histories = tmp_path / "histories"
    code, report, stderr = run_load(
        "--target", server.target, "--duration", "5", "--tables", "4", "--verifiable",
        "--history-dir", str(histories), "--quiet",
    )  # fmt: skip
    assert code == 0, (report, stderr)
    assert report["verifiable"] is True
    assert report["errors"] == {}
    assert report["hands"] > 0
    assert report["histories_written"] == report["hands"]
    assert (
        report["latency_ms"]["CreateDealTicket"]["count"]
        == report["latency_ms"]["StartHand"]["count"]
    )
    files = sorted(histories.glob("*.phh"))
    assert len(files) == report["hands"]
    proc = verify(*files)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{len(files)} of {len(files)} hands ok" in proc.stdout

    original = files[0]
    data = tomllib.loads(original.read_text(encoding="utf-8"))
    assert data["_audience"] == "players"  # the players' own proof
    contribution = data["_contributions"][1]
    changed = ("0" if contribution[0] != "0" else "1") + contribution[1:]
    seed = data["_server_seed"]
    deck = data["_deck"]
    swapped = deck[2:4] + deck[0:2] + deck[4:]  # the first two cards dealt, swapped
    copies = {
        "_contributions": tampered(original, tmp_path / "contribution.phh", contribution, changed),
        "_server_seed": tampered(original, tmp_path / "seed.phh", seed, seed[::-1]),
        "_deck": tampered(original, tmp_path / "swapped.phh", deck, swapped),
    }
    for field_name, copy in copies.items():
        proc = verify(copy)
        assert proc.returncode != 0, (field_name, proc.stdout)
        assert "FAILED" in proc.stdout and field_name in proc.stdout, (field_name, proc.stdout)
    # one bad file among good ones fails the run and names that file
    proc = verify(*files[:3], copies["_deck"])
    assert proc.returncode != 0
    assert str(copies["_deck"]) in proc.stdout
