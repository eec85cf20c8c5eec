"""stud-table when its engine fails it: a hand whose sealed state no engine can open (the
engine came back with another key, as every ``make table`` does) is called off, stacks
restored and the next hand dealt; ``make table`` runs twice in a row on one database,
dealing both times; an engine that is down is told in plain words, and no longer once it
is back."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from support.paths import REPO
from support.polling import poll_until
from support.server_harness import free_port
from support.table_harness import TableServer, call, join, view

STACK = 1000


def history_sources(db: Path, hand_id: str) -> list[str]:
    with sqlite3.connect(db) as conn:
        query = "SELECT source FROM history WHERE hand_id = ? ORDER BY seq"
        return [row[0] for row in conn.execute(query, (hand_id,))]


def test_a_hand_no_engine_can_open_is_called_off_and_the_next_dealt(
    live_server: Callable[..., Any], tmp_path: Path
) -> None:
    db = tmp_path / "table.db"
    args = ["--clock", "120", "--pause", "0.5", "--seats", "4"]
    first = live_server()
    server = TableServer(first.target, f"sqlite:///{db}", args)
    try:
        seats = dict([join(server.url, "Ann"), join(server.url, "Bob")])
        page = poll_until(lambda: (v := view(server.url, seats[0]))["hand"] and v, what="a hand")
        old = page["hand"]["id"]
    finally:
        server.stop()
    first.stop()

    second = live_server()  # a new key: the stored state is sealed under the old one
    server = TableServer(second.target, f"sqlite:///{db}", args)
    try:
        page = poll_until(
            lambda: (v := view(server.url, seats[0]))["hand"]["id"] != old and v,
            timeout=30,
            what="the next hand after the one no engine can open",
        )
        assert history_sources(db, old)[-1] == "void"
        assert page["hand"]["seq"] == 0 and not page["hand"]["over"]
        with sqlite3.connect(db) as conn:
            query = "SELECT start_stacks FROM hands WHERE hand_id = ?"
            (start,) = conn.execute(query, (page["hand"]["id"],)).fetchone()
        assert start == f"[{STACK}, {STACK}]", "stacks are the ones before the called-off hand"
        assert not any("sealed state" in line for line in server.lines[-50:])
        old_lines = [ln for ln in server.output().splitlines() if "no engine could open" in ln]
        assert len(old_lines) == 1, "the called-off hand is logged once, not every tick"
    finally:
        server.stop()


def test_an_engine_that_is_down_is_shown_plainly_and_cleared_when_back(
    live_server: Callable[..., Any], tmp_path: Path
) -> None:
    port = free_port()
    engine = live_server(args=["--port", str(port)])
    db = tmp_path / "table.db"
    server = TableServer(
        engine.target, f"sqlite:///{db}", ["--clock", "120", "--pause", "0.5", "--seats", "4"]
    )
    try:
        seats = dict([join(server.url, "Ann"), join(server.url, "Bob")])

        def to_act() -> tuple[int, dict[str, Any]] | None:
            for seat, token in seats.items():
                if (page := view(server.url, token))["legal"]:
                    return seat, page
            return None

        seat, page = poll_until(to_act, what="a seat to act")
        assert page["engine"] == {"up": True, "message": None}
        engine.stop()
        move = {k: v for k, v in page["legal"][0].items() if k in ("action", "to")}
        status, answer = call(
            server.url, "POST", "/api/tables/main/act",
            {**move, "hand": page["hand"]["id"], "seq": page["hand"]["seq"]}, token=seats[seat],
        )  # fmt: skip
        assert status == 503 and answer["error"]["reason"] == "engine_unavailable", answer
        message = answer["error"]["message"]
        assert "127.0.0.1" not in message and str(port) not in message and "ipv4" not in message
        down = view(server.url, seats[seat])["engine"]
        assert down["up"] is False and down["message"] == message

        live_server(args=["--port", str(port)])  # back, on the same address
        poll_until(
            lambda: view(server.url, seats[seat])["engine"]["up"],
            timeout=30,
            what="the page to say the engine is back",
        )
        assert view(server.url, seats[seat])["engine"]["message"] is None
    finally:
        server.stop()


def test_make_table_twice_in_a_row_deals_hands_both_times(tmp_path: Path) -> None:
    """``make table`` starts a ``--dev`` engine (a new key every run) over one database:
    the second run calls off the hand the first left and deals on."""
    db = tmp_path / "stud-table.db"

    def run_once() -> set[str]:
        before = hands_in(db)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("STUD_", "MAKE"))}
        fast = "TABLE_ARGS=--pause 0.3 --bot-delay 0.05"
        proc = subprocess.Popen(
            ["make", "--no-print-directory", "table", f"TABLE_PORT={free_port()}",
             f"TABLE_ENGINE_PORT={free_port()}", f"TABLE_DB={db}", fast],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
            start_new_session=True,
        )  # fmt: skip
        try:
            # two new hands dealt in this run: one more than the first found waiting
            return poll_until(
                lambda: len(hands_in(db) - before) >= 2 and hands_in(db) - before,
                timeout=120,
                what="hands dealt by make table",
            )
        finally:
            os.killpg(proc.pid, signal.SIGINT)
            proc.wait(30)

    first = run_once()
    second = run_once()
    assert first and second and not first & second


def hands_in(db: Path) -> set[str]:
    if not db.exists():
        return set()
    try:
        with sqlite3.connect(db) as conn:
            return {row[0] for row in conn.execute("SELECT hand_id FROM hands")}
    except sqlite3.OperationalError:
        return set()  # not created yet
