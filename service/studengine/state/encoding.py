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
    LENGTH_DELIMITED,
    VARINT,
    BytesWriter,
    GameFields,
    append_packed,
    append_record,
    append_varint,
    close_record,
    open_record,
    tag,
    varint,
    varint_key,
)


def encode(state: HandRecord) -> bytes:
    """The state's bytes: exactly ``HandState.SerializeToString(deterministic=True)`` of
    the message with the same fields."""
    out = BytesWriter()
    out.write(_FORMAT_VERSION)
    if state.hand_id:
        append_record(out, _HAND_ID, state.hand_id)
    if state.seq:
        _number(out, _SEQ, state.seq)
    if state.test_deck:
        out.write(_TEST_DECK)
    if state.salt:
        append_record(out, _SALT, state.salt)
    for player_id in state.player_ids:
        append_record(out, _PLAYER_ID, player_id.encode())
    append_record(out, _HAND, _hand_fields(state.hand))
    if state.deck_commitment:
        append_record(out, _DECK_COMMITMENT, state.deck_commitment)
    if state.deal is not None:
        append_record(out, _DEAL, deal_bytes(state.deal))
    return out.getvalue()


def _hand_fields(hand: Hand) -> bytes:
    """EngineHand's fields in field-number order, as protobuf writes them: the variant and
    the table (cached), then a plain scalar when it is not 0 (a flag when True), an
    optional one whenever it is set (0 too), a repeated field when it is not empty."""
    betting = hand.round  # the round's state; its table and bet size follow from the hand's
    out = BytesWriter()
    out.write(_GAME_FIELDS.get(hand.variant, hand.table))
    _scalar(out, _BUTTON, hand.button)
    append_packed(out, _STARTING_STACKS, hand.starting_stacks)
    _bytes(out, _DECK, hand.deck)
    _scalar(out, _DEALT, hand.dealt)
    append_packed(out, _STACKS, hand.stacks)
    append_packed(out, _COMMITTED, hand.committed)
    append_packed(out, _ROUND_BETS, betting.bets)
    for held in hand.cards:  # one bytes field per seat, even one holding no card
        out.append(_CARDS)  # a one-byte key (field 10), a one-byte length (7 cards at most)
        out.append(len(held))
        for card in held:
            out.append(card)
    _optional(out, _COMMUNITY, hand.community)
    _flags(out, _FOLDED, hand.folded)
    _flags(out, _ACTED, betting.acted)
    _scalar(out, _STREET, hand.street)
    _optional(out, _TO_ACT, hand.to_act)
    _scalar(out, _LEVEL, betting.level)
    _scalar(out, _FULL_LEVEL, betting.full_level)
    _scalar(out, _BETS, betting.full_bets)
    _scalar(out, _UNCAPPED, betting.uncapped)
    _scalar(out, _OPEN_PAIR, betting.open_pair)
    _scalar(out, _BIG_MADE, betting.big_made)
    _scalar(out, _BRING_IN_DUE, betting.bring_in_due)
    _scalar(out, _OPENER_MAY_FOLD, betting.opener_may_fold)
    _optional(out, _FIRST_ACTOR, betting.first_actor)
    _optional(out, _LAST_AGGRESSOR, betting.last_aggressor)
    _scalar(out, _ROUND_HELD, betting.held)
    _scalar(out, _OVER, hand.over)
    if hand.result is not None:
        append_record(out, _RESULT, _result(hand.result))
    moves = hand.moves  # the packed moves it was decoded with as they came, then the others
    if moves.stored or moves.after:
        start = open_record(out, _MOVES)
        out.write(moves.stored)
        _append_moves(out, moves.after)
        close_record(out, start)
    append_packed(out, _TABLED, hand.tabled)
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
        start = open_record(out, _POT)
        _scalar(out, _POT_AMOUNT, pot.amount)
        append_packed(out, _POT_ELIGIBLE, list(pot.eligible))
        append_packed(out, _POT_WINNERS, list(pot.winners))
        append_packed(out, _POT_SHARES, list(pot.shares))
        append_packed(out, _POT_LOW_WINNERS, list(pot.low_winners))
        append_packed(out, _POT_LOW_SHARES, list(pot.low_shares))
        _scalar(out, _POT_RAKE, pot.rake)
        close_record(out, start)
    append_packed(out, _RESULT_STACKS, list(r.stacks))
    for shown in r.shown:
        start = open_record(out, _SHOWN)
        _scalar(out, _SHOWN_SEAT, shown.seat)
        _bytes(out, _SHOWN_CARDS, list(shown.cards))
        _bytes(out, _SHOWN_BEST_FIVE, list(shown.best_five))
        _scalar(out, _SHOWN_RANK, shown.rank)
        _text(out, _SHOWN_DESCRIPTION, shown.description)
        _scalar(out, _SHOWN_LOW, shown.low)
        _bytes(out, _SHOWN_LOW_BEST_FIVE, list(shown.low_best_five))
        _text(out, _SHOWN_LOW_DESCRIPTION, shown.low_description)
        close_record(out, start)
    for seat, amount in r.uncalled:
        start = open_record(out, _UNCALLED)
        _scalar(out, _UNCALLED_SEAT, seat)
        _scalar(out, _UNCALLED_AMOUNT, amount)
        close_record(out, start)
    _scalar(out, _RESULT_RAKE, r.rake)
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


# ---- the fields' keys, from the schema ----------------------------------------------
_STATE = state_pb2.HandState.DESCRIPTOR.fields_by_name
_FORMAT_VERSION: Final = varint_key(_STATE["format_version"]) + varint(FORMAT_VERSION)
_HAND_ID: Final = tag(_STATE["hand_id"], LENGTH_DELIMITED)
_SEQ: Final = tag(_STATE["seq"], VARINT)
_TEST_DECK: Final = varint_key(_STATE["test_deck"]) + b"\x01"
_SALT: Final = tag(_STATE["salt"], LENGTH_DELIMITED)
_PLAYER_ID: Final = tag(_STATE["player_ids"], LENGTH_DELIMITED)
_HAND: Final = tag(_STATE["hand"], LENGTH_DELIMITED)
_DECK_COMMITMENT: Final = tag(_STATE["deck_commitment"], LENGTH_DELIMITED)
_DEAL: Final = tag(_STATE["deal"], LENGTH_DELIMITED)

_FIELD = state_pb2.EngineHand.DESCRIPTOR.fields_by_name
_BUTTON: Final = tag(_FIELD["button"], VARINT)
_STARTING_STACKS: Final = tag(_FIELD["starting_stacks"], LENGTH_DELIMITED)
_DECK: Final = tag(_FIELD["deck"], LENGTH_DELIMITED)
_DEALT: Final = tag(_FIELD["dealt"], VARINT)
_STACKS: Final = tag(_FIELD["stacks"], LENGTH_DELIMITED)
_COMMITTED: Final = tag(_FIELD["committed"], LENGTH_DELIMITED)
_ROUND_BETS: Final = tag(_FIELD["round_bets"], LENGTH_DELIMITED)
_CARDS: Final = tag(_FIELD["cards"], LENGTH_DELIMITED)
_COMMUNITY: Final = tag(_FIELD["community"], VARINT)
_FOLDED: Final = tag(_FIELD["folded"], LENGTH_DELIMITED)
_ACTED: Final = tag(_FIELD["acted"], LENGTH_DELIMITED)
_STREET: Final = tag(_FIELD["street"], VARINT)
_TO_ACT: Final = tag(_FIELD["to_act"], VARINT)
_LEVEL: Final = tag(_FIELD["level"], VARINT)
_FULL_LEVEL: Final = tag(_FIELD["full_level"], VARINT)
_BETS: Final = tag(_FIELD["bets"], VARINT)
_UNCAPPED: Final = tag(_FIELD["uncapped"], VARINT)
_OPEN_PAIR: Final = tag(_FIELD["open_pair"], VARINT)
_BIG_MADE: Final = tag(_FIELD["big_made"], VARINT)
_BRING_IN_DUE: Final = tag(_FIELD["bring_in_due"], VARINT)
_OPENER_MAY_FOLD: Final = tag(_FIELD["opener_may_fold"], VARINT)
_FIRST_ACTOR: Final = tag(_FIELD["first_actor"], VARINT)
_LAST_AGGRESSOR: Final = tag(_FIELD["last_aggressor"], VARINT)
_ROUND_HELD: Final = tag(_FIELD["round_held"], VARINT)
_OVER: Final = tag(_FIELD["over"], VARINT)
_RESULT: Final = tag(_FIELD["result"], LENGTH_DELIMITED)
_MOVES: Final = tag(_FIELD["moves"], LENGTH_DELIMITED)
_TABLED: Final = tag(_FIELD["tabled"], LENGTH_DELIMITED)

_RESULT_FIELD = state_pb2.EngineResult.DESCRIPTOR.fields_by_name
_POT: Final = tag(_RESULT_FIELD["pots"], LENGTH_DELIMITED)
_RESULT_STACKS: Final = tag(_RESULT_FIELD["stacks"], LENGTH_DELIMITED)
_SHOWN: Final = tag(_RESULT_FIELD["shown"], LENGTH_DELIMITED)
_UNCALLED: Final = tag(_RESULT_FIELD["uncalled"], LENGTH_DELIMITED)
_RESULT_RAKE: Final = tag(_RESULT_FIELD["rake"], VARINT)
_POT_FIELD = state_pb2.EnginePot.DESCRIPTOR.fields_by_name
_POT_AMOUNT: Final = tag(_POT_FIELD["amount"], VARINT)
_POT_ELIGIBLE: Final = tag(_POT_FIELD["eligible"], LENGTH_DELIMITED)
_POT_WINNERS: Final = tag(_POT_FIELD["winners"], LENGTH_DELIMITED)
_POT_SHARES: Final = tag(_POT_FIELD["shares"], LENGTH_DELIMITED)
_POT_LOW_WINNERS: Final = tag(_POT_FIELD["low_winners"], LENGTH_DELIMITED)
_POT_LOW_SHARES: Final = tag(_POT_FIELD["low_shares"], LENGTH_DELIMITED)
_POT_RAKE: Final = tag(_POT_FIELD["rake"], VARINT)
_SHOWN_FIELD = state_pb2.EngineShownHand.DESCRIPTOR.fields_by_name
_SHOWN_SEAT: Final = tag(_SHOWN_FIELD["seat"], VARINT)
_SHOWN_CARDS: Final = tag(_SHOWN_FIELD["cards"], LENGTH_DELIMITED)
_SHOWN_BEST_FIVE: Final = tag(_SHOWN_FIELD["best_five"], LENGTH_DELIMITED)
_SHOWN_RANK: Final = tag(_SHOWN_FIELD["rank"], VARINT)
_SHOWN_DESCRIPTION: Final = tag(_SHOWN_FIELD["description"], LENGTH_DELIMITED)
_SHOWN_LOW: Final = tag(_SHOWN_FIELD["low"], VARINT)
_SHOWN_LOW_BEST_FIVE: Final = tag(_SHOWN_FIELD["low_best_five"], LENGTH_DELIMITED)
_SHOWN_LOW_DESCRIPTION: Final = tag(_SHOWN_FIELD["low_description"], LENGTH_DELIMITED)
_UNCALLED_FIELD = state_pb2.EngineUncalled.DESCRIPTOR.fields_by_name
_UNCALLED_SEAT: Final = tag(_UNCALLED_FIELD["seat"], VARINT)
_UNCALLED_AMOUNT: Final = tag(_UNCALLED_FIELD["amount"], VARINT)
