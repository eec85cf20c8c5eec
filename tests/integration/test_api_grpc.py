"""The API over real gRPC (servers on 127.0.0.1): every conformance vector through the
live server, uniform refusals of bad states with rich status details, test decks, a
stateless hand across separate server processes, Evaluate and Equity."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf.message import Message
from grpc_status import rpc_status
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from studclients.engine import Dial
from studengine.api.errors import field_violations
from studengine.conformance import play_vector
from studengine.conformance.remote import RemoteDriver
from studengine.state.sealing import INVALID_MESSAGE, KeyRing
from support.api_helpers import call_code, new_key, spec_of, table_7s
from support.known_failures import check_command_output, vector_params
from support.paths import CONFORMANCE_DIR
from support.refusals import REFUSALS, Refusal, outcome_of
from support.server_harness import LiveServer

VECTORS = sorted(CONFORMANCE_DIR.glob("*.json"))
PLAYERS = [pb.Player(id=f"player-{i}", stack=500) for i in range(3)]
# the console script, as a user runs it
COMMAND = [str(Path(sys.executable).parent / "stud-conformance")]
DECK = ["Ac", "3c", "9s", "Kd", "3d", "9d", "Qh", "2d", "7c"]


@pytest.fixture
def test_deck_target(inprocess_server: Callable[..., str]) -> str:
    return inprocess_server(KeyRing([new_key("k1")]), True)


@pytest.fixture
def stub(test_deck_target: str) -> Iterator[pb_grpc.StudEngineServiceStub]:
    with grpc.insecure_channel(test_deck_target) as channel:
        yield pb_grpc.StudEngineServiceStub(channel)


def start_request(test_deck: list[str] | None = None) -> pb.StartHandRequest:
    return pb.StartHandRequest(
        variant=pb.VARIANT_SEVEN_CARD_STUD,
        table=table_7s(),
        players=PLAYERS,
        button=2,
        test_deck=test_deck or [],
    )


def rpc_error(call: Callable[[], object]) -> grpc.Call:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert isinstance(caught.value, grpc.Call)
    return caught.value


def test_vectors_are_there() -> None:
    assert len(VECTORS) >= 20, f"conformance vectors missing under {CONFORMANCE_DIR}"


@pytest.mark.parametrize("path", vector_params(VECTORS))
def test_conformance_vector_through_the_live_server(test_deck_target: str, path: Path) -> None:
    driver = RemoteDriver(Dial((test_deck_target,)))
    try:
        assert play_vector(json.loads(path.read_text()), driver) is None
    finally:
        driver.close()


def test_stud_conformance_command_against_the_live_server(test_deck_target: str) -> None:
    done = subprocess.run(
        [*COMMAND, str(CONFORMANCE_DIR), "--target", test_deck_target],
        capture_output=True,
        text=True,
        timeout=300,
    )
    check_command_output(done.stdout, len(VECTORS))


def test_remote_driver_keeps_the_old_state_after_a_refusal(test_deck_target: str) -> None:
    from studengine.conformance import ActionRefused

    vector = json.loads((CONFORMANCE_DIR / "7s-rejected-actions.json").read_text())
    driver = RemoteDriver(Dial((test_deck_target,)))
    first = driver.start(vector)
    with pytest.raises(ActionRefused):
        driver.act(0, "CALL", None)
    assert driver.seq == 0
    assert driver.act(1, "BRING_IN", None).to_act == 2 and driver.seq == 1
    assert first.to_act == 1
    driver.close()


def test_bad_states_get_one_answer_over_grpc(stub: pb_grpc.StudEngineServiceStub) -> None:
    state = stub.StartHand(start_request(), timeout=10).hand.state
    rng = random.Random(3)
    foreign = KeyRing([new_key("k1")]).seal_bytes(b"\x08\x01")
    candidates = [b"", state[:10], state[:-1], os.urandom(300), foreign]
    for position in rng.sample(range(len(state)), 25):
        tampered = bytearray(state)
        tampered[position] ^= 1 << rng.randrange(8)
        candidates.append(bytes(tampered))
    for candidate in candidates:
        for call in (
            lambda c=candidate: stub.Act(
                pb.ActRequest(state=c, seat=1, action=pb.ACTION_TYPE_BRING_IN), timeout=10
            ),
            lambda c=candidate: stub.GetView(pb.GetViewRequest(state=c), timeout=10),
        ):
            error = rpc_error(call)
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert error.details() == INVALID_MESSAGE
            status = rpc_status.from_call(error)
            assert field_violations(status) == [("state", INVALID_MESSAGE)]


def test_refusals_over_grpc(stub: pb_grpc.StudEngineServiceStub) -> None:
    update = stub.StartHand(start_request(DECK), timeout=10).hand
    error = rpc_error(
        lambda: stub.Act(
            pb.ActRequest(state=update.state, seat=0, action=pb.ACTION_TYPE_CALL), timeout=10
        )
    )
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "BRING_IN 10" in error.details()
    error = rpc_error(
        lambda: stub.Act(
            pb.ActRequest(
                state=update.state, seat=1, action=pb.ACTION_TYPE_BRING_IN, expected_seq=4
            ),
            timeout=10,
        )
    )
    assert error.code() == grpc.StatusCode.ABORTED
    bad = start_request()
    bad.table.bring_in = 50
    error = rpc_error(lambda: stub.StartHand(bad, timeout=10))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(rpc_status.from_call(error))[0][0] == "table.bring_in"


def test_test_decks_need_the_flag(inprocess_server: Callable[..., str]) -> None:
    key = new_key("k1")
    testing = inprocess_server(KeyRing([key]), True)
    production = inprocess_server(KeyRing([key]), False)
    with grpc.insecure_channel(testing) as a, grpc.insecure_channel(production) as b:
        test_stub, prod_stub = pb_grpc.StudEngineServiceStub(a), pb_grpc.StudEngineServiceStub(b)
        state = test_stub.StartHand(start_request(DECK), timeout=10).hand.state
        error = rpc_error(lambda: prod_stub.GetView(pb.GetViewRequest(state=state), timeout=10))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert error.details() == INVALID_MESSAGE
        error = rpc_error(lambda: prod_stub.StartHand(start_request(DECK), timeout=10))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert field_violations(rpc_status.from_call(error))[0][0] == "test_deck"


def _play_alternating(stubs: list[pb_grpc.StudEngineServiceStub], update: pb.HandUpdate) -> int:
    """Plays calls until the end, each on the next stub in turn; returns the calls made."""
    rng = random.Random(5)
    calls = 0
    while not update.over:
        stub = stubs[calls % len(stubs)]
        choices = [a for a in update.legal_actions if a.type != pb.ACTION_TYPE_FOLD]
        choice = rng.choice(choices or list(update.legal_actions))
        request = pb.ActRequest(
            state=update.state, seat=update.to_act, action=choice.type, expected_seq=update.seq
        )
        if choice.HasField("to"):
            request.to = choice.to
        update = stub.Act(request, timeout=10).hand
        calls += 1
    return calls


def test_stateless_across_server_processes_and_a_restart(
    live_server: Callable[..., LiveServer],
) -> None:
    """One hand alternating between two separately started stud-server processes that
    share a key, then finished on a freshly started one (with a rotated key ring)."""
    old, new = spec_of(new_key("old")), spec_of(new_key("new"))
    first, second = live_server(key_specs=[old]), live_server(key_specs=[old])
    with first.channel() as one, second.channel() as two:
        stubs = [pb_grpc.StudEngineServiceStub(one), pb_grpc.StudEngineServiceStub(two)]
        update = stubs[0].StartHand(start_request(), timeout=10).hand
        for i in range(4):  # alternate servers; each sees the same hand
            view_a = stubs[0].GetView(pb.GetViewRequest(state=update.state), timeout=10)
            view_b = stubs[1].GetView(pb.GetViewRequest(state=update.state), timeout=10)
            assert view_a == view_b
            action = next(a for a in update.legal_actions if a.type != pb.ACTION_TYPE_FOLD)
            request = pb.ActRequest(
                state=update.state, seat=update.to_act, action=action.type, expected_seq=i
            )
            update = stubs[i % 2].Act(request, timeout=10).hand
            assert update.seq == i + 1
        midway = update
    assert first.stop() == 0 and second.stop() == 0
    third = live_server(key_specs=[new, old])
    with third.channel() as three:
        stub = pb_grpc.StudEngineServiceStub(three)
        assert stub.GetView(pb.GetViewRequest(state=midway.state), timeout=10).seq == 4
        assert _play_alternating([stub], midway) > 0


def test_evaluate_and_equity_over_grpc(stub: pb_grpc.StudEngineServiceStub) -> None:
    values = stub.Evaluate(
        pb.EvaluateRequest(hands=[pb.CardSet(cards=["As", "Ad", "Ah", "Kc", "Kd"])]), timeout=10
    ).values
    assert values[0].category == "Full House"
    request = pb.EquityRequest(
        variant=pb.VARIANT_SEVEN_CARD_STUD,
        players=[
            pb.EquityPlayer(down_cards=["As", "Ad"], up_cards=["Ah"]),
            pb.EquityPlayer(up_cards=["Kc"]),
        ],
        samples=5000,
        seed=11,
    )
    first = stub.Equity(request, timeout=30)
    again = stub.Equity(request, timeout=30)
    assert first == again  # seeded: reproducible
    assert first.method == "monte_carlo" and first.samples == 5000 and first.complete
    assert first.players[0].equity > 0.8
    assert abs(sum(p.equity for p in first.players) - 1.0) < 1e-9
    exact = stub.Equity(
        pb.EquityRequest(
            variant=pb.VARIANT_FIVE_CARD_STUD,
            players=[
                pb.EquityPlayer(down_cards=["As"], up_cards=["Ah", "2c", "3c"]),
                pb.EquityPlayer(up_cards=["Kc", "Kd", "4h"]),
            ],
        ),
        timeout=30,
    )
    assert exact.method == "exact" and exact.stderr == 0.0
    for bad in (
        pb.EquityRequest(variant=pb.VARIANT_FIVE_CARD_STUD, players=[pb.EquityPlayer()]),
        pb.EquityRequest(
            variant=pb.VARIANT_FIVE_CARD_STUD,
            players=[pb.EquityPlayer(up_cards=["As"]), pb.EquityPlayer(up_cards=["As"])],
        ),
        pb.EquityRequest(
            variant=pb.VARIANT_SEVEN_CARD_STUD,
            players=[pb.EquityPlayer(up_cards=["As"]), pb.EquityPlayer(up_cards=["Ks"])],
            samples=10**7,
        ),
    ):
        assert call_code(lambda b=bad: stub.Equity(b, timeout=10)) == (
            grpc.StatusCode.INVALID_ARGUMENT
        )


def grpc_caller(stub: pb_grpc.StudEngineServiceStub) -> Callable[[str, Message], object]:
    def call(method: str, request: Message) -> object:
        return getattr(stub, method)(request, timeout=30)

    return call


@pytest.mark.parametrize("case", REFUSALS, ids=[c.name for c in REFUSALS])
def test_every_refusal_carries_its_error_info_over_grpc(
    inprocess_server: Callable[..., str], case: Refusal
) -> None:
    """The rich status (grpc-status-details-bin) of each refusal path: ErrorInfo and
    BadRequest as the handlers make them."""
    key = KeyRing([new_key("k1")])
    dealer = inprocess_server(key, True)
    target = dealer if case.test_decks else inprocess_server(key, False)
    with grpc.insecure_channel(dealer) as a, grpc.insecure_channel(target) as b:
        method, request = case.make(grpc_caller(pb_grpc.StudEngineServiceStub(a)))
        call = grpc_caller(pb_grpc.StudEngineServiceStub(b))
        error = rpc_error(lambda: call(method, request))
    status = rpc_status.from_call(error)
    assert status is not None and status.message == error.details()
    case.check(outcome_of(error.code().name, status))


def test_a_malformed_body_is_an_invalid_request(stub: pb_grpc.StudEngineServiceStub,
                                                 test_deck_target: str) -> None:  # fmt: skip
    with grpc.insecure_channel(test_deck_target) as channel:
        raw = channel.unary_unary("/stud.v1.StudEngineService/Act")
        error = rpc_error(lambda: raw(b"\xff\xff\xff", timeout=10))
    got = outcome_of(error.code().name, rpc_status.from_call(error))
    assert (got.code, got.reason, got.domain) == ("INVALID_ARGUMENT", "INVALID_REQUEST", "stud.v1")
    assert [f for f, _, _ in got.violations] == ["request"]
