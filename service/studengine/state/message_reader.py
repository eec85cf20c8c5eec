"""``state.reader``'s records made by protobuf's parser instead: the pure build's way to
read a state. Without the compiler, Python's loops over the bytes cost more than
protobuf's C parser and its field reads; ``codec.decode`` picks by the build, and the
tests hold both ways to protobuf's parser (``tests/support/state_decode_reference.py``)."""

from __future__ import annotations

from google.protobuf.message import DecodeError

from studengine.state._gen.stud.internal.v1 import state_pb2
from studengine.state.checks import StateInvalid
from studengine.state.messages import TABLE_FIELDS
from studengine.state.reader import (
    MALFORMED,
    HandFields,
    PotFields,
    ResultFields,
    ShownFields,
    StateFields,
    TableFields,
    UncalledFields,
)


def parse_state(data: bytes) -> StateFields:
    """``read_state``'s records, by protobuf's parser."""
    msg = state_pb2.HandState()
    try:
        msg.ParseFromString(data)
    except (DecodeError, RuntimeWarning, ValueError) as error:
        raise StateInvalid(MALFORMED) from error
    state = StateFields()
    state.format_version, state.hand_id, state.seq = msg.format_version, msg.hand_id, msg.seq
    state.test_deck, state.salt = msg.test_deck, msg.salt
    state.player_ids = msg.player_ids[:]
    state.hand = _hand_of(msg.hand) if msg.HasField("hand") else None
    state.deck_commitment = msg.deck_commitment
    state.deal = msg.deal.SerializeToString(deterministic=True) if msg.HasField("deal") else b""
    return state


def _hand_of(m: state_pb2.EngineHand) -> HandFields:
    h = HandFields()
    h.variant, h.button, h.deck, h.dealt, h.street = m.variant, m.button, m.deck, m.dealt, m.street
    h.table = _table_of(m.table) if m.HasField("table") else None
    h.starting_stacks, h.stacks, h.committed = m.starting_stacks[:], m.stacks[:], m.committed[:]
    h.round_bets, h.cards, h.folded, h.acted = m.round_bets[:], m.cards[:], m.folded[:], m.acted[:]
    h.community = m.community if m.HasField("community") else None
    h.to_act = m.to_act if m.HasField("to_act") else None
    h.level, h.full_level, h.bets, h.uncapped = m.level, m.full_level, m.bets, m.uncapped
    h.open_pair, h.big_made, h.bring_in_due = m.open_pair, m.big_made, m.bring_in_due
    h.opener_may_fold, h.round_held, h.over = m.opener_may_fold, m.round_held, m.over
    h.first_actor = m.first_actor if m.HasField("first_actor") else None
    h.last_aggressor = m.last_aggressor if m.HasField("last_aggressor") else None
    h.result = _result_of(m.result) if m.HasField("result") else None
    h.moves, h.tabled = m.moves, m.tabled[:]
    return h


def _table_of(m: state_pb2.EngineTable) -> TableFields:
    t = TableFields()
    t.wire = m.SerializeToString(deterministic=True)
    for field in TABLE_FIELDS:  # the message's fields are named as the Table's
        setattr(t, field.name, getattr(m, field.name))
    return t


def _result_of(m: state_pb2.EngineResult) -> ResultFields:
    r = ResultFields()
    for p in m.pots:
        pot = PotFields()
        pot.amount, pot.eligible, pot.winners = p.amount, p.eligible[:], p.winners[:]
        pot.shares, pot.low_winners, pot.low_shares = p.shares[:], p.low_winners[:], p.low_shares[:]
        pot.rake = p.rake
        r.pots.append(pot)
    r.stacks = m.stacks[:]
    for s in m.shown:
        shown = ShownFields()
        shown.seat, shown.cards, shown.best_five, shown.rank = s.seat, s.cards, s.best_five, s.rank
        shown.description, shown.low, shown.low_best_five = s.description, s.low, s.low_best_five
        shown.low_description = s.low_description
        r.shown.append(shown)
    for u in m.uncalled:
        uncalled = UncalledFields()
        uncalled.seat, uncalled.amount = u.seat, u.amount
        r.uncalled.append(uncalled)
    r.rake = m.rake
    return r
