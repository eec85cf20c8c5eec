"""Typed errors through the handlers: every refusal path carries google.rpc.ErrorInfo
(domain stud.v1, its reason, its metadata) and, on INVALID_ARGUMENT, BadRequest with every
bad field; the reasons are the proto's; the engine's typed refusals map in one place."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from stud_api.stud.v1 import errors_pb2
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api.errors import (
    MAX_VIOLATIONS,
    REFUSAL_REASONS,
    ApiError,
    Reason,
    Violation,
    error_info,
    illegal_action,
    invalid,
    overloaded,
    rich_status,
    to_status,
    work_cancelled,
)
from studengine.api.handlers import Handlers
from studengine.rules.types import ActionType, IllegalAction, LegalAction
from studengine.rules.types import Refusal as EngineRefusal
from studengine.state.sealing import KeyRing
from support.api_helpers import new_key, status_as_received
from support.refusals import REFUSALS, Outcome, Refusal, outcome_of

METHODS = {
    "StartHand": "start_hand",
    "Act": "act",
    "GetView": "get_view",
    "Evaluate": "evaluate",
    "Equity": "equity",
    "GetHandHistory": "get_hand_history",
    "CreateDealTicket": "create_deal_ticket",
}


def caller(handlers: Handlers) -> Any:
    def call(method: str, request: Message) -> Any:
        return getattr(handlers, METHODS[method])(request)

    return call


def refused(handlers: Handlers, case: Refusal) -> Outcome:
    call = caller(handlers)
    method, request = case.make(caller(Handlers(handlers.sealer.keyring, True)))
    with pytest.raises(ApiError) as caught:
        call(method, request)
    error = caught.value
    return outcome_of(error.code.name, rich_status(error))


@pytest.fixture(scope="module")
def keyring() -> KeyRing:
    return KeyRing([new_key("k1")])


@pytest.mark.parametrize("case", REFUSALS, ids=[c.name for c in REFUSALS])
def test_every_refusal_carries_its_error_info(keyring: KeyRing, case: Refusal) -> None:
    """R-ACTIONS, R-TURN: refused moves say why, for programs; malformed requests name
    every bad field."""
    handlers = Handlers(keyring, allow_test_decks=case.test_decks)
    case.check(refused(handlers, case))


def test_the_reasons_are_the_protos() -> None:
    names = set(errors_pb2.ErrorReason.keys()) - {"ERROR_REASON_UNSPECIFIED"}
    assert {r.value for r in Reason} == names  # each exercised: test_api_error_contract


def test_the_grpc_status_carries_the_same_details(keyring: KeyRing) -> None:
    handlers = Handlers(keyring, allow_test_decks=True)
    update = handlers.start_hand(pb.StartHandRequest(
        variant=pb.VARIANT_SEVEN_CARD_STUD, table=pb.Table(ante=5, bring_in=10, small_bet=20,
        big_bet=40), players=[pb.Player(id="a", stack=500), pb.Player(id="b", stack=500)],
        button=0)).hand  # fmt: skip
    with pytest.raises(ApiError) as caught:
        handlers.act(pb.ActRequest(state=update.state, seat=update.to_act ^ 1,
                                   action=pb.ACTION_TYPE_FOLD))  # fmt: skip
    status = to_status(caught.value)
    assert status.code is grpc.StatusCode.FAILED_PRECONDITION

    rich = status_as_received(status)
    assert rich == rich_status(caught.value)
    info = error_info(rich)
    assert info is not None and info.reason == "OUT_OF_TURN" and info.domain == "stud.v1"
    assert info.metadata["to_act"] == str(update.to_act)


def test_many_violations_are_capped_and_counted() -> None:
    many = [Violation(f"hands[{i}].cards", "bad") for i in range(MAX_VIOLATIONS + 5)]
    error = invalid(many)
    assert len(error.violations) == MAX_VIOLATIONS
    assert error.message.endswith("; and 5 more")
    assert len(to_status(error).trailing_metadata[0][1]) < 8192


def test_every_typed_refusal_of_the_engine_has_its_reason() -> None:
    """The engine's refusal decides the reason, whatever its message says."""
    assert set(REFUSAL_REASONS) == set(EngineRefusal)
    expected = {
        EngineRefusal.HAND_OVER: Reason.HAND_OVER,
        EngineRefusal.OUT_OF_TURN: Reason.OUT_OF_TURN,
        EngineRefusal.NOT_LEGAL_NOW: Reason.ILLEGAL_ACTION,
        EngineRefusal.BAD_AMOUNT: Reason.ILLEGAL_ACTION,
    }
    legal = (LegalAction(ActionType.FOLD), LegalAction(ActionType.CALL, 20))
    for refusal, reason in expected.items():
        error = illegal_action(IllegalAction(refusal, "seat 3 is not to act", legal, 1), 7)
        assert error.reason is reason and error.metadata["seq"] == "7"
        if reason is not Reason.HAND_OVER:
            assert error.metadata["legal"] == "FOLD,CALL:20"
            assert error.metadata["to_act"] == "1"


def test_the_expensive_call_bound_refuses_with_server_busy() -> None:
    """A worker at its expensive-call bound refuses RESOURCE_EXHAUSTED with ErrorInfo
    SERVER_BUSY (the limit and the method in its metadata) and RetryInfo, counted as
    overloaded; work stopped for a caller who left is counted as cancelled."""
    error = overloaded("Equity", 32)
    got = outcome_of(error.code.name, rich_status(error))
    assert (got.code, got.reason, got.domain) == ("RESOURCE_EXHAUSTED", "SERVER_BUSY", "stud.v1")
    assert got.metadata == {"limit": "32", "method": "Equity"} and not got.violations
    assert got.retry_delay == 1.0 and error.metric_label == "overloaded"
    stopped = work_cancelled("stopped after 1000 of 2000000 deals", "Equity")
    assert stopped.code is grpc.StatusCode.CANCELLED and stopped.metric_label == "cancelled"
    assert stopped.reason is Reason.CALL_CANCELLED
