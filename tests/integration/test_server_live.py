"""A real stud-server process on 127.0.0.1: start-up rules, health, reflection, limits, and
the JSON call log (with nothing secret in it)."""

from __future__ import annotations

import queue
import random
import re
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from support.api_helpers import call_code, random_act, random_start
from support.polling import poll_until
from support.refusals import outcome_of
from support.server_harness import LiveServer
from test_api_http import connect_call, connect_outcome

Launch = Callable[..., LiveServer]
SERVICE = "stud.v1.StudEngineService"
CARD_TEXT = re.compile(r"\b[2-9TJQKA][cdhs]\b")


def test_refuses_to_start_without_a_key(live_server: Launch) -> None:
    server = live_server(key_specs=[], wait=False)
    assert server.wait(60) == 2
    assert "no sealing key configured" in "\n".join(server.stderr)
    assert not any(entry.get("event") == "serving" for entry in server.logs())


def test_dev_mode_starts_with_a_warning(live_server: Launch) -> None:
    server = live_server(key_specs=[], args=["--dev"])
    warnings = [e for e in server.logs() if e.get("level") == "warning"]
    assert any("ephemeral sealing key" in e["event"] for e in warnings)
    with server.channel() as channel:
        hand = pb_grpc.StudEngineServiceStub(channel).StartHand(random_start(random.Random(1)))
    assert hand.hand.state


def test_health_and_reflection(live_server: Launch) -> None:
    server = live_server()
    serving = health_pb2.HealthCheckResponse.SERVING
    assert server.health("") == serving
    assert server.health(SERVICE) == serving
    with server.channel() as channel:
        health = health_pb2_grpc.HealthStub(channel)
        unknown = health_pb2.HealthCheckRequest(service="no.such.Service")
        assert call_code(lambda: health.Check(unknown, timeout=10)) == grpc.StatusCode.NOT_FOUND

        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        requests = [
            reflection_pb2.ServerReflectionRequest(list_services=""),
            reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE),
        ]
        listed, described = list(stub.ServerReflectionInfo(iter(requests), timeout=10))
    names = {s.name for s in listed.list_services_response.service}
    assert {SERVICE, "grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"} <= names
    files = described.file_descriptor_response.file_descriptor_proto
    assert files and any(b"StudEngineService" in f for f in files)


def _evaluate(hands: int) -> pb.EvaluateRequest:
    deck = ["As", "Kd", "Qh", "Jc", "Ts", "9d", "8h"]
    return pb.EvaluateRequest(hands=[pb.CardSet(cards=deck) for _ in range(hands)])


def test_oversized_request_is_refused_and_the_server_stays_up(live_server: Launch) -> None:
    server = live_server(args=["--max-message-bytes", "65536", "--http-port", "0"])
    big = _evaluate(4000)  # about 120 kB
    assert big.ByteSize() > 65536
    with server.channel() as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.Evaluate(big, timeout=30)
        error = caught.value
        assert isinstance(error, grpc.Call)
        got = outcome_of(error.code().name, rpc_status.from_call(error))
        got.check_contract()  # typed: MESSAGE_TOO_LARGE, the limit (test_message_size.py)
        assert (got.code, got.reason) == ("RESOURCE_EXHAUSTED", "MESSAGE_TOO_LARGE")
        assert got.metadata == {"limit": "65536", "method": "Evaluate"}
        # the HTTP port refuses it the same way, typed
        status, body = connect_call(
            int(server.wait_for_log("serving")["http_port"]), "Evaluate", big
        )
        assert status == 429 and connect_outcome(body) == got
        assert len(stub.Evaluate(_evaluate(10), timeout=30).values) == 10
    assert server.health(SERVICE) == health_pb2.HealthCheckResponse.SERVING
    assert server.proc.poll() is None


def _open_reflection_stream(channel: grpc.Channel) -> tuple[queue.SimpleQueue[object], object]:
    """A reflection stream kept open (a call in flight, on a handler thread) until ``None``
    is put on the returned queue; returns once the server has answered on it, with the call
    (keep it referenced: a call object that is garbage collected is cancelled)."""
    requests: queue.SimpleQueue[object] = queue.SimpleQueue()
    requests.put(reflection_pb2.ServerReflectionRequest(list_services=""))
    replies = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(
        iter(requests.get, None), timeout=120
    )
    next(replies)
    return requests, replies


def test_concurrency_bound_refuses_the_excess(live_server: Launch) -> None:
    server = live_server(args=["--max-concurrent-rpcs", "2"])
    with server.channel() as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        held = [_open_reflection_stream(channel) for _ in range(2)]  # both slots taken
        request = _evaluate(3)
        assert call_code(lambda: stub.Evaluate(request, timeout=30)) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED
        )
        held[0][0].put(None)  # one stream ends: its slot frees
        poll_until(
            lambda: call_code(lambda: stub.Evaluate(request, timeout=30)) == grpc.StatusCode.OK,
            "the freed slot to be reused",
        )
        held[1][0].put(None)
    assert server.health(SERVICE) == health_pb2.HealthCheckResponse.SERVING


def _play(stub: pb_grpc.StudEngineServiceStub, rng: random.Random) -> list[pb.HandUpdate]:
    """One random hand to the end; every update returned, with a GetView per seat and one
    refused (out of turn) action on the way."""
    update = stub.StartHand(random_start(rng), timeout=30).hand
    updates = [update]
    refused = False
    while not update.over:
        if not refused:
            wrong_seat = (update.to_act + 1) % len(update.seats)
            bad = pb.ActRequest(state=update.state, seat=wrong_seat, action=pb.ACTION_TYPE_CALL)
            code = call_code(lambda bad=bad: stub.Act(bad, timeout=30))
            assert code == grpc.StatusCode.FAILED_PRECONDITION
            refused = True
        for seat in range(len(update.seats)):
            stub.GetView(pb.GetViewRequest(state=update.state, seat=seat), timeout=30)
        update = stub.Act(random_act(rng, update), timeout=30).hand
        updates.append(update)
    return updates


def test_one_json_line_per_call_and_no_secrets(live_server: Launch) -> None:
    server = live_server()
    rng = random.Random(20261130)
    updates: list[pb.HandUpdate] = []
    with server.channel() as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        for _ in range(4):
            updates += _play(stub, rng)
        stub.Evaluate(_evaluate(3), timeout=30)
    assert server.stop() == 0

    calls = [e for e in server.logs() if e.get("event") == "rpc"]
    by_method: dict[str, list[dict[str, object]]] = {}
    for entry in calls:
        assert {"method", "code", "duration_ms", "level", "timestamp"} <= set(entry)
        assert isinstance(entry["duration_ms"], float | int) and entry["duration_ms"] >= 0
        by_method.setdefault(str(entry["method"]).rsplit("/", 1)[1], []).append(entry)
    acts = by_method["Act"]
    applied = len(updates) - 4  # all but the 4 StartHand updates
    assert len(acts) == applied + 4  # and one refused action per hand
    assert {"hand_id", "seq", "seat", "action"} <= set(acts[0])
    assert {e["code"] for e in acts} == {"OK", "FAILED_PRECONDITION"}
    assert {e["hand_id"] for e in acts} == {u.hand_id for u in updates}
    assert len(by_method["StartHand"]) == 4 and "hand_id" in by_method["StartHand"][0]
    assert len(by_method["GetView"]) == sum(len(u.seats) for u in updates if not u.over)
    assert [(e["hand_id"], e["seq"]) for e in acts if e["code"] == "OK"] == [
        (u.hand_id, u.seq) for u in updates if u.seq
    ]  # each call's own fields, in the order of the calls on the one channel
    assert not {"hand_id", "seq", "seat", "action"} & set(by_method["Evaluate"][0])  # no leak

    text = "\n".join(server.lines)
    assert not CARD_TEXT.findall(text), "a card appears in the logs"
    finished = [u for u in updates if u.over]
    assert len(finished) == 4
    for update in finished:
        assert update.reveal.salt and update.reveal.salt not in text
        assert "".join(update.reveal.deck[:5]) not in text
    for update in updates:
        assert update.state.hex()[:32] not in text


def test_a_port_in_use_is_refused(live_server: Launch, tmp_path: Path) -> None:
    first = live_server(metrics=False)
    scratch = tmp_path / "scratch"  # TMPDIR of the refused servers: left empty
    scratch.mkdir()
    for workers in (1, 2):
        second = live_server(
            workers=workers,
            args=["--port", str(first.port)],
            env={"TMPDIR": str(scratch)},
            wait=False,
        )
        assert second.wait(60) == 2
        assert "cannot listen on 127.0.0.1:" in "\n".join(second.stderr)
        assert not list(scratch.iterdir())
    assert first.health(SERVICE) == health_pb2.HealthCheckResponse.SERVING


def test_health_watches_hold_no_handler_thread(live_server: Launch) -> None:
    server = live_server(args=["--threads", "2"])
    with server.channel() as channel:
        health = health_pb2_grpc.HealthStub(channel)
        watches = [health.Watch(health_pb2.HealthCheckRequest(service=SERVICE)) for _ in range(6)]
        assert {next(w).status for w in watches} == {health_pb2.HealthCheckResponse.SERVING}
        evaluate = pb_grpc.StudEngineServiceStub(channel).Evaluate(_evaluate(2), timeout=30)
        assert len(evaluate.values) == 2  # served although six watches are open on 2 threads
        for watch in watches:
            watch.cancel()

    def watches_handled() -> list[str]:
        return [
            line
            for line in server.metrics_text().splitlines()
            if line.startswith("grpc_server_handled_total") and 'grpc_method="Watch"' in line
        ]

    poll_until(  # each watch is counted once it ends
        lambda: (handled := watches_handled()) and float(handled[0].rsplit(" ", 1)[1]) == 6,
        "the six watches counted as handled",
        30,
    )
