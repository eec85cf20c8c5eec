"""The HTTP port against ONE server: a full hand (a fixed deck) played over Connect JSON
with curl, over gRPC-Web and Connect from the TypeScript client, and over gRPC, with
identical results; native gRPC on the HTTP port too; every refusal path gives the same
status code, message, ErrorInfo and BadRequest over Connect as over gRPC (either port); the
health endpoint; the same metrics."""

from __future__ import annotations

import base64
import http.client
import json
import subprocess
import threading
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from google.rpc import status_pb2
from grpc_status import rpc_status
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from studengine.api.servicer import METHODS
from support.paths import require_tool
from support.polling import poll_until
from support.refusals import REFUSALS, Outcome, Refusal, outcome_of
from support.server_harness import LiveServer
from test_clients_node import node_client, play

DECK = [  # a fixed deal
    "Ah",
    "Kd",
    "2c",
    "9s",
    "9h",
    "Qc",
    "3d",
    "7d",
    "Jc",
    "5s",
    "Td",
    "4h",
    "8c",
    "6s",
    "Ks",
    "2h",
    "Qs",
    "7h",
    "3c",
    "Jd",
    "As",
    "9d",
    "Tc",
    "4s",
    "5h",
    "8d",
    "Kc",
    "Qh",
    "6h",
    "Js",
    "2s",
    "8h",
]
SERVICE = "/stud.v1.StudEngineService/"
CODES = {code.name.lower(): code.name for code in grpc.StatusCode}
CODES["canceled"] = "CANCELLED"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from support.server_harness import launch

    running = launch(tmp_path_factory.mktemp("http"), allow_test_decks=True,
                     args=["--http-port", "0"])  # fmt: skip
    running.http_port = int(running.wait_for_log("serving")["http_port"])  # type: ignore[attr-defined]
    yield running
    running.stop()


def curl(port: int, method: str, body: dict[str, Any]) -> dict[str, Any]:
    tool = require_tool("curl", "apt-get install curl")
    proc = subprocess.run(
        [tool, "-sS", "--fail-with-body", "-X", "POST", f"http://127.0.0.1:{port}{SERVICE}{method}",
         "-H", "content-type: application/json", "-d", json.dumps(body)],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return dict(json.loads(proc.stdout))


def summary_of_json(hand: dict[str, Any]) -> dict[str, Any]:
    """The result of a hand as Connect JSON gives it (int64 as strings)."""
    result = hand["result"]
    return {
        "pots": [(int(p["amount"]), p.get("winners", []), [int(s) for s in p.get("shares", [])])
                 for p in result["pots"]],
        "stacks": [int(s) for s in result["stacks"]],
        "shown": [(s.get("seat", 0), s["cards"], s["description"])
                  for s in result.get("shown", [])],
        "seq": int(hand.get("seq", 0)),
    }  # fmt: skip


def test_one_hand_over_every_transport_gives_the_same_result(server: LiveServer) -> None:
    """R-CONSERVATION over every transport: the same deck and moves give the same pots."""
    node = node_client()
    port: int = server.http_port  # type: ignore[attr-defined]
    runs = {}
    for transport, where in (("grpc-web", f"http://127.0.0.1:{port}"),
                             ("connect", f"http://127.0.0.1:{port}"),
                             ("grpc", f"http://{server.target}")):  # fmt: skip
        proc = play(node, "--transport", transport, "--base-url", where, "--seed", "7",
                    "--players", "4", "--test-deck", ",".join(DECK), "--json")  # fmt: skip
        assert proc.returncode == 0, proc.stdout + proc.stderr
        runs[transport] = json.loads(proc.stdout.strip().splitlines()[-1])
    first = runs["grpc-web"]
    assert first["conserved"] and first["moves"]
    node_summary = {
        "pots": [(p["amount"], p["winners"], p["shares"]) for p in first["pots"]],
        "stacks": first["stacks"],
        "shown": [(s["seat"], s["cards"], s["description"]) for s in first["shown"]],
        "seq": first["seq"],
    }
    for transport, run in runs.items():
        assert (run["moves"], run["stacks"], run["pots"], run["shown"]) == (
            first["moves"],
            first["stacks"],
            first["pots"],
            first["shown"],
        ), transport

    # the same hand with curl and Connect JSON
    start = {
        "variant": "VARIANT_SEVEN_CARD_STUD",
        "table": {"ante": 5, "bringIn": 10, "smallBet": 20, "bigBet": 40},
        "players": [{"id": f"node-{i}", "stack": 1000} for i in range(4)],
        "button": first["button"],
        "testDeck": DECK,
    }
    hand = curl(port, "StartHand", start)["hand"]
    for move in first["moves"]:
        assert hand["toAct"] == move["seat"]
        act = {
            "state": hand["state"],
            "seat": move["seat"],
            "action": "ACTION_TYPE_" + move["action"],
            "expectedSeq": hand.get("seq", "0"),
        }
        if "to" in move:
            act["to"] = move["to"]
        hand = curl(port, "Act", act)["hand"]
    assert hand["over"] is True
    assert summary_of_json(hand) == node_summary

    # and with the Python gRPC client
    with grpc.insecure_channel(server.target) as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        update = stub.StartHand(pb.StartHandRequest(
            variant=pb.VARIANT_SEVEN_CARD_STUD, table=pb.Table(ante=5, bring_in=10, small_bet=20,
            big_bet=40), players=[pb.Player(id=f"node-{i}", stack=1000) for i in range(4)],
            button=first["button"], test_deck=DECK), timeout=10).hand  # fmt: skip
        for move in first["moves"]:
            request = pb.ActRequest(
                state=update.state,
                seat=move["seat"],
                expected_seq=update.seq,
                action=pb.ActionType.Value("ACTION_TYPE_" + move["action"]),
            )
            if "to" in move:
                request.to = move["to"]
            update = stub.Act(request, timeout=10).hand
    got = {
        "pots": [(p.amount, list(p.winners), list(p.shares)) for p in update.result.pots],
        "stacks": list(update.result.stacks),
        "shown": [(s.seat, list(s.cards), s.description) for s in update.result.shown],
        "seq": update.seq,
    }
    assert got == node_summary


def in_flight(server: LiveServer) -> str:
    """The ``grpc_server_in_flight`` lines of calls being handled now (value not 0)."""
    return "\n".join(
        line
        for line in server.metrics_text().splitlines()
        if line.startswith("grpc_server_in_flight{")
        and 'stage="handling"' in line
        and float(line.rsplit(" ", 1)[1]) > 0
    )


def connect_call(port: int, method: str, request: Message) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", SERVICE + method, request.SerializeToString(),
                     {"content-type": "application/proto"})  # fmt: skip
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def connect_outcome(body: bytes) -> Outcome:
    """A Connect error (JSON, details as base64 Any) as an ``Outcome``."""
    error = json.loads(body)
    status = status_pb2.Status(message=error.get("message", ""))
    for detail in error.get("details", []):
        packed = status.details.add()
        packed.type_url = "type.googleapis.com/" + detail["type"]
        packed.value = base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
    return outcome_of(CODES[error["code"]], status)


def connect_caller(port: int) -> Callable[[str, Message], Any]:
    def call(method: str, request: Message) -> Any:
        status, body = connect_call(port, method, request)
        assert status == 200, body
        return METHODS[method][1].FromString(body)

    return call


@pytest.mark.parametrize("case", [c for c in REFUSALS if c.test_decks], ids=lambda c: c.name)
def test_typed_errors_are_the_same_over_connect(server: LiveServer, case: Refusal) -> None:
    """Connect on the HTTP port, gRPC on the gRPC port and gRPC on the HTTP port: one
    outcome."""
    port: int = server.http_port  # type: ignore[attr-defined]
    method, request = case.make(connect_caller(port))
    status, body = connect_call(port, method, request)
    assert status >= 400
    over_connect = connect_outcome(body)
    case.check(over_connect)
    with grpc.insecure_channel(server.target) as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            getattr(stub, method)(request, timeout=30)
    over_grpc = grpc_outcome(caught.value)
    assert over_connect == over_grpc
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:  # gRPC on the HTTP port
        stub = pb_grpc.StudEngineServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            getattr(stub, method)(request, timeout=30)
    assert grpc_outcome(caught.value) == over_grpc


def grpc_outcome(error: grpc.RpcError) -> Outcome:
    assert isinstance(error, grpc.Call)
    status = rpc_status.from_call(error)
    assert status is not None, (error.code(), error.details())  # no rich status came
    return outcome_of(error.code().name, status)


def test_the_http_port_serves_grpc_too(server: LiveServer) -> None:
    """Native gRPC (HTTP/2 cleartext, the status in HTTP trailers) on the HTTP port gives
    what the gRPC port gives: the reason the port needs an ASGI server with the trailers
    extension (docs/http.md, "Why hypercorn")."""
    port: int = server.http_port  # type: ignore[attr-defined]
    royal = pb.EvaluateRequest(hands=[pb.CardSet(cards=["Ac", "Kc", "Qc", "Jc", "Tc"])])
    start = pb.StartHandRequest(
        variant=pb.VARIANT_FIVE_CARD_STUD, table=pb.Table(ante=5, bring_in=10, small_bet=20,
        big_bet=40), players=[pb.Player(id="ann", stack=500), pb.Player(id="bob", stack=500)],
        button=1, test_deck=["Ah", "2c", "Kd", "9s"])  # fmt: skip
    answers = {}
    for where in (server.target, f"127.0.0.1:{port}"):
        with grpc.insecure_channel(where) as channel:
            stub = pb_grpc.StudEngineServiceStub(channel)
            evaluated = stub.Evaluate(royal, timeout=30)
            hand = stub.StartHand(start, timeout=30).hand
            bring_in = pb.ActRequest(
                state=hand.state, seat=hand.to_act, action=pb.ACTION_TYPE_BRING_IN
            )
            acted = stub.Act(bring_in, timeout=30).hand
        answers[where] = (evaluated, hand.to_act, acted.seq, acted.to_act,
                          list(acted.legal_actions))  # fmt: skip
    assert answers[server.target][0].values[0].category == "Straight Flush"
    assert answers[server.target] == answers[f"127.0.0.1:{port}"]


def test_health_and_metrics_of_the_http_port(server: LiveServer) -> None:
    port: int = server.http_port  # type: ignore[attr-defined]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/healthz")
    response = conn.getresponse()
    assert (response.status, response.read()) == (200, b"SERVING\n")
    conn.close()
    status, _ = connect_call(port, "Evaluate", pb.EvaluateRequest(
        hands=[pb.CardSet(cards=["Ac", "Kc", "Qc", "Jc", "Tc"])]))  # fmt: skip
    assert status == 200
    server.wait_for_log("rpc")
    text = server.metrics_text()
    assert (
        'grpc_server_handled_total{grpc_code="OK",grpc_method="Evaluate",'
        'grpc_service="stud.v1.StudEngineService",grpc_type="unary"}'
    ) in text
    assert "stud_build_info{" in text


@pytest.mark.parametrize("workers", [1, 2])
def test_the_http_port_drains_and_exits_cleanly(
    live_server: Callable[..., LiveServer], workers: int
) -> None:
    """Workers share the HTTP port (SO_REUSEPORT); on SIGTERM a call in flight finishes,
    the port closes and the process exits 0."""
    server = live_server(workers=workers, args=["--http-port", "0", "--grace-seconds", "20"])
    port = int(server.wait_for_log("serving")["http_port"])
    for _ in range(4):  # new connections: with two workers, both are likely reached
        status, _body = connect_call(port, "Evaluate", pb.EvaluateRequest(
            hands=[pb.CardSet(cards=["Ac", "Kc", "Qc", "Jc", "Tc"])]))  # fmt: skip
        assert status == 200
    # an exact Equity with many unknown cards: a call that takes a while
    hands = [pb.EquityPlayer(down_cards=["Ac", "Kd"]), pb.EquityPlayer(down_cards=["2c", "7h"])]
    slow = pb.EquityRequest(variant=pb.VARIANT_SEVEN_CARD_STUD, players=hands, street=5,
                            method=pb.EQUITY_METHOD_EXACT)  # fmt: skip
    results: list[tuple[int, bytes]] = []
    caller = threading.Thread(target=lambda: results.append(connect_call(port, "Equity", slow)))
    caller.start()
    # SIGTERM once the call has reached the server: it is being handled, or answered
    poll_until(
        lambda: results or 'grpc_method="Equity"' in in_flight(server),
        "the Equity call to reach the server",
    )
    assert server.stop() == 0, server.output()
    caller.join(30)
    assert results and results[0][0] in (200, 400, 504), results
    with pytest.raises(ConnectionError):
        connect_call(port, "Evaluate", pb.EvaluateRequest())
