"""The engine's Hand -> the internal state's bytes (``stud.internal.v1.HandState``), the
reverse of ``codec.decode``: every field of ``studengine.rules.hand.Hand`` written, exactly.
The action log is packed (``pack_moves``; ``codec.unpack_moves`` reads it back)."""

from __future__ import annotations

from collections.abc import Sequence

from studengine.rules.hand import Hand
from studengine.rules.types import HandResult, Move, Table, Variant
from studengine.state import wire
from studengine.state._gen.stud.internal.v1 import state_pb2
from studengine.state.codec import (
    ACTION_KINDS,
    FORMAT_VERSION,
    ODD_CHIP_CODES,
    VARIANT_CODES,
    HandRecord,
)
from studengine.state.messages import field_values, table_to_message
from studengine.state.wire import length_key, varint

_MAX_GAMES = 256  # bound on the cache of distinct games (variant and table)


def encode_hand(hand: Hand) -> state_pb2.EngineHand:
    msg = state_pb2.EngineHand(variant=VARIANT_CODES[hand.variant])
    msg.table.CopyFrom(_table_pb(hand.table))
    msg.MergeFrom(_play_fields(hand))
    return msg


def _table_pb(table: Table) -> state_pb2.EngineTable:
    return table_to_message(table, state_pb2.EngineTable(), ODD_CHIP_CODES)


# the betting round's flags: (the EngineHand field, the BettingRound attribute)
_ROUND_FLAGS = (
    ("uncapped", "uncapped"),
    ("open_pair", "open_pair"),
    ("big_made", "big_made"),
    ("bring_in_due", "bring_in_due"),
    ("opener_may_fold", "opener_may_fold"),
    ("round_held", "held"),
)


def _play_fields(hand: Hand) -> state_pb2.EngineHand:
    """EngineHand's fields after the variant and the table (field numbers 3 and up).

    Set field by field, the False flags skipped: cheaper than keyword arguments."""
    msg = state_pb2.EngineHand()
    msg.button = hand.button
    msg.starting_stacks.extend(hand.starting_stacks)
    msg.deck = bytes(hand.deck)
    msg.dealt = hand.dealt
    msg.stacks.extend(hand.stacks)
    msg.committed.extend(hand.committed)
    betting = hand.round  # the round's state; its table and bet size follow from the hand's
    msg.round_bets.extend(betting.bets)
    msg.cards.extend([bytes(c) for c in hand.cards])
    msg.folded.extend(hand.folded)
    msg.acted.extend(betting.acted)
    msg.street = hand.street
    msg.level = betting.level
    msg.full_level = betting.full_level
    msg.bets = betting.full_bets
    for flag, name in _ROUND_FLAGS:
        if getattr(betting, name):
            setattr(msg, flag, True)
    if hand.over:
        msg.over = True
    if hand.community is not None:
        msg.community = hand.community
    if hand.to_act is not None:
        msg.to_act = hand.to_act
    if betting.first_actor is not None:
        msg.first_actor = betting.first_actor
    if betting.last_aggressor is not None:
        msg.last_aggressor = betting.last_aggressor
    if hand.result is not None:
        _fill_result(msg.result, hand.result)
    if hand.moves:
        msg.moves = pack_moves(hand.moves)
    if hand.tabled:
        msg.tabled.extend(hand.tabled)
    return msg


def pack_moves(moves: Sequence[Move]) -> bytes:
    """The action log, compact: per action one byte (seat << 4 | kind << 1 | timeout),
    then the round total as a varint for a sized action (not FOLD or CHECK)."""
    out: list[int] = []  # the bytes' values (a list: its append is the cheapest call)
    for move in moves:
        to = move.to
        # the kind's code found by identity (ACTION_KINDS.index): no enum hashing
        out.append(move.seat << 4 | ACTION_KINDS.index(move.type) << 1 | move.timeout)
        if to is None:
            continue
        if to < 0x80:  # most totals fit one byte: no call for them
            out.append(to)
        else:
            out += varint(to)
    return bytes(out)


def _fill_result(msg: state_pb2.EngineResult, r: HandResult) -> None:
    for p in r.pots:
        msg.pots.add(**field_values(p))
    msg.stacks.extend(r.stacks)
    for s in r.shown:
        msg.shown.add(**field_values(s, bytes))
    for seat, amount in r.uncalled:
        msg.uncalled.add(seat=seat, amount=amount)
    msg.rake = r.rake


_HAND_KEY = length_key(state_pb2.HandState.DESCRIPTOR.fields_by_name["hand"])
# by identity: hashing a Table (or an enum member) runs Python code for each of its
# fields, and a decoded hand's table is the one object ``_decode_table`` made for it
_GAME_FIELDS: dict[tuple[int, int], tuple[Table, bytes]] = {}


def _game_fields(variant: Variant, table: Table) -> bytes:
    """EngineHand's variant and table, serialized (a few distinct ones serve many calls)."""
    key = (id(variant), id(table))
    found = _GAME_FIELDS.get(key)
    if found is None or found[0] is not table:  # an id is unique while its object lives
        if len(_GAME_FIELDS) >= _MAX_GAMES:
            _GAME_FIELDS.clear()
        msg = state_pb2.EngineHand(variant=VARIANT_CODES[variant], table=_table_pb(table))
        found = _GAME_FIELDS[key] = (table, msg.SerializeToString())  # the table held: its id
    return found[1]  # stays its own


def encode(record: HandRecord) -> bytes:
    """The state's bytes: exactly ``HandState.SerializeToString(deterministic=True)``,
    assembled from serialized parts in field-number order (the game fields cached)."""
    msg = state_pb2.HandState(
        format_version=FORMAT_VERSION,
        hand_id=record.hand_id,
        seq=record.seq,
        test_deck=record.test_deck,
        salt=record.salt,
        player_ids=record.player_ids,
    )
    hand = record.hand
    body = _game_fields(hand.variant, hand.table) + _play_fields(hand).SerializeToString()
    return msg.SerializeToString() + wire.record(_HAND_KEY, body)
