"""stud-table against a real stud-server: bad input is refused clearly and changes nothing,
and a stud-table killed in the middle of a hand carries on with it after a restart."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import WSMsgType
from support.polling import poll_until
from support.table_harness import TableServer, call, join, view

PASSIVE = ("check", "call", "bring_in")


def snapshot(db: Path) -> tuple[Any, ...]:
    """What a refused request must leave alone: the hand row, its history, the table."""
    with sqlite3.connect(db) as conn:
        hand = conn.execute("SELECT hand_id, seq, state, to_act, deadline FROM hands").fetchall()
        steps = conn.execute("SELECT count(*) FROM history").fetchone()
        table = conn.execute("SELECT version, hand_no FROM tables").fetchall()
        seats = conn.execute("SELECT seat_no, stack, leaving FROM seats").fetchall()
    return hand, steps, table, seats


@pytest.fixture
def table(live_server: Callable[..., Any], tmp_path: Path) -> Iterator[tuple[TableServer, Path]]:
    engine = live_server()
    db = tmp_path / "table.db"
    server = TableServer(
        engine.target, f"sqlite:///{db}", ["--clock", "120", "--pause", "0.5", "--seats", "4"]
    )
    yield server, db
    server.stop()


def seated_pair(base: str) -> tuple[dict[int, str], dict[str, Any]]:
    """Two players joined and dealt in: their tokens by seat, and the first view."""
    seats = dict([join(base, "Ann"), join(base, "Bob")])
    first = poll_until(
        lambda: (v := view(base, seats[0]))["hand"] and v, "the first hand to be dealt", 60, 0.1
    )
    return seats, first


def to_act(base: str, seats: dict[int, str]) -> tuple[int, dict[str, Any]]:
    """The seat to act now and its view (with its legal moves)."""

    def find() -> tuple[int, dict[str, Any]] | None:
        for seat, token in seats.items():
            page = view(base, token)
            if page["legal"]:
                return seat, page
        return None

    return poll_until(find, "a seat to act", 60, 0.1)  # type: ignore[no-any-return]


def move(base: str, token: str, page: dict[str, Any], **body: Any) -> tuple[int, Any]:
    """A move for the hand that ``page`` shows (unless ``body`` names another)."""
    body.setdefault("hand", page["hand"]["id"])
    return call(base, "POST", "/api/tables/main/act", body, token=token)


def passive(page: dict[str, Any]) -> dict[str, Any]:
    for kind in PASSIVE:
        for legal in page["legal"]:
            if legal["action"] == kind:
                return {k: v for k, v in legal.items() if k in ("action", "to")}
    raise AssertionError(f"no passive move in {page['legal']}")


def test_bad_input_is_refused_with_a_reason_and_changes_nothing(
    table: tuple[TableServer, Path],
) -> None:
    server, db = table
    base = server.url
    seats, _ = seated_pair(base)
    seat, page = to_act(base, seats)
    other = next(s for s in seats if s != seat)
    seq = page["hand"]["seq"]
    good = passive(page)
    mine = {"hand": page["hand"]["id"], **good}
    before = snapshot(db)
    illegal = "check" if not any(m["action"] == "check" for m in page["legal"]) else "raise"

    act_path = "/api/tables/main/act"
    token = seats[seat]
    cases: list[tuple[str, tuple[int, Any], int, str]] = [
        ("wrong token", move(base, "x" * 43, page, seq=seq, **good), 401, "bad_token"),
        ("no token", call(base, "POST", act_path, {"seq": seq, **mine}), 401, "no_token"),
        ("stale move", move(base, token, page, seq=seq - 1, **good), 409, "stale"),
        ("future move", move(base, token, page, seq=seq + 3, **good), 409, "stale"),
        ("another seat", move(base, token, page, seq=seq, seat=other, **good), 403, "wrong_seat"),
        ("not your turn", move(base, seats[other], page, seq=seq, **good), 409, "not_your_turn"),
        ("illegal move", move(base, token, page, seq=seq, action=illegal), 409, "illegal_action"),
        ("unknown action", move(base, token, page, seq=seq, action="all-in"), 400, "bad_action"),
        ("seq not a number", move(base, token, page, seq=str(seq), **good), 400, "bad_field"),
        ("no hand named", move(base, token, page, seq=seq, hand=None, **good), 400, "bad_field"),
        ("hand not a string", move(base, token, page, seq=seq, hand=7, **good), 400, "bad_field"),
        ("another hand", move(base, token, page, seq=seq, hand="h-other", **good), 409, "stale"),
        (
            "to past int64",
            move(base, token, page, seq=seq, action="raise", to=2**63),
            400,
            "bad_field",
        ),
        (
            "to of 10^30",
            move(base, token, page, seq=seq, action="raise", to=10**30),
            400,
            "bad_field",
        ),
        ("to negative", move(base, token, page, seq=seq, action="raise", to=-1), 400, "bad_field"),
        ("seq past int64", move(base, token, page, seq=2**64, **good), 409, "stale"),
        (
            "JSON nested 5,000 deep",
            call(base, "POST", act_path, token=token, raw=b"[" * 5000 + b"]" * 5000),
            400,
            "malformed_json",
        ),
        (
            "a join nested 5,000 deep",
            call(
                base,
                "POST",
                "/api/tables/main/join",
                raw=b'{"name": ' + b"[" * 5000 + b"]" * 5000 + b"}",
            ),
            400,
            "malformed_json",
        ),
        (
            "malformed JSON",
            call(base, "POST", act_path, token=token, raw=b'{"action": "call", "seq": '),
            400,
            "malformed_json",
        ),
        (
            "JSON not an object",
            call(base, "POST", act_path, token=token, raw=b"[1, 2]"),
            400,
            "bad_request",
        ),
        (
            "no such table",
            call(base, "POST", "/api/tables/nope/act", {"seq": seq, **mine}, token=seats[seat]),
            404,
            "no_table",
        ),
        (
            "bad name",
            call(base, "POST", "/api/tables/main/join", {"name": "<script>"}),
            400,
            "bad_name",
        ),
    ]
    for what, (status, answer), want_status, reason in cases:
        assert status == want_status, (what, answer)
        assert answer["error"]["reason"] == reason, (what, answer)
        assert answer["error"]["message"], what
        assert snapshot(db) == before, f"{what} changed the stored table"

    # the same move, done right, goes through once; repeating it is stale
    status, answer = move(base, token, page, seq=seq, **good)
    assert (status, answer) == (200, {"ok": True, "seq": seq + 1})
    assert move(base, token, page, seq=seq, **good)[0] == 409


def test_a_move_for_the_hand_before_is_stale_at_the_same_seq_of_the_next(
    table: tuple[TableServer, Path],
) -> None:
    """A click sent for one hand that arrives when the next hand is at the same seq (the
    clock acted, the hand ended and another was dealt meanwhile) is refused, not applied
    to the new hand: the seq alone names a move only within its hand."""
    server, db = table
    base = server.url
    seats, _ = seated_pair(base)
    _, first = to_act(base, seats)
    old_hand, old_seq = first["hand"]["id"], first["hand"]["seq"]
    while True:  # the first hand played out to its end, passively
        seat, page = to_act(base, seats)
        if page["hand"]["id"] != old_hand:
            break
        assert move(base, seats[seat], page, seq=page["hand"]["seq"], **passive(page))[0] == 200
    assert page["hand"]["seq"] == old_seq  # the next hand's first decision: the same seq
    before = snapshot(db)
    status, answer = move(base, seats[seat], page, seq=old_seq, hand=old_hand, **passive(page))
    assert status == 409 and answer["error"]["reason"] == "stale", answer
    assert snapshot(db) == before
    status, answer = move(base, seats[seat], page, seq=old_seq, **passive(page))
    assert (status, answer) == (200, {"ok": True, "seq": old_seq + 1})


def test_websocket_refuses_a_bad_hello(table: tuple[TableServer, Path]) -> None:
    server, _ = table
    _, token = join(server.url, "Ann")

    url = server.url.replace("http", "ws") + "/ws"

    async def hello(message: str) -> tuple[dict[str, Any], int | None]:
        async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
            await ws.send_str(message)
            answer = await ws.receive_json(timeout=10)
            await ws.receive(timeout=10)
            return answer, ws.close_code

    async def run() -> None:
        answer, code = await hello(json.dumps({"type": "hello", "table": "main", "token": "nope"}))
        assert (answer["error"]["reason"], code) == ("bad_token", 4401)
        answer, code = await hello("{not json")
        assert (answer["error"]["reason"], code) == ("malformed_json", 4400)
        answer, code = await hello(json.dumps({"type": "move"}))
        assert (answer["error"]["reason"], code) == ("bad_hello", 4400)
        answer, code = await hello("[" * 2000 + "]" * 2000)  # under max_msg_size, too deep
        assert (answer["error"]["reason"], code) == ("malformed_json", 4400)
        async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
            await ws.send_json({"type": "hello", "table": "main", "token": token})
            page = await ws.receive_json(timeout=10)
            assert page["type"] == "table" and page["you"]["name"] == "Ann"
            # the seat is given up: the socket is told it is gone, then closed
            assert call(server.url, "POST", "/api/tables/main/leave", {}, token=token)[0] == 200
            gone = await ws.receive_json(timeout=10)
            while gone["type"] == "table":  # a page the push loop queued before the leave
                gone = await ws.receive_json(timeout=10)
            assert (gone["type"], gone["error"]["reason"]) == ("gone", "bad_token"), gone
            assert (await ws.receive(timeout=10)).type in (WSMsgType.CLOSE, WSMsgType.CLOSED)

    asyncio.run(run())
    assert token not in server.output(), "a seat token reached the log"


def test_restarted_table_resumes_the_hand_in_progress(table: tuple[TableServer, Path]) -> None:
    server, db = table
    base = server.url
    seats, first = seated_pair(base)
    hand_id = first["hand"]["id"]
    for _ in range(3):
        seat, page = to_act(base, seats)
        assert move(base, seats[seat], page, seq=page["hand"]["seq"], **passive(page))[0] == 200
    seat, before = to_act(base, seats)
    assert before["hand"]["id"] == hand_id and not before["hand"]["over"]

    server.restart()  # SIGKILL: no chance to save anything on the way out

    after = view(base, seats[seat])
    assert after["hand"]["id"] == hand_id
    assert after["hand"]["seq"] == before["hand"]["seq"]
    assert after["legal"] == before["legal"]
    assert after["seats"][seat]["cards"] == before["seats"][seat]["cards"]
    # and the hand plays on to its end
    while True:
        seat, page = to_act(base, seats)
        if page["hand"]["id"] != hand_id:
            break
        assert move(base, seats[seat], page, seq=page["hand"]["seq"], **passive(page))[0] == 200
    with sqlite3.connect(db) as conn:
        (over,) = conn.execute("SELECT over FROM hands WHERE hand_id = ?", (hand_id,)).fetchone()
        steps = [
            r[0] for r in conn.execute("SELECT seq FROM history WHERE hand_id = ?", (hand_id,))
        ]
        stacks = [r[0] for r in conn.execute("SELECT stack FROM seats")]
    assert over == 1 and steps == list(range(len(steps)))
    assert sum(stacks) == 2000


@pytest.mark.parametrize(("variant", "game"), [("razz", "Razz"), ("hilo", "Seven Card Stud Hi-Lo")])
def test_razz_and_hi_lo_tables_play_a_hand_to_the_end(
    live_server: Callable[..., Any], tmp_path: Path, variant: str, game: str
) -> None:
    """stud-table runs the new games: the table names its game, and a hand called down
    ends with the chips conserved (no rake at this table)."""
    engine = live_server()
    db = tmp_path / "table.db"
    server = TableServer(
        engine.target,
        f"sqlite:///{db}",
        ["--variant", variant, "--clock", "120", "--pause", "0.5", "--seats", "4"],
    )
    try:
        base = server.url
        seats, first = seated_pair(base)
        assert first["table"]["game"] == game
        hand_id = first["hand"]["id"]
        while True:
            seat, page = to_act(base, seats)
            if page["hand"]["id"] != hand_id:
                break
            assert move(base, seats[seat], page, seq=page["hand"]["seq"], **passive(page))[0] == 200
        with sqlite3.connect(db) as conn:
            stacks = [r[0] for r in conn.execute("SELECT stack FROM seats")]
        assert sum(stacks) == 2000
    finally:
        server.stop()
