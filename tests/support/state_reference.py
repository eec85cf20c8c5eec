"""The state's encoding as it was built before issue 22's hand-assembled bytes: a
``HandState`` message set field by field through protobuf, and the action log packed into
a bytearray with each kind's code found by ``ACTION_KINDS.index``. The tests hold
``state.encoding`` to exactly these bytes."""

from __future__ import annotations

from collections.abc import Sequence

from studengine.rules.hand import Hand
from studengine.rules.types import HandResult, Move, Table
from studengine.state._gen.stud.internal.v1 import state_pb2
from studengine.state.codec import (
    ACTION_KINDS,
    FORMAT_VERSION,
    ODD_CHIP_CODES,
    VARIANT_CODES,
    HandRecord,
)
from studengine.state.messages import field_values, table_to_message


def put_varint(out: bytearray, value: int) -> None:
    """Append ``value`` (0 or more) as a base-128 varint, the plain way: the tests' own,
    beside the service's writers."""
    if value < 0:
        raise ValueError(f"a negative varint: {value}")
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)


def varint(value: int) -> bytes:
    """``value`` (0 or more) as a varint (``put_varint``)."""
    out = bytearray()
    put_varint(out, value)
    return bytes(out)


def read_varint(raw: bytes, at: int) -> tuple[int, int]:
    """The varint at ``raw[at]`` and the index after it, the plain way (not cut to 64
    bits); ValueError when it is truncated or longer than ten bytes."""
    value = shift = 0
    while True:
        if at >= len(raw) or shift > 63:
            raise ValueError("a truncated varint")
        value |= (raw[at] & 0x7F) << shift
        at += 1
        if raw[at - 1] < 0x80:
            return value, at
        shift += 7


def reference_state(record: HandRecord) -> state_pb2.HandState:
    msg = state_pb2.HandState(
        format_version=FORMAT_VERSION,
        hand_id=record.hand_id,
        seq=record.seq,
        test_deck=record.test_deck,
        salt=record.salt,
        player_ids=record.player_ids,
        hand=reference_hand(record.hand),
        deck_commitment=record.deck_commitment,
    )
    if record.deal is not None:
        msg.deal.server_seed = record.deal.server_seed
        msg.deal.contributions.extend(record.deal.contributions)
    return msg


def reference_hand(hand: Hand) -> state_pb2.EngineHand:
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
    """EngineHand's fields after the variant and the table (field numbers 3 and up)."""
    msg = state_pb2.EngineHand()
    msg.button = hand.button
    msg.starting_stacks.extend(hand.starting_stacks)
    msg.deck = bytes(hand.deck)
    msg.dealt = hand.dealt
    msg.stacks.extend(hand.stacks)
    msg.committed.extend(hand.committed)
    betting = hand.round
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
        msg.moves = reference_pack_moves(hand.moves)
    if hand.tabled:
        msg.tabled.extend(hand.tabled)
    return msg


def _fill_result(msg: state_pb2.EngineResult, r: HandResult) -> None:
    """The result's message as the encoder set it before its bytes were assembled."""
    for p in r.pots:
        msg.pots.add(**field_values(p))
    msg.stacks.extend(r.stacks)
    for s in r.shown:
        msg.shown.add(**field_values(s, bytes))
    for seat, amount in r.uncalled:
        msg.uncalled.add(seat=seat, amount=amount)
    msg.rake = r.rake


def reference_pack_moves(moves: Sequence[Move]) -> bytes:
    """pack_moves as it was: into a bytearray, each total a varint."""
    out = bytearray()
    for move in moves:
        out.append(move.seat << 4 | ACTION_KINDS.index(move.type) << 1 | move.timeout)
        if move.to is not None:
            put_varint(out, move.to)
    return bytes(out)
