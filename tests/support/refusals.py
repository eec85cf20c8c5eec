"""Every refusal path of the API as data, to play through any transport (the handlers, a
gRPC stub, the Connect port) and compare what comes back: status code, message, ErrorInfo
(reason, domain, metadata) and BadRequest field violations.

A case's ``make`` gets a ``Caller`` (method name, request -> response) to set up what it
needs (a hand dealt from a fixed deck on a server that allows test decks) and returns the
call to refuse.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api.errors import CODES, RETRY_DELAYS, Reason

Caller = Callable[[str, Message], Any]

# 7s-rejected-actions: seat 1 brings in (3c), seat 2 then seat 0
SEVEN_DECK = ["Ac", "3c", "9s", "Kd", "3d", "9d", "Qh", "2d", "7c"]
LEGAL_AT_START = "BRING_IN:10,COMPLETE:20"


@dataclass(frozen=True)
class Outcome:
    """A refusal as a client sees it, whatever the transport."""

    code: str  # the gRPC status code name, e.g. "FAILED_PRECONDITION"
    message: str
    reason: str
    domain: str
    metadata: dict[str, str]
    violations: list[tuple[str, str, str]]  # field, description, reason
    retry_delay: float | None = None  # RetryInfo's, in seconds (None: no RetryInfo)
    infos: int = 1  # how many ErrorInfo details came

    def check_contract(self) -> None:
        """What every refusal of either port keeps (errors.proto): one ErrorInfo in domain
        stud.v1 whose reason has this status code and no other; RetryInfo exactly when
        the reason is worth retrying."""
        assert self.infos == 1 and self.domain == "stud.v1", self
        reason = Reason(self.reason)
        assert self.code == CODES[reason].name, self
        assert self.retry_delay == RETRY_DELAYS.get(reason), self
        assert self.message, self


def outcome_of(code: str, status: status_pb2.Status) -> Outcome:
    """An ``Outcome`` from the code name and the rich status (``google.rpc.Status``)."""
    info = error_details_pb2.ErrorInfo()
    violations: list[tuple[str, str, str]] = []
    retry_delay, infos = None, 0
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            detail.Unpack(info)
            infos += 1
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            violations += [(v.field, v.description, v.reason) for v in bad.field_violations]
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
            retry_delay = retry.retry_delay.ToTimedelta().total_seconds()
    metadata = dict(info.metadata)
    return Outcome(code, status.message, info.reason, info.domain, metadata, violations,
                   retry_delay, infos)  # fmt: skip


@dataclass(frozen=True)
class Refusal:
    name: str
    make: Callable[[Caller], tuple[str, Message]]
    code: str
    reason: str
    metadata: dict[str, str] = field(default_factory=dict)  # "*": any value, present
    fields: tuple[str, ...] = ()  # the BadRequest fields, in order
    test_decks: bool = True  # played on a server that allows test decks

    def check(self, got: Outcome) -> None:
        got.check_contract()
        assert got.code == self.code, (self.name, got)
        assert got.reason == self.reason, (self.name, got)
        assert got.domain == "stud.v1", (self.name, got)
        assert set(got.metadata) == set(self.metadata), (self.name, got)
        for key, value in self.metadata.items():
            assert value in ("*", got.metadata[key]), (self.name, key, got)
        assert tuple(f for f, _, _ in got.violations) == self.fields, (self.name, got)
        assert got.message, self.name


def start_request(**changes: Any) -> pb.StartHandRequest:
    request = pb.StartHandRequest(
        variant=pb.VARIANT_SEVEN_CARD_STUD,
        table=pb.Table(ante=5, bring_in=10, small_bet=20, big_bet=40),
        players=[pb.Player(id=f"player-{i}", stack=500) for i in range(3)],
        button=2,
        test_deck=SEVEN_DECK,
    )
    for name, value in changes.items():
        if isinstance(value, list):
            request.ClearField(name)
            getattr(request, name).extend(value)
        elif isinstance(value, pb.Table):
            request.table.CopyFrom(value)
        else:
            setattr(request, name, value)
    return request


def _dealt(call: Caller) -> pb.HandUpdate:
    update: pb.HandUpdate = call("StartHand", start_request()).hand
    return update


def _over(call: Caller) -> pb.HandUpdate:
    update = _dealt(call)
    for seat, action in ((1, pb.ACTION_TYPE_COMPLETE), (2, pb.ACTION_TYPE_FOLD),
                         (0, pb.ACTION_TYPE_FOLD)):  # fmt: skip
        update = call("Act", pb.ActRequest(state=update.state, seat=seat, action=action)).hand
    assert update.over
    return update


def _act(**kw: Any) -> Callable[[Caller], tuple[str, Message]]:
    def make(call: Caller) -> tuple[str, Message]:
        return "Act", pb.ActRequest(state=_dealt(call).state, **kw)

    return make


def _start(**changes: Any) -> Callable[[Caller], tuple[str, Message]]:
    return lambda _call: ("StartHand", start_request(**changes))


def _just(method: str, request: Message) -> Callable[[Caller], tuple[str, Message]]:
    return lambda _call: (method, request)


def _after_the_end(call: Caller) -> tuple[str, Message]:
    state = _over(call).state
    return "Act", pb.ActRequest(state=state, seat=0, action=pb.ACTION_TYPE_CHECK)


def _history_in_play(call: Caller) -> tuple[str, Message]:
    return "GetHandHistory", pb.GetHandHistoryRequest(state=_dealt(call).state)


def _view_bad_seat(call: Caller) -> tuple[str, Message]:
    return "GetView", pb.GetViewRequest(state=_dealt(call).state, seat=5)


CONTRIBUTIONS = [bytes([seat]) * 16 for seat in range(3)]  # one per player of start_request


def ticket_request(**changes: Any) -> pb.CreateDealTicketRequest:
    """A deal ticket's request for ``start_request``'s settings, ``changes`` made."""
    start = start_request(test_deck=[], **changes)
    return pb.CreateDealTicketRequest(
        variant=start.variant, table=start.table, players=start.players, button=start.button
    )


def ticketed_start(ticket: pb.DealTicket, **changes: Any) -> pb.StartHandRequest:
    """``start_request`` with ``ticket`` and the contributions, no test deck."""
    changes = {"contributions": CONTRIBUTIONS, **changes}
    return start_request(test_deck=[], deal_ticket=ticket.sealed, **changes)


def _ticket_for_others(call: Caller) -> tuple[str, Message]:
    others = [pb.Player(id=f"other-{i}", stack=500) for i in range(3)]
    ticket = call("CreateDealTicket", ticket_request(players=others)).ticket
    return "StartHand", ticketed_start(ticket)


def _state_as_ticket(call: Caller) -> tuple[str, Message]:
    state = _dealt(call).state
    return "StartHand", start_request(test_deck=[], deal_ticket=state, contributions=CONTRIBUTIONS)


def _bad_contributions(call: Caller) -> tuple[str, Message]:
    ticket = call("CreateDealTicket", ticket_request()).ticket
    return "StartHand", ticketed_start(ticket, contributions=[bytes(16), bytes(8)])


BAD_TABLE = pb.Table(ante=-1, bring_in=30, small_bet=20, big_bet=10, odd_chip=9)
FIVE_CARDS = ["Ac", "Kd", "Qh", "Js", "Tc"]
SEAT = {"seq": "0", "to_act": "1", "legal": LEGAL_AT_START}

REFUSALS = [
    Refusal("start: variant missing", _start(variant=0), "INVALID_ARGUMENT", "INVALID_REQUEST",
            fields=("variant",)),
    Refusal(
        "start: every bad field at once",
        _start(variant=0, table=BAD_TABLE, button=7,
               players=[pb.Player(id="a", stack=0), pb.Player(id="a", stack=5)]),
        "INVALID_ARGUMENT", "INVALID_REQUEST",
        fields=("variant", "table.odd_chip", "table.ante", "table.big_bet", "table.bring_in",
                "players[1].id", "players[0].stack", "button"),
    ),
    Refusal(
        "start: the engine's field checks, all of them",
        _start(table=BAD_TABLE, button=7, players=[pb.Player(id="a", stack=0)]),
        "INVALID_ARGUMENT", "INVALID_REQUEST",
        fields=("table.odd_chip", "table.ante", "table.big_bet", "table.bring_in", "players",
                "players[0].stack", "button"),
    ),
    Refusal("start: a stack over the limit",
            _start(players=[pb.Player(id="a", stack=10**16), pb.Player(id="b", stack=5)],
                   button=0),
            "INVALID_ARGUMENT", "LIMIT_EXCEEDED", fields=("players[0].stack",)),
    Refusal("start: a limit and a bad field", _start(variant=0, table=pb.Table(
                ante=1, bring_in=10, small_bet=20, big_bet=40, max_bets=5000)),
            "INVALID_ARGUMENT", "LIMIT_EXCEEDED", fields=("variant", "table.max_bets")),
    Refusal("start: bad test deck cards", _start(test_deck=["Ac", "1x", "Zz"]),
            "INVALID_ARGUMENT", "INVALID_REQUEST", fields=("test_deck[1]", "test_deck[2]")),
    Refusal("start: a card twice in the test deck", _start(test_deck=["Ac", "Ac"]),
            "INVALID_ARGUMENT", "INVALID_REQUEST", fields=("test_deck[1]",)),
    Refusal("start: test deck refused", _start(), "INVALID_ARGUMENT", "TEST_DECK_REFUSED",
            fields=("test_deck",), test_decks=False),
    Refusal("act: out of turn", _act(seat=0, action=pb.ACTION_TYPE_CALL),
            "FAILED_PRECONDITION", "OUT_OF_TURN", metadata=SEAT),
    Refusal("act: timeout out of turn", _act(seat=2, action=pb.ACTION_TYPE_TIMEOUT),
            "FAILED_PRECONDITION", "OUT_OF_TURN", metadata=SEAT),
    Refusal("act: not a legal move now", _act(seat=1, action=pb.ACTION_TYPE_CHECK),
            "FAILED_PRECONDITION", "ILLEGAL_ACTION", metadata=SEAT),
    Refusal("act: a legal move at a wrong amount",
            _act(seat=1, action=pb.ACTION_TYPE_COMPLETE, to=30),
            "FAILED_PRECONDITION", "ILLEGAL_ACTION", metadata=SEAT),
    Refusal("act: the hand is over", _after_the_end, "FAILED_PRECONDITION", "HAND_OVER",
            metadata={"seq": "3"}),
    Refusal("act: stale expected_seq",
            _act(seat=1, action=pb.ACTION_TYPE_BRING_IN, expected_seq=4),
            "ABORTED", "STALE_SEQ", metadata={"seq": "0", "expected_seq": "4"}),
    Refusal("act: bad seat and action", _act(seat=9, action=99), "INVALID_ARGUMENT",
            "INVALID_REQUEST", fields=("action", "seat")),
    Refusal("act: a state that does not open",
            _just("Act", pb.ActRequest(state=b"forged", seat=0, action=pb.ACTION_TYPE_FOLD)),
            "INVALID_ARGUMENT", "STATE_INVALID", fields=("state",)),
    Refusal("act: a bad action and a state that does not open",
            _just("Act", pb.ActRequest(state=b"forged", seat=0, action=99)),
            "INVALID_ARGUMENT", "STATE_INVALID", fields=("action", "state")),
    Refusal("view: a state that does not open", _just("GetView", pb.GetViewRequest(state=b"")),
            "INVALID_ARGUMENT", "STATE_INVALID", fields=("state",)),
    Refusal("view: bad seat", _view_bad_seat, "INVALID_ARGUMENT", "INVALID_REQUEST",
            fields=("seat",)),
    Refusal("evaluate: bad hands, all of them", _just("Evaluate", pb.EvaluateRequest(hands=[
                pb.CardSet(cards=["Ac"]), pb.CardSet(cards=FIVE_CARDS),
                pb.CardSet(cards=["Ac", "Ac", "Kd", "Qh", "Js"]),
                pb.CardSet(cards=["Ac", "Kd", "Qh", "Js", "xx"])])),
            "INVALID_ARGUMENT", "INVALID_REQUEST",
            fields=("hands[0].cards", "hands[2].cards", "hands[3].cards[4]")),
    Refusal("evaluate: too many hands", _just("Evaluate", pb.EvaluateRequest(
                hands=[pb.CardSet(cards=FIVE_CARDS)] * 10_001)),
            "INVALID_ARGUMENT", "LIMIT_EXCEEDED", fields=("hands",)),
    Refusal("equity: bad fields", _just("Equity", pb.EquityRequest(
                variant=pb.VARIANT_SEVEN_CARD_STUD, method=9,
                players=[pb.EquityPlayer(up_cards=["Ac", "zz"])])),
            "INVALID_ARGUMENT", "INVALID_REQUEST",
            fields=("players", "players[0].up_cards[1]", "method")),
    Refusal("equity: too many samples", _just("Equity", pb.EquityRequest(
                variant=pb.VARIANT_SEVEN_CARD_STUD, samples=10**9,
                players=[pb.EquityPlayer(up_cards=["Ac"]), pb.EquityPlayer(up_cards=["Kd"])])),
            "INVALID_ARGUMENT", "LIMIT_EXCEEDED", fields=("samples",)),
    Refusal("history: the hand is not over", _history_in_play, "FAILED_PRECONDITION",
            "HAND_NOT_OVER", {"seq": "*"}),
    Refusal("history: a state that does not open", _just("GetHandHistory",
                pb.GetHandHistoryRequest(state=b"forged")),
            "INVALID_ARGUMENT", "STATE_INVALID", fields=("state",)),
    Refusal("start: a deal ticket that does not open", _start(
                test_deck=[], deal_ticket=b"forged", contributions=CONTRIBUTIONS),
            "INVALID_ARGUMENT", "DEAL_TICKET_INVALID", fields=("deal_ticket",)),
    Refusal("start: a hand's state as a deal ticket", _state_as_ticket,
            "INVALID_ARGUMENT", "DEAL_TICKET_INVALID", fields=("deal_ticket",)),
    Refusal("start: a deal ticket made for other players", _ticket_for_others,
            "INVALID_ARGUMENT", "DEAL_TICKET_MISMATCH", fields=("deal_ticket",)),
    Refusal("start: contributions without a deal ticket", _start(contributions=CONTRIBUTIONS),
            "INVALID_ARGUMENT", "CONTRIBUTIONS_INVALID", fields=("contributions",)),
    Refusal("start: too few contributions, one too short", _bad_contributions,
            "INVALID_ARGUMENT", "CONTRIBUTIONS_INVALID",
            fields=("contributions", "contributions[1]")),
    Refusal("ticket: bad settings", _just("CreateDealTicket", ticket_request(variant=0)),
            "INVALID_ARGUMENT", "INVALID_REQUEST", fields=("variant",)),
    Refusal("history: an unknown audience and a state that does not open", _just(
                "GetHandHistory", pb.GetHandHistoryRequest(state=b"forged", audience=7)),
            "INVALID_ARGUMENT", "STATE_INVALID", fields=("audience", "state")),
]  # fmt: skip
