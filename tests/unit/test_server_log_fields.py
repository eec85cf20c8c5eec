"""The call's log fields (``api.logfields``): every field the handlers bind reaches the
call's line, secrets never do, and a call's fields stay with it: not in another call's
line (concurrent tasks on the gRPC port; the HTTP port's fresh context per call), not in
the caller's context, not changed by a task the call starts."""

from __future__ import annotations

import asyncio
import contextvars
import io
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
import structlog
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api import logfields
from studengine.api.calls import ApiCalls
from studengine.api.expensive import ExpensiveCalls
from studengine.api.handlers import Handlers
from studengine.server.http import StudEngineConnect
from studengine.server.logging import configure_logging
from studengine.state.sealing import KeyRing
from support.api_helpers import new_key, random_act, random_start


@pytest.fixture
def lines() -> Iterator[io.StringIO]:
    out = io.StringIO()
    configure_logging("info", stream=out, worker=3)
    try:
        yield out
    finally:
        structlog.reset_defaults()


def _entries(out: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_bound_fields_reach_the_line_but_secrets_never(lines: io.StringIO) -> None:
    def call() -> None:
        logfields.bind(hand_id="ab" * 16, seq=4, deck=[1, 2], salt="ff")
        logfields.bind(seat=2, action="BET", seq=5, state=b"x")  # seq: the later value
        structlog.get_logger("t").info("rpc", method="/m", code="OK", seat=7, cards=["As"])

    contextvars.Context().run(call)
    (entry,) = _entries(lines)
    assert entry["hand_id"] == "ab" * 16 and entry["seq"] == 5 and entry["action"] == "BET"
    assert entry["seat"] == 7  # a field the line names itself wins over a bound one
    assert entry["method"] == "/m" and entry["worker"] == 3 and entry["event"] == "rpc"
    assert not {"deck", "salt", "cards", "state"} & set(entry)


def test_concurrent_calls_keep_their_own_fields(lines: io.StringIO) -> None:
    log = structlog.get_logger("t")

    async def call(hand: str, seat: int) -> None:
        logfields.bind(hand_id=hand, seq=1)
        await asyncio.sleep(0)  # the other call binds in between
        logfields.bind(seat=seat)
        await asyncio.sleep(0)
        log.info("rpc", method=hand)

    async def calls() -> dict[str, Any]:
        await asyncio.gather(call("aa", 1), call("bb", 2))
        return logfields.bound()  # what the calls bound stayed in their tasks

    assert contextvars.Context().run(asyncio.run, calls()) == {}
    found = {entry["method"]: (entry["hand_id"], entry["seat"]) for entry in _entries(lines)}
    assert found == {"aa": ("aa", 1), "bb": ("bb", 2)}


def test_a_task_the_call_starts_never_changes_the_calls_fields() -> None:
    async def helper() -> dict[str, Any]:
        logfields.bind(seat=9)  # a new dict in the helper's context only
        return logfields.bound()

    async def call() -> tuple[dict[str, Any], dict[str, Any]]:
        logfields.bind(hand_id="aa", seq=1)
        seen = await asyncio.create_task(helper())
        return seen, logfields.bound()

    seen, own = contextvars.Context().run(asyncio.run, call())
    assert seen == {"hand_id": "aa", "seq": 1, "seat": 9}
    assert own == {"hand_id": "aa", "seq": 1}


def test_bind_fields_binds_as_bind_does_and_keeps_the_dicts_apart() -> None:
    def call() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        first = {"hand_id": "aa", "seq": 1}
        logfields.bind_fields(first)
        logfields.bind_fields({"seq": 2, "seat": 0})
        return first, logfields.bound(), logfields.CALL_FIELDS.get()

    first, bound, held = contextvars.Context().run(call)
    assert first == {"hand_id": "aa", "seq": 1}  # the first dict, once the call's, unchanged
    assert bound == held == {"hand_id": "aa", "seq": 2, "seat": 0}
    assert bound is not held  # bound() is a copy


class _Context:
    timeout_ms = None  # the Connect request context: no deadline


def test_the_http_port_writes_each_calls_own_fields(lines: io.StringIO) -> None:
    """Two hands started and acted on at once over the HTTP port, then an Evaluate: each
    line has its call's fields only (the port runs each call in a fresh context)."""
    handlers = Handlers(KeyRing([new_key("k1")]), allow_test_decks=False)
    service = StudEngineConnect(ApiCalls(handlers, ExpensiveCalls(1, 1)), max_concurrent=8)
    rng = random.Random(7)
    starts = [random_start(rng) for _ in range(2)]

    async def calls() -> tuple[list[Any], list[Any], dict[str, Any]]:
        started = await asyncio.gather(*(service.start_hand(s, _Context()) for s in starts))
        acts = [random_act(rng, answer.hand) for answer in started]
        answers = await asyncio.gather(*(service.act(a, _Context()) for a in acts))
        evaluate = pb.EvaluateRequest(hands=[pb.CardSet(cards=["Ac", "Kc", "Qc", "Jc", "Tc"])])
        await service.evaluate(evaluate, _Context())
        return acts, answers, logfields.bound()

    acts, answers, left = contextvars.Context().run(asyncio.run, calls())
    assert left == {}  # nothing bound in the caller's context
    entries = [e for e in _entries(lines) if e["event"] == "rpc"]
    methods = [e["method"].rsplit("/", 1)[1] for e in entries]
    assert methods == ["StartHand", "StartHand", "Act", "Act", "Evaluate"]
    for entry, act, answer in zip(entries[2:], acts, answers, strict=False):
        action = pb.ActionType.Name(act.action).removeprefix("ACTION_TYPE_")
        assert entry["protocol"] == "http" and entry["code"] == "OK"
        assert (entry["hand_id"], entry["seq"]) == (answer.hand.hand_id, answer.hand.seq)
        assert (entry["seat"], entry["action"]) == (act.seat, action)
    assert [e["seq"] for e in entries[:2]] == [0, 0]
    assert {e["hand_id"] for e in entries[:2]} == {e["hand_id"] for e in entries[2:4]}
    assert not {"hand_id", "seq", "seat", "action"} & set(entries[4])
