"""Real ``stud-table`` subprocesses and a real PostgreSQL cluster for tests, on 127.0.0.1
free ports, plus a tiny JSON-over-HTTP helper (bearer tokens in headers, never in URLs)."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc
import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from studclients.devpostgres import Postgres
from studclients.table.store import Store, hands, history

from support.paths import require_tool

STARTUP_SECONDS = 60.0


class TableServer:
    """A running ``stud-table`` and what it printed."""

    def __init__(self, engine: str, db: str, args: Sequence[str] = (), port: int = 0) -> None:
        self.engine, self.db, self.extra = engine, db, list(args)
        self.lines: list[str] = []
        self.port = 0
        self.metrics_port = 0
        self._start(port)

    def _start(self, port: int) -> None:
        cmd = [sys.executable, "-m", "studclients.table", "--target", self.engine,
               "--db", self.db, "--port", str(port), *self.extra]  # fmt: skip
        env = {k: v for k, v in os.environ.items() if not k.startswith("STUD_")}
        env["PYTHONUNBUFFERED"] = "1"
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
            start_new_session=True,
        )  # fmt: skip
        ready = threading.Event()

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.append(line.rstrip("\n"))
                if line.startswith("stud-table metrics on "):
                    self.metrics_port = int(line.rsplit(":", 1)[1].split("/")[0])
                if line.startswith("stud-table serving "):
                    self.port = int(line.rsplit(":", 1)[1].strip().rstrip("/"))
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(STARTUP_SECONDS) or not self.port:
            self.stop()
            raise RuntimeError("stud-table did not start:\n" + self.output())

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def metric(self, name: str, labels: str = "") -> float:
        """A sample of the ``--metrics-port`` scrape (0 when absent): ``name{labels}``."""
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as response:
            text = response.read().decode()
        wanted = f"{name}{{{labels}}}" if labels else name
        for line in text.splitlines():
            key, _, value = line.rpartition(" ")
            if key == wanted:
                return float(value)
        return 0.0

    def output(self) -> str:
        return "\n".join(self.lines)

    def restart(self, sig: int = signal.SIGKILL) -> None:
        """Stops it (by default without a chance to clean up) and starts it again on the
        same port and database."""
        port = self.port
        self.stop(sig)
        self._start(port)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                return self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
        return self.proc.wait()


def table_on_new_engine(
    live_server: Any, tmp_path: Path, args: Sequence[str] = (), **engine_options: Any
) -> TableServer:
    """A stud-table on a SQLite file in ``tmp_path`` and a new live engine of its own
    (``live_server``'s options: ``allow_test_decks=True``, ...)."""
    engine = live_server(**engine_options)
    return TableServer(engine.target, f"sqlite:///{tmp_path / 'table.db'}", args)


def call(
    base: str,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
    raw: bytes | None = None,
) -> tuple[int, Any]:
    """(status, parsed JSON answer)."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def download(base: str, path: str, token: str | None) -> tuple[int, bytes]:
    """(status, body) of a GET of a file (a zip, a proof: not JSON), with ``token``."""
    request = urllib.request.Request(base + path)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def join(base: str, name: str, table: str = "main") -> tuple[int, str]:
    """(seat, token) of a new player."""
    status, answer = call(base, "POST", f"/api/tables/{table}/join", {"name": name})
    assert status == 200, answer
    return int(answer["seat"]), str(answer["token"])


def view(base: str, token: str, table: str = "main") -> dict[str, Any]:
    status, answer = call(base, "GET", f"/api/tables/{table}/view", token=token)
    assert status == 200, answer
    return dict(answer)


def players_rendering(phh: str) -> bool:
    """Whether a PHH history is the players' rendering: no salt or deck, except in the
    proof of a hand dealt with a deal ticket, which anyone may check (docs/histories.md)."""
    fields = tomllib.loads(phh)
    audit_only = "_salt" in fields or "_deck" in fields
    return fields.get("_audience") == "players" and (not audit_only or "_server_seed" in fields)


def start_postgres() -> Postgres:
    """A throw-away cluster; the test skips (fails under CI) without Debian's postgresql."""
    require_tool("pg_ctlcluster", "make table-deps (apt-get install postgresql)")
    try:
        return Postgres()
    except FileNotFoundError:
        pytest.fail("postgresql is installed but initdb was not found")


def stored(url: str) -> tuple[list[Any], list[Any]]:
    """Every hand row and every stored step (by hand, then seq) in stud-table's database."""

    async def read() -> tuple[list[Any], list[Any]]:
        store = Store(url)
        try:
            async with store.engine.connect() as conn:
                all_hands = (await conn.execute(hands.select())).all()
                steps = (
                    await conn.execute(history.select().order_by(history.c.hand_id, history.c.seq))
                ).all()
            return list(all_hands), list(steps)
        finally:
            await store.close()

    return asyncio.run(read())


def assert_replays(target: str, all_hands: Sequence[Any], steps: Sequence[Any]) -> None:
    """Each hand's steps run 0, 1, 2, ... without a gap, the newest is the hand's row, each
    is exactly the engine's answer to the step before it (replayed through the engine at
    ``target``), and a finished hand ends with the chips it began with."""
    by_hand: dict[str, list[Any]] = {}
    for step in steps:
        by_hand.setdefault(step.hand_id, []).append(step)
    with grpc.insecure_channel(target) as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        for hand in all_hands:
            chain = by_hand[hand.hand_id]
            assert [s.seq for s in chain] == list(range(len(chain))), "a step is missing"
            assert chain[-1].seq == hand.seq and chain[-1].state == hand.state
            for before, after in itertools.pairwise(chain):
                request = pb.ActRequest(state=before.state, seat=after.seat,
                                        action=after.action, expected_seq=before.seq)  # fmt: skip
                if after.to is not None:
                    request.to = after.to
                replayed = stub.Act(request, timeout=10).hand
                mine = pb.HandUpdate.FromString(after.update)
                assert replayed.seq == after.seq
                assert list(replayed.spectator.events) == list(mine.spectator.events)
            if hand.over:
                final = pb.HandUpdate.FromString(chain[-1].update)
                assert sum(final.result.stacks) == sum(hand.start_stacks)


ACTIONS = {"fold": 1, "check": 2, "call": 3, "bring_in": 4, "complete": 5, "bet": 6, "raise": 7}


class DoubleClicks:
    """Players who send each move to every replica at once, around a short clock; every
    answer is kept as (hand, seq, action, replica, status)."""

    def __init__(self, bases: Sequence[str], table: str = "main") -> None:
        self.bases, self.table = list(bases), table
        self.answers: list[tuple[str, int, str, int, int]] = []
        self.lock = threading.Lock()

    def play(
        self, token: str, rng: Any, stop: Any, think: tuple[float, float] = (0.3, 0.8)
    ) -> None:
        """A random legal move at a time until ``stop()``, after ``think`` (from, to) seconds
        of thought. A replica that does not answer (restarting) gets status 0."""
        while not stop():
            try:
                status, page = call(rng.choice(self.bases), "GET",
                                    f"/api/tables/{self.table}/view", token=token)  # fmt: skip
            except OSError:
                status = 0
            if status != 200 or not page["legal"]:
                time.sleep(0.05)
                continue
            move = rng.choice(page["legal"])
            body = {
                "action": move["action"],
                "hand": page["hand"]["id"],
                "seq": page["hand"]["seq"],
            }
            if "to" in move:
                body["to"] = move["to"]
            time.sleep(rng.uniform(*think))
            results: list[tuple[int, int]] = []

            def send(index: int, body: dict[str, Any] = body, into: list[Any] = results) -> None:
                try:
                    status, _ = call(self.bases[index], "POST",
                                     f"/api/tables/{self.table}/act", body, token)  # fmt: skip
                except OSError:
                    status = 0
                into.append((index, status))

            senders = [threading.Thread(target=send, args=(i,)) for i in range(len(self.bases))]
            for sender in senders:
                sender.start()
            for sender in senders:
                sender.join()
            with self.lock:
                for index, status in results:
                    self.answers.append(
                        (page["hand"]["id"], body["seq"], move["action"], index, status)
                    )

    def assert_each_once(self, steps: Sequence[Any]) -> tuple[int, int]:
        """At most one OK per click, each OK in the history exactly once as the move sent,
        and no player's move in the history that nobody was told of (unless a replica
        died before it could answer: status 0): (OKs, 409s)."""
        clicks: dict[tuple[str, int], list[tuple[str, int]]] = {}
        for hand_id, seq, action, _, status in self.answers:
            clicks.setdefault((hand_id, seq), []).append((action, status))
        applied = {(s.hand_id, s.seq - 1): s for s in steps if s.source == "player"}
        oks = 0
        for key, pair in clicks.items():
            ok = [action for action, status in pair if status == 200]
            assert len(ok) <= 1, f"one move applied twice at {key}"
            assert all(status in (200, 409, 0) for _, status in pair), pair
            if ok:
                oks += 1
                assert key in applied, f"a move answered OK is not in the history: {key}"
                assert applied[key].action == ACTIONS[ok[0]]
        unanswered = {k for k, pair in clicks.items() if all(st != 200 for _, st in pair)
                      and any(st == 0 for _, st in pair)}  # fmt: skip
        told = oks + len(unanswered & set(applied))
        assert len(applied) == told, "the history holds a player's move that nobody was told of"
        return oks, [a[4] for a in self.answers].count(409)
