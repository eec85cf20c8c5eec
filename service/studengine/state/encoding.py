"""The engine's Hand -> the internal state's bytes (``stud.internal.v1.HandState``), the
reverse of ``codec.decode``: every field of ``studengine.rules.hand.Hand`` written, exactly.

The bytes are assembled in field-number order from the wire format's pieces
(``state.wire``), as protobuf's ``SerializeToString(deterministic=True)`` writes the
message of the same fields (the tests hold them to it): no message is built on the way,
but for the variant and table (cached). The action log is packed (``pack_moves``;
``codec.unpack_moves`` reads it back)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from studengine.rules.hand import Hand
from studengine.rules.types import HandResult, Move, Table, Variant, action_index
from studengine.state._gen.stud.internal.v1 import state_keys as keys
from studengine.state._gen.stud.internal.v1 import state_pb2
from studengine.state.codec import (
    FORMAT_VERSION,
    ODD_CHIP_CODES,
    VARIANT_CODES,
    HandRecord,
    deal_bytes,
)
from studengine.state.messages import table_to_message
from studengine.state.wire import (
    BytesWriter,
    GameFields,
    append_packed,
    append_record,
    append_varint,
    close_record,
    open_record,
    varint,
)


def encode(state: HandRecord) -> bytes:
    """The state's bytes: exactly ``HandState.SerializeToString(deterministic=True)`` of
    the message with the same fields."""
    out = BytesWriter()
    out.write(_FORMAT_VERSION)
    if state.hand_id:
        append_record(out, keys.HAND_STATE_HAND_ID, state.hand_id)
    if state.seq:
        _number(out, keys.HAND_STATE_SEQ, state.seq)
    if state.test_deck:
        out.write(_TEST_DECK)
    if state.salt:
        append_record(out, keys.HAND_STATE_SALT, state.salt)
    for player_id in state.player_ids:
        append_record(out, keys.HAND_STATE_PLAYER_IDS, player_id.encode())
    append_record(out, keys.HAND_STATE_HAND, _hand_fields(state.hand))
    if state.deck_commitment:
        append_record(out, keys.HAND_STATE_DECK_COMMITMENT, state.deck_commitment)
    if state.deal is not None:
        append_record(out, keys.HAND_STATE_DEAL, deal_bytes(state.deal))
    return out.getvalue()


def _hand_fields(hand: Hand) -> bytes:
    """EngineHand's fields in field-number order, as protobuf writes them: the variant and
    the table (cached), then a plain scalar when it is not 0 (a flag when True), an
    optional one whenever it is set (0 too), a repeated field when it is not empty."""
    betting = hand.round  # the round's state; its table and bet size follow from the hand's
    out = BytesWriter()
    out.write(_GAME_FIELDS.get(hand.variant, hand.table))
    _scalar(out, keys.ENGINE_HAND_BUTTON, hand.button)
    append_packed(out, keys.ENGINE_HAND_STARTING_STACKS, hand.starting_stacks)
    _bytes(out, keys.ENGINE_HAND_DECK, hand.deck)
    _scalar(out, keys.ENGINE_HAND_DEALT, hand.dealt)
    append_packed(out, keys.ENGINE_HAND_STACKS, hand.stacks)
    append_packed(out, keys.ENGINE_HAND_COMMITTED, hand.committed)
    append_packed(out, keys.ENGINE_HAND_ROUND_BETS, betting.bets)
    for held in hand.cards:  # one bytes field per seat, even one holding no card
        # a one-byte key (field 10), a one-byte length (7 cards at most)
        out.append(keys.ENGINE_HAND_CARDS)
        out.append(len(held))
        for card in held:
            out.append(card)
    _optional(out, keys.ENGINE_HAND_COMMUNITY, hand.community)
    _flags(out, keys.ENGINE_HAND_FOLDED, hand.folded)
    _flags(out, keys.ENGINE_HAND_ACTED, betting.acted)
    _scalar(out, keys.ENGINE_HAND_STREET, hand.street)
    _optional(out, keys.ENGINE_HAND_TO_ACT, hand.to_act)
    _scalar(out, keys.ENGINE_HAND_LEVEL, betting.level)
    _scalar(out, keys.ENGINE_HAND_FULL_LEVEL, betting.full_level)
    _scalar(out, keys.ENGINE_HAND_BETS, betting.full_bets)
    _scalar(out, keys.ENGINE_HAND_UNCAPPED, betting.uncapped)
    _scalar(out, keys.ENGINE_HAND_OPEN_PAIR, betting.open_pair)
    _scalar(out, keys.ENGINE_HAND_BIG_MADE, betting.big_made)
    _scalar(out, keys.ENGINE_HAND_BRING_IN_DUE, betting.bring_in_due)
    _scalar(out, keys.ENGINE_HAND_OPENER_MAY_FOLD, betting.opener_may_fold)
    _optional(out, keys.ENGINE_HAND_FIRST_ACTOR, betting.first_actor)
    _optional(out, keys.ENGINE_HAND_LAST_AGGRESSOR, betting.last_aggressor)
    _scalar(out, keys.ENGINE_HAND_ROUND_HELD, betting.held)
    _scalar(out, keys.ENGINE_HAND_OVER, hand.over)
    if hand.result is not None:
        append_record(out, keys.ENGINE_HAND_RESULT, _result(hand.result))
    moves = hand.moves  # the packed moves it was decoded with as they came, then the others
    if moves.stored or moves.after:
        start = open_record(out, keys.ENGINE_HAND_MOVES)
        out.write(moves.stored)
        _append_moves(out, moves.after)
        close_record(out, start)
    append_packed(out, keys.ENGINE_HAND_TABLED, hand.tabled)
    return out.getvalue()


def _scalar(out: BytesWriter, key: int, value: int) -> None:
    """A plain integer or bool field: written unless 0 (or False)."""
    if value:
        _number(out, key, value)


def _optional(out: BytesWriter, key: int, value: int | None) -> None:
    """An optional integer field: written whenever it is set, 0 too."""
    if value is not None:
        _number(out, key, value)


def _number(out: BytesWriter, key: int, value: int) -> None:
    append_varint(out, key)
    append_varint(out, value)


def _bytes(out: BytesWriter, key: int, values: list[int]) -> None:
    """A bytes field of byte values (the deck's cards): written unless empty."""
    if values:
        start = open_record(out, key)
        for value in values:
            out.append(value)
        close_record(out, start)


def _flags(out: BytesWriter, key: int, flags: list[bool]) -> None:
    """A packed repeated bool field, a byte per flag (a bool's varint): unless empty."""
    if flags:
        start = open_record(out, key)
        for flag in flags:
            out.append(flag)
        close_record(out, start)


def _result(r: HandResult) -> bytes:
    """EngineResult's fields (a hand has one only at its end), as ``_hand_fields`` writes
    EngineHand's: each pot, the final stacks, each shown hand, each uncalled bet, the rake."""
    out = BytesWriter()
    for pot in r.pots:
        start = open_record(out, keys.ENGINE_RESULT_POTS)
        _scalar(out, keys.ENGINE_POT_AMOUNT, pot.amount)
        append_packed(out, keys.ENGINE_POT_ELIGIBLE, list(pot.eligible))
        append_packed(out, keys.ENGINE_POT_WINNERS, list(pot.winners))
        append_packed(out, keys.ENGINE_POT_SHARES, list(pot.shares))
        append_packed(out, keys.ENGINE_POT_LOW_WINNERS, list(pot.low_winners))
        append_packed(out, keys.ENGINE_POT_LOW_SHARES, list(pot.low_shares))
        _scalar(out, keys.ENGINE_POT_RAKE, pot.rake)
        close_record(out, start)
    append_packed(out, keys.ENGINE_RESULT_STACKS, list(r.stacks))
    for shown in r.shown:
        start = open_record(out, keys.ENGINE_RESULT_SHOWN)
        _scalar(out, keys.ENGINE_SHOWN_HAND_SEAT, shown.seat)
        _bytes(out, keys.ENGINE_SHOWN_HAND_CARDS, list(shown.cards))
        _bytes(out, keys.ENGINE_SHOWN_HAND_BEST_FIVE, list(shown.best_five))
        _scalar(out, keys.ENGINE_SHOWN_HAND_RANK, shown.rank)
        _text(out, keys.ENGINE_SHOWN_HAND_DESCRIPTION, shown.description)
        _scalar(out, keys.ENGINE_SHOWN_HAND_LOW, shown.low)
        _bytes(out, keys.ENGINE_SHOWN_HAND_LOW_BEST_FIVE, list(shown.low_best_five))
        _text(out, keys.ENGINE_SHOWN_HAND_LOW_DESCRIPTION, shown.low_description)
        close_record(out, start)
    for seat, amount in r.uncalled:
        start = open_record(out, keys.ENGINE_RESULT_UNCALLED)
        _scalar(out, keys.ENGINE_UNCALLED_SEAT, seat)
        _scalar(out, keys.ENGINE_UNCALLED_AMOUNT, amount)
        close_record(out, start)
    _scalar(out, keys.ENGINE_RESULT_RAKE, r.rake)
    return out.getvalue()


def _text(out: BytesWriter, key: int, text: str) -> None:
    """A string field: written unless empty."""
    if text:
        append_record(out, key, text.encode())


def pack_moves(moves: Iterable[Move]) -> bytes:
    """The action log, compact: per action one byte (seat << 4 | kind << 1 | timeout),
    then the round total as a varint for a sized action (not FOLD or CHECK)."""
    out = BytesWriter()
    _append_moves(out, list(moves))
    return out.getvalue()


def _append_moves(out: BytesWriter, moves: list[Move]) -> None:
    for move in moves:
        to = move.to
        out.append(move.seat << 4 | action_index(move.type) << 1 | move.timeout)
        if to is None:
            continue
        append_varint(out, to)


def _serialized_game(variant: Variant, table: Table) -> bytes:
    """EngineHand's variant and table, serialized."""
    return state_pb2.EngineHand(
        variant=VARIANT_CODES[variant], table=_table_pb(table)
    ).SerializeToString()


_GAME_FIELDS: Final = GameFields(_serialized_game)  # a few distinct ones serve many calls


def game_bytes(variant: Variant, table: Table) -> bytes:
    """EngineHand's variant and table fields, serialized (cached per distinct game)."""
    return _GAME_FIELDS.get(variant, table)


def _table_pb(table: Table) -> state_pb2.EngineTable:
    return table_to_message(table, state_pb2.EngineTable(), ODD_CHIP_CODES)


# the fields' keys written whole with their values (the rest: ``keys``, generated)
_FORMAT_VERSION: Final = varint(keys.HAND_STATE_FORMAT_VERSION) + varint(FORMAT_VERSION)
_TEST_DECK: Final = varint(keys.HAND_STATE_TEST_DECK) + b"\x01"
