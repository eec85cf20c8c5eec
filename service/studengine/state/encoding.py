"""The engine's Hand -> the internal state's bytes (``stud.internal.v1.HandState``), the
reverse of ``codec.decode``: every field of ``studengine.rules.hand.Hand`` put in the
state's records, which the generated writer (``state_fields.write``) writes exactly as
protobuf's ``SerializeToString(deterministic=True)`` writes the message of the same fields
(the tests hold them to it). The variant and table are made once per distinct game; the
action log is packed (``pack_moves``; ``codec.unpack_moves`` reads it back)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from studengine.rules.hand import Hand
from studengine.rules.types import HandResult, Move, Table, Variant, action_index
from studengine.state._gen.stud.internal.v1 import state_fields as fields
from studengine.state._gen.stud.internal.v1 import state_pb2
from studengine.state._gen.stud.internal.v1.state_fields import (
    EngineHandFields,
    EnginePotFields,
    EngineResultFields,
    EngineShownHandFields,
    EngineTableFields,
    EngineUncalledFields,
    HandStateFields,
)
from studengine.state.bounded import GameFields
from studengine.state.codec import (
    FORMAT_VERSION,
    ODD_CHIP_CODES,
    VARIANT_CODES,
    HandRecord,
    deal_bytes,
)
from studengine.state.messages import table_to_message
from studengine.state.wire import BytesWriter, append_varint, byte_string


def encode(state: HandRecord) -> bytes:
    """The state's bytes: exactly ``HandState.SerializeToString(deterministic=True)`` of
    the message with the same fields."""
    record = HandStateFields()
    record.format_version = FORMAT_VERSION
    record.hand_id = state.hand_id
    record.seq = state.seq
    record.test_deck = state.test_deck
    record.salt = state.salt
    record.player_ids = state.player_ids
    record.hand = hand_fields(state.hand, state.deck_bytes)
    record.deck_commitment = state.deck_commitment
    record.deal = None if state.deal is None else deal_bytes(state.deal)
    return fields.write(record)


def hand_fields(hand: Hand, deck: bytes) -> EngineHandFields:
    """EngineHand's record of ``hand`` (its lists are the hand's own: written, not kept),
    its deck's bytes given (the record keeps them: the deck never changes in a hand)."""
    betting = hand.round  # the round's state; its table and bet size follow from the hand's
    h = EngineHandFields()
    h.variant, h.table = _GAMES.get(hand.variant, hand.table)
    h.button = hand.button
    h.starting_stacks = hand.starting_stacks
    h.deck = deck
    h.dealt = hand.dealt
    h.stacks = hand.stacks
    h.committed = hand.committed
    h.round_bets = betting.bets
    h.cards = [byte_string(held) for held in hand.cards]  # one per seat, even one empty
    h.community = hand.community
    h.folded = hand.folded
    h.acted = betting.acted
    h.street = hand.street
    h.to_act = hand.to_act
    h.level = betting.level
    h.full_level = betting.full_level
    h.bets = betting.full_bets
    h.uncapped = betting.uncapped
    h.open_pair = betting.open_pair
    h.big_made = betting.big_made
    h.bring_in_due = betting.bring_in_due
    h.opener_may_fold = betting.opener_may_fold
    h.first_actor = betting.first_actor
    h.last_aggressor = betting.last_aggressor
    h.round_held = betting.held
    h.over = hand.over
    h.result = None if hand.result is None else _result_fields(hand.result)
    moves = hand.moves  # the packed moves it was decoded with as they came, then the others
    h.moves = moves.stored + pack_moves(moves.after) if moves.after else moves.stored
    h.tabled = hand.tabled
    return h


def _result_fields(r: HandResult) -> EngineResultFields:
    """EngineResult's record (a hand has one only at its end)."""
    result = EngineResultFields()
    for pot in r.pots:
        p = EnginePotFields()
        p.amount, p.eligible, p.winners = pot.amount, list(pot.eligible), list(pot.winners)
        p.shares, p.low_winners = list(pot.shares), list(pot.low_winners)
        p.low_shares, p.rake = list(pot.low_shares), pot.rake
        result.pots.append(p)
    result.stacks = list(r.stacks)
    for shown in r.shown:
        s = EngineShownHandFields()
        s.seat, s.cards, s.best_five = shown.seat, bytes(shown.cards), bytes(shown.best_five)
        s.rank, s.description, s.low = shown.rank, shown.description, shown.low
        s.low_best_five, s.low_description = bytes(shown.low_best_five), shown.low_description
        result.shown.append(s)
    for seat, amount in r.uncalled:
        u = EngineUncalledFields()
        u.seat, u.amount = seat, amount
        result.uncalled.append(u)
    result.rake = r.rake
    return result


def pack_moves(moves: Iterable[Move]) -> bytes:
    """The action log, compact: per action one byte (seat << 4 | kind << 1 | timeout),
    then the round total as a varint for a sized action (not FOLD or CHECK)."""
    out = BytesWriter()
    for move in moves:
        to = move.to
        out.append(move.seat << 4 | action_index(move.type) << 1 | move.timeout)
        if to is not None:
            append_varint(out, to)
    return out.getvalue()


def _game(variant: Variant, table: Table) -> tuple[int, EngineTableFields]:
    """EngineHand's variant code and table record (its ``wire``: its serialization)."""
    message = table_to_message(table, state_pb2.EngineTable(), ODD_CHIP_CODES)
    return VARIANT_CODES[variant], fields.parse_engine_table(message)


_GAMES: Final = GameFields(_game)  # a few distinct ones serve many calls


def game_bytes(variant: Variant, table: Table) -> bytes:
    """EngineHand's variant and table fields, serialized (``tickets`` digests them)."""
    h = EngineHandFields()
    h.variant, h.table = _GAMES.get(variant, table)
    out = BytesWriter()
    fields.write_engine_hand(out, h)
    return out.getvalue()
