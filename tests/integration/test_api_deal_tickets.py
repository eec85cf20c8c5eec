"""Verifiable deals (issue 32) against a real server: a ticket over gRPC and over Connect
JSON, StartHand with it and the players' contributions, the commitment shown from the
first update, the reveal at the end giving the deck, the history accepted by the
``stud-verify`` command; an expired ticket refused on both ports. (The other refusals are
in support.refusals, played on both ports by test_api_grpc.py and test_api_http.py.)"""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from grpc_status import rpc_status
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from studengine.cards import format_card
from studengine.deal import deal_deck
from support.polling import poll_until
from support.refusals import CONTRIBUTIONS, outcome_of, ticket_request, ticketed_start
from support.server_harness import LiveServer, launch

SERVICE = "/stud.v1.StudEngineService/"


def start(tmp: Path, *args: str) -> LiveServer:
    running = launch(tmp, args=["--http-port", "0", *args])
    running.http_port = int(running.wait_for_log("serving")["http_port"])  # type: ignore[attr-defined]
    return running


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    running = start(tmp_path_factory.mktemp("deals"))
    yield running
    running.stop()


def json_call(port: int, method: str, request: Message) -> tuple[int, dict[str, Any]]:
    """A Connect unary call with a JSON body (the proto3 JSON mapping)."""
    body = json_format.MessageToJson(request)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", SERVICE + method, body, {"content-type": "application/json"})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def fold_out(stub: pb_grpc.StudEngineServiceStub, update: pb.HandUpdate) -> pb.HandUpdate:
    while not update.over:
        legal = {a.type for a in update.legal_actions}
        action = (
            pb.ACTION_TYPE_BRING_IN if pb.ACTION_TYPE_BRING_IN in legal else pb.ACTION_TYPE_FOLD
        )
        act = pb.ActRequest(state=update.state, seat=update.to_act, action=action)
        update = stub.Act(act, timeout=30).hand
    return update


def test_a_verifiable_hand_over_grpc_is_accepted_by_stud_verify(
    server: LiveServer, tmp_path: Path
) -> None:
    with server.channel() as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        ticket = stub.CreateDealTicket(ticket_request(), timeout=30).ticket
        first = stub.StartHand(ticketed_start(ticket), timeout=30).hand
        assert (first.hand_id, first.deal_commitment) == (ticket.hand_id, ticket.commitment)
        view = stub.GetView(pb.GetViewRequest(state=first.state), timeout=30)
        assert view.deal_commitment == ticket.commitment
        end = fold_out(stub, first)
        history = stub.GetHandHistory(
            pb.GetHandHistoryRequest(state=end.state, audience=pb.HISTORY_AUDIENCE_PLAYERS),
            timeout=30,
        ).phh
    seed = bytes.fromhex(end.reveal.server_seed)
    assert hashlib.sha256(seed).hexdigest() == ticket.commitment
    deck = deal_deck(seed, bytes.fromhex(ticket.hand_id), CONTRIBUTIONS)
    assert list(end.reveal.deck) == [format_card(card) for card in deck]
    path = tmp_path / f"{ticket.hand_id}.phh"
    path.write_text(history)
    verify = Path(sys.executable).with_name("stud-verify")
    done = subprocess.run([str(verify), str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{path}: ok" in done.stdout


def test_a_verifiable_hand_over_connect_json(server: LiveServer) -> None:
    port: int = server.http_port  # type: ignore[attr-defined]
    status, made = json_call(port, "CreateDealTicket", ticket_request())
    assert status == 200, made
    ticket = made["ticket"]
    assert len(ticket["handId"]) == 32 and len(ticket["commitment"]) == 64
    assert int(ticket["expiresAtMs"]) > 0  # int64: a string in JSON
    sealed = base64.b64decode(ticket["sealed"])
    request = ticketed_start(pb.DealTicket(sealed=sealed))
    status, started = json_call(port, "StartHand", request)
    assert status == 200, started
    hand = started["hand"]
    assert (hand["handId"], hand["dealCommitment"]) == (ticket["handId"], ticket["commitment"])


def test_an_expired_ticket_is_refused_on_both_ports(tmp_path: Path) -> None:
    running = start(tmp_path, "--deal-ticket-seconds", "0.001")
    try:
        port: int = running.http_port  # type: ignore[attr-defined]
        with running.channel() as channel:
            stub = pb_grpc.StudEngineServiceStub(channel)
            ticket = stub.CreateDealTicket(ticket_request(), timeout=30).ticket

            def refused() -> grpc.RpcError | None:
                try:
                    stub.StartHand(ticketed_start(ticket), timeout=30)
                except grpc.RpcError as error:
                    return error
                return None  # not yet past its millisecond

            error = poll_until(refused, "the ticket to expire", timeout=10)
        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
        status, body = json_call(port, "StartHand", ticketed_start(ticket))
        assert status == 400 and body["code"] == "failed_precondition", body
        got = outcome_of("FAILED_PRECONDITION", rpc_status.from_call(error))
        got.check_contract()
        assert got.reason == "DEAL_TICKET_EXPIRED"
        assert got.metadata == {"expires_at_ms": str(ticket.expires_at_ms)}
    finally:
        running.stop()
