"""OpenTelemetry traces end to end: stud-table and stud-server export to a real OTLP
receiver on 127.0.0.1 (tests/support/otlp_receiver.py). One move made as the page makes
it (POST /api/tables/main/act) is one trace: stud-table's request span, its engine call,
the engine's handler span and its steps, parent to child; no attribute of any span holds a
card, a token, a player's name or id, a hand id or a state's bytes; the engine's log line
of that call and its latency histogram's exemplar carry the same trace id."""

from __future__ import annotations

import re
import sqlite3
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from support.otlp_receiver import OtlpReceiver, ReceivedSpan
from support.polling import poll_until
from support.table_harness import TableServer, call, join, view

SERVER, CLIENT = 2, 3  # opentelemetry.proto.trace.v1.Span.SpanKind
ACT = "stud.v1.StudEngineService/Act"
STEPS = {"open state", "rules", "seal", "views"}
PASSIVE = ("check", "call", "bring_in")


def _passive(page: dict[str, Any]) -> dict[str, Any]:
    for kind in PASSIVE:
        for legal in page["legal"]:
            if legal["action"] == kind:
                return {k: v for k, v in legal.items() if k in ("action", "to")}
    raise AssertionError(f"no passive move in {page['legal']}")


def _secrets(db: Path, tokens: dict[int, str], pages: list[dict[str, Any]]) -> set[str]:
    """What no attribute may hold: the seats' tokens, the players' names, every card the
    pages show, the hand's id, and the stored states (as hex and as text)."""
    found = set(tokens.values()) | {"Ann", "Bob"}
    with sqlite3.connect(db) as conn:
        for hand_id, state in conn.execute("SELECT hand_id, state FROM hands"):
            found.add(str(hand_id))
            raw = state if isinstance(state, bytes) else str(state).encode()
            found |= {raw.hex(), raw.decode("latin-1")}
    for page in pages:
        found.add(page["hand"]["id"])
        for card in re.findall(r"\b[2-9TJQKA][cdhs]\b", repr(page)):
            found.add(card)
    return found


def _leaks(span: ReceivedSpan, secrets: set[str]) -> list[str]:
    leaks = []
    for key, value in span.attributes.items():
        text = str(value)
        words = set(re.findall(r"[A-Za-z0-9]+", text))
        for secret in secrets:
            if secret in words or (len(secret) > 8 and secret in text):
                leaks.append(f"{span.name}: {key}={text!r} holds {secret!r}")
    return leaks


def test_one_move_is_one_trace_from_the_table_into_the_engine_steps(
    otlp_receiver: OtlpReceiver, live_server: Callable[..., Any], tmp_path: Path
) -> None:
    engine = live_server()
    db = tmp_path / "table.db"
    table = TableServer(engine.target, f"sqlite:///{db}", ["--clock", "120", "--seats", "4"])
    try:
        base = table.url
        tokens = dict([join(base, "Ann"), join(base, "Bob")])

        def seat_to_act() -> tuple[int, dict[str, Any]] | None:
            for seat, token in tokens.items():
                page = view(base, token)
                if page["hand"] and page["legal"]:
                    return seat, page
            return None

        seat, page = poll_until(seat_to_act, "a seat to act", 60, 0.1)
        pages = [view(base, token) for token in tokens.values()]
        body = {"hand": page["hand"]["id"], "seq": page["hand"]["seq"], **_passive(page)}
        status, answer = call(base, "POST", "/api/tables/main/act", body, token=tokens[seat])
        assert status == 200, answer

        def the_move() -> list[ReceivedSpan] | None:
            spans = otlp_receiver.received()
            requests = [s for s in spans if s.name == "POST /api/tables/{table}/act"]
            if not requests:
                return None
            trace = [s for s in spans if s.trace_id == requests[0].trace_id]
            names = {s.name for s in trace}
            return trace if names >= STEPS and ACT in names else None

        trace = poll_until(the_move, "the move's trace with the engine's steps", 60, 0.1)
    finally:
        table.stop()
    by_id = {s.span_id: s for s in trace}
    (request,) = [s for s in trace if s.name == "POST /api/tables/{table}/act"]
    assert (request.service, request.kind) == ("stud-table", SERVER)
    assert request.attributes["http.route"] == "/api/tables/{table}/act"
    assert request.attributes["http.response.status_code"] == 200
    (client,) = [s for s in trace if s.name == ACT and s.kind == CLIENT]
    (handler,) = [s for s in trace if s.name == ACT and s.kind == SERVER]
    assert client.service == "stud-table" and client.parent_id == request.span_id
    assert handler.service == "stud-server" and handler.parent_id == client.span_id
    assert handler.attributes == {
        "rpc.system.name": "grpc",
        "rpc.method": ACT,
        "rpc.response.status_code": "OK",
    }
    steps = [s for s in trace if s.name in STEPS]
    assert {s.name for s in steps} == STEPS
    for step in steps:  # each a child of the handler's span, in the engine
        assert step.parent_id == handler.span_id and step.service == "stud-server"
    assert all(s.parent_id in by_id for s in trace if s is not request)  # one tree
    secrets = _secrets(db, tokens, pages)
    assert any(re.fullmatch(r"[2-9TJQKA][cdhs]", secret) for secret in secrets)  # cards seen
    leaks = [leak for span in otlp_receiver.received() for leak in _leaks(span, secrets)]
    assert not leaks, leaks

    logged = [e for e in engine.logs() if e.get("event") == "rpc" and e.get("method") == "/" + ACT]
    mine = [e for e in logged if e.get("trace_id") == handler.trace_id]
    assert len(mine) == 1 and mine[0]["span_id"] == handler.span_id, logged

    openmetrics = urllib.request.Request(
        f"http://127.0.0.1:{engine.metrics_port}/metrics",
        headers={"Accept": "application/openmetrics-text; version=1.0.0"},
    )
    with urllib.request.urlopen(openmetrics, timeout=10) as response:
        scrape = response.read().decode()
    exemplars = re.findall(
        r'^grpc_server_handling_seconds_bucket\{[^}]*grpc_method="Act"[^}]*\} \S+ '
        r'# \{trace_id="([0-9a-f]{32})"\}',
        scrape,
        re.MULTILINE,
    )
    assert handler.trace_id in exemplars, scrape


def test_a_refused_call_is_marked_with_its_errorinfo_reason(
    otlp_receiver: OtlpReceiver, live_server: Callable[..., Any]
) -> None:
    """A refusal's span carries its status and ErrorInfo reason (error.type), on both
    ports: a bad state sent to Act over gRPC and over Connect, each with the caller's
    traceparent (gRPC metadata, a Connect header), which is the span's parent."""
    from stud_api.stud.v1 import stud_engine_pb2 as pb
    from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
    from support.server_harness import free_port

    http_port = free_port()
    engine = live_server(args=["--http-port", str(http_port)])
    request = pb.ActRequest(state=b"not a sealed state", seat=0)
    with engine.channel() as channel, pytest.raises(grpc.RpcError) as refused:
        metadata = (("traceparent", _traceparent("grpc")),)
        pb_grpc.StudEngineServiceStub(channel).Act(request, timeout=10, metadata=metadata)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    connect = urllib.request.Request(
        f"http://127.0.0.1:{http_port}/stud.v1.StudEngineService/Act",
        data=request.SerializeToString(),
        headers={"Content-Type": "application/proto", "traceparent": _traceparent("connect_rpc")},
    )
    with pytest.raises(urllib.error.HTTPError):
        urllib.request.urlopen(connect, timeout=10)

    def both() -> dict[str, ReceivedSpan] | None:
        spans = {s.attributes.get("rpc.system.name"): s for s in otlp_receiver.received()}
        return spans if {"grpc", "connect_rpc"} <= set(spans) else None

    spans = poll_until(both, "the refused calls' spans", 60, 0.1)
    for system in ("grpc", "connect_rpc"):
        span = spans[system]
        assert span.name == ACT and span.kind == SERVER
        assert span.attributes["rpc.response.status_code"] == "INVALID_ARGUMENT"
        assert span.attributes["error.type"] == "STATE_INVALID"
        assert span.status == 2  # STATUS_CODE_ERROR
        assert (span.trace_id, span.parent_id) == CALLERS[system]


CALLERS = {"grpc": ("11" * 16, "22" * 8), "connect_rpc": ("33" * 16, "44" * 8)}


def _traceparent(system: str) -> str:
    trace_id, span_id = CALLERS[system]
    return f"00-{trace_id}-{span_id}-01"
