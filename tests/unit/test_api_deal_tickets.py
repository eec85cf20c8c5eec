"""Verifiable deals through the handlers (issue 32): CreateDealTicket, StartHand with the
ticket and the players' contributions, the commitment shown from the first update, the
seed and contributions revealed at the end, and the refusals (expired on a clock of the
test's own; the others are in support.refusals, played on both ports too)."""

from __future__ import annotations

import hashlib

import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api.errors import ApiError, Reason
from studengine.api.handlers import Handlers
from studengine.cards import format_card
from studengine.deal import deal_deck
from studengine.state.codec import DealEntropy, HandRecord, decode
from studengine.state.encoding import encode
from studengine.state.sealing import KeyRing
from studengine.state.tickets import open_ticket
from support.api_helpers import new_key
from support.refusals import CONTRIBUTIONS, start_request, ticket_request, ticketed_start

NOW_MS = 1_800_000_000_000


class Clock:
    def __init__(self) -> None:
        self.ms = NOW_MS

    def __call__(self) -> int:
        return self.ms


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def handlers(clock: Clock) -> Handlers:
    return Handlers(KeyRing([new_key("k1")]), allow_test_decks=False, clock_ms=clock)


def play_out(handlers: Handlers, update: pb.HandUpdate) -> pb.HandUpdate:
    """Everyone folds to the bring-in's completion: the hand's end."""
    while not update.over:
        legal = {a.type for a in update.legal_actions}
        action = (
            pb.ACTION_TYPE_COMPLETE if pb.ACTION_TYPE_COMPLETE in legal else pb.ACTION_TYPE_FOLD
        )
        request = pb.ActRequest(state=update.state, seat=update.to_act, action=action)
        update = handlers.act(request).hand
    return update


def test_a_ticket_deals_the_documented_function_of_seed_and_contributions(
    handlers: Handlers,
) -> None:
    ticket = handlers.create_deal_ticket(ticket_request()).ticket
    assert len(ticket.hand_id) == 32 and len(ticket.commitment) == 64
    assert ticket.expires_at_ms == NOW_MS + 5 * 60 * 1000
    update = handlers.start_hand(ticketed_start(ticket)).hand
    assert update.hand_id == ticket.hand_id
    assert update.deal_commitment == ticket.commitment  # shown from the first update
    view = handlers.get_view(pb.GetViewRequest(state=update.state, seat=0))
    assert view.deal_commitment == ticket.commitment
    assert not update.HasField("reveal")
    end = play_out(handlers, update)
    assert end.deal_commitment == ticket.commitment
    seed = bytes.fromhex(end.reveal.server_seed)
    assert hashlib.sha256(seed).hexdigest() == ticket.commitment
    assert end.reveal.contributions == [c.hex() for c in CONTRIBUTIONS]
    deck = deal_deck(seed, bytes.fromhex(ticket.hand_id), CONTRIBUTIONS)
    assert list(end.reveal.deck) == [format_card(c) for c in deck]


def test_the_same_ticket_twice_shows_the_same_hand_and_commitment(handlers: Handlers) -> None:
    ticket = handlers.create_deal_ticket(ticket_request()).ticket
    first = handlers.start_hand(ticketed_start(ticket)).hand
    again = handlers.start_hand(ticketed_start(ticket)).hand
    assert (first.hand_id, first.deal_commitment) == (again.hand_id, again.deal_commitment)


def test_each_ticket_is_a_fresh_seed_and_hand(handlers: Handlers) -> None:
    one = handlers.create_deal_ticket(ticket_request()).ticket
    two = handlers.create_deal_ticket(ticket_request()).ticket
    assert one.hand_id != two.hand_id and one.commitment != two.commitment


def test_a_hand_without_a_ticket_deals_as_before(handlers: Handlers) -> None:
    update = handlers.start_hand(start_request(test_deck=[])).hand
    assert update.deal_commitment == ""
    end = play_out(handlers, update)
    assert end.reveal.server_seed == "" and not end.reveal.contributions
    assert len(end.reveal.deck) == 52


def refusal(handlers: Handlers, request: pb.StartHandRequest) -> ApiError:
    with pytest.raises(ApiError) as refused:
        handlers.start_hand(request)
    return refused.value


def test_an_expired_ticket_is_refused_from_its_expiry_on(handlers: Handlers, clock: Clock) -> None:
    ticket = handlers.create_deal_ticket(ticket_request()).ticket
    clock.ms = ticket.expires_at_ms - 1
    handlers.start_hand(ticketed_start(ticket))  # still good
    clock.ms = ticket.expires_at_ms
    error = refusal(handlers, ticketed_start(ticket))
    assert error.reason is Reason.DEAL_TICKET_EXPIRED
    assert error.code.name == "FAILED_PRECONDITION"
    assert error.metadata == {"expires_at_ms": str(ticket.expires_at_ms)}


def test_the_ticket_lifetime_is_the_servers_setting(clock: Clock) -> None:
    handlers = Handlers(KeyRing([new_key("k1")]), False, deal_ticket_seconds=30, clock_ms=clock)
    ticket = handlers.create_deal_ticket(ticket_request()).ticket
    assert ticket.expires_at_ms == NOW_MS + 30_000


@pytest.mark.parametrize(
    "changes",
    [
        {"button": 0},
        {"variant": pb.VARIANT_RAZZ},
        {"table": pb.Table(ante=5, bring_in=10, small_bet=20, big_bet=40, max_bets=5)},
        {"players": [pb.Player(id=f"player-{i}", stack=400 + i) for i in range(3)]},
        {"players": [pb.Player(id=f"player-{i}", stack=500) for i in (1, 0, 2)]},
    ],
    ids=["button", "variant", "table", "stacks", "seat order"],
)
def test_a_ticket_for_other_settings_is_refused(
    handlers: Handlers, changes: dict[str, object]
) -> None:
    ticket = handlers.create_deal_ticket(ticket_request()).ticket
    error = refusal(handlers, ticketed_start(ticket, **changes))
    assert error.reason is Reason.DEAL_TICKET_MISMATCH
    assert [v.field for v in error.violations] == ["deal_ticket"]


def test_the_table_is_bound_with_its_defaults_filled_in(handlers: Handlers) -> None:
    """max_bets left out and max_bets=4 (its default) are the same table."""
    ticket = handlers.create_deal_ticket(ticket_request()).ticket
    table = pb.Table(ante=5, bring_in=10, small_bet=20, big_bet=40, max_bets=4)
    handlers.start_hand(ticketed_start(ticket, table=table))


def test_tickets_and_states_never_open_as_each_other(handlers: Handlers) -> None:
    ticket = handlers.create_deal_ticket(ticket_request()).ticket
    with pytest.raises(ApiError) as refused:
        handlers.get_view(pb.GetViewRequest(state=ticket.sealed))
    assert refused.value.reason is Reason.STATE_INVALID
    state = handlers.start_hand(ticketed_start(ticket)).hand.state
    error = refusal(
        handlers, start_request(test_deck=[], deal_ticket=state, contributions=CONTRIBUTIONS)
    )
    assert error.reason is Reason.DEAL_TICKET_INVALID


def test_a_ticket_of_another_key_ring_or_altered_does_not_open(handlers: Handlers) -> None:
    other = Handlers(KeyRing([new_key("k1")]), allow_test_decks=False)
    foreign = other.create_deal_ticket(ticket_request()).ticket
    assert refusal(handlers, ticketed_start(foreign)).reason is Reason.DEAL_TICKET_INVALID
    ticket = handlers.create_deal_ticket(ticket_request()).ticket
    altered = bytearray(ticket.sealed)
    altered[-1] ^= 1
    request = start_request(test_deck=[], deal_ticket=bytes(altered), contributions=CONTRIBUTIONS)
    assert refusal(handlers, request).reason is Reason.DEAL_TICKET_INVALID


def test_a_ticket_opens_under_a_rotated_key_ring() -> None:
    old = new_key("k1")
    ticket = Handlers(KeyRing([old]), False).create_deal_ticket(ticket_request()).ticket
    rotated = KeyRing([new_key("k2"), old])
    assert open_ticket(rotated, ticket.sealed).hand_id.hex() == ticket.hand_id


def test_the_sealed_state_keeps_the_deal_and_an_older_state_opens_without() -> None:
    handlers = Handlers(KeyRing([new_key("k1")]), allow_test_decks=True)
    plain = handlers.start_hand(start_request()).hand
    record: HandRecord = handlers.sealer.open(plain.state)
    assert record.deal is None  # a state without the field, as every state before
    entropy = DealEntropy(bytes(range(32)), tuple(CONTRIBUTIONS))
    record.deal = entropy
    assert decode(encode(record)).deal == entropy
    record.deal = DealEntropy(bytes(range(32)), tuple(CONTRIBUTIONS[:2]))  # 3 seats
    with pytest.raises(ValueError, match="deal: 2 contributions, 3 seats"):
        decode(encode(record))
