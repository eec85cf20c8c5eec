"""The one place where engine values and the public API's messages meet: variants, odd
chip rules, action types, tables, legal actions, cards as text, hand results (as a
message, and as its bytes written field by field)."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, Final, TypeVar

from stud_api.stud.v1 import stud_engine_pb2 as pb

from studengine.api._gen.stud.v1 import stud_engine_keys as keys
from studengine.api._gen.stud.v1.stud_engine_writers import write_pot, write_uncalled_returned
from studengine.cards import DECK_SIZE, format_card
from studengine.history.phh import Audience
from studengine.rules.types import (
    ACTION_TYPES,
    ActionType,
    HandResult,
    LegalAction,
    OddChip,
    ShownHand,
    Table,
    Variant,
)
from studengine.rules.variants import HIGH, LOW_8, LOW_A5
from studengine.state import wire
from studengine.state.messages import field_values, table_to_message
from studengine.state.wire import BytesWriter

E = TypeVar("E", bound=enum.Enum)


def enum_codes(members: type[E], proto: Any, prefix: str) -> dict[E, Any]:
    """Each member's code in the public API: the ``proto`` enum's value named ``prefix``
    and the member's name (``Variant.RAZZ``: ``VARIANT_RAZZ``); a member the proto does
    not have fails at import."""
    return {member: proto.Value(prefix + member.name) for member in members}


VARIANT_TO_PB = enum_codes(Variant, pb.Variant, "VARIANT_")
VARIANT_FROM_PB = {code: v for v, code in VARIANT_TO_PB.items()}
ODD_CHIP_TO_PB = enum_codes(OddChip, pb.OddChip, "ODD_CHIP_")
ODD_CHIP_FROM_PB = {code: o for o, code in ODD_CHIP_TO_PB.items()}
ODD_CHIP_FROM_PB[pb.ODD_CHIP_UNSPECIFIED] = OddChip.LEFT_OF_DEALER
ACTION_TO_PB = enum_codes(ActionType, pb.ActionType, "ACTION_TYPE_")
ACTION_FROM_PB = {code: a for a, code in ACTION_TO_PB.items()}
#: each action's code by its place in ACTION_TYPES (``action_index``: no enum hashing)
ACTION_CODES: Final = tuple(ACTION_TO_PB[kind] for kind in ACTION_TYPES)
AUDIENCE_TO_PB = enum_codes(Audience, pb.HistoryAudience, "HISTORY_AUDIENCE_")
AUDIENCE_FROM_PB = {code: a for a, code in AUDIENCE_TO_PB.items()}
AUDIENCE_FROM_PB[pb.HISTORY_AUDIENCE_UNSPECIFIED] = Audience.PLAYERS

# EvaluateRequest.ranking -> the games' rankings: high, ace-to-five low, eight or better
RANKING_FROM_PB = {
    pb.HAND_RANKING_UNSPECIFIED: HIGH,
    pb.HAND_RANKING_HIGH: HIGH,
    pb.HAND_RANKING_ACE_TO_FIVE_LOW: LOW_A5,
    pb.HAND_RANKING_EIGHT_OR_BETTER_LOW: LOW_8,
}


CARD_TEXT: tuple[str, ...] = tuple(format_card(c) for c in range(DECK_SIZE))


def cards_text(cards: Sequence[int]) -> list[str]:
    return [CARD_TEXT[c] for c in cards]


def table_to_pb(table: Table) -> pb.Table:
    return table_to_message(table, pb.Table(), ODD_CHIP_TO_PB)


def legal_to_pb(actions: Sequence[LegalAction]) -> list[pb.LegalAction]:
    out = []
    for action in actions:
        msg = pb.LegalAction(type=ACTION_TO_PB[action.type])
        if action.to is not None:
            msg.to = action.to
        out.append(msg)
    return out


def result_to_pb(result: HandResult) -> pb.HandResult:
    return pb.HandResult(
        pots=[pb.Pot(**field_values(p)) for p in result.pots],
        stacks=result.stacks,
        shown=[pb.ShownHand(**field_values(s, cards_text)) for s in result.shown],
        revealed=result.revealed,
        uncalled=[pb.UncalledReturned(seat=s, amount=a) for s, a in result.uncalled],
        rake=result.rake,
    )


# ---- a hand's result as bytes ---------------------------------------------------------
# ``result_to_pb(result).SerializeToString()`` without the message (building it costs
# about 100k instructions a finished hand): each field written in field-number order, as
# protobuf writes it (tests/unit/test_api_serialized_parts.py holds the two to the same
# bytes, for every game, split and side pots, Hi-Lo, the rake, tabled hands).


def result_bytes(result: HandResult) -> bytes:
    """A HandResult message's fields, serialized."""
    out = BytesWriter()
    for pot in result.pots:
        start = wire.open_record(out, keys.HAND_RESULT_POTS)
        eligible, winners, shares = list(pot.eligible), list(pot.winners), list(pot.shares)
        low_winners, low_shares = list(pot.low_winners), list(pot.low_shares)
        write_pot(out, pot.amount, eligible, winners, shares, low_winners, low_shares, pot.rake)
        wire.close_record(out, start)
    wire.append_packed_int64(out, keys.HAND_RESULT_STACKS, list(result.stacks))
    for shown in result.shown:
        start = wire.open_record(out, keys.HAND_RESULT_SHOWN)
        shown_fields(out, shown)
        wire.close_record(out, start)
    wire.append_packed_int64(out, keys.HAND_RESULT_REVEALED, list(result.revealed))
    for seat, amount in result.uncalled:
        start = wire.open_record(out, keys.HAND_RESULT_UNCALLED)
        write_uncalled_returned(out, seat, amount)
        wire.close_record(out, start)
    wire.append_int_field(out, keys.HAND_RESULT_RAKE, result.rake)
    return out.getvalue()


def shown_fields(out: BytesWriter, shown: ShownHand) -> None:
    """A ShownHand message's fields (and a HandShown event's: the two messages number
    their fields alike, checked at import)."""
    wire.append_int_field(out, keys.SHOWN_HAND_SEAT, shown.seat)
    _card_texts(out, _SHOWN_CARDS, shown.cards)
    _card_texts(out, _SHOWN_BEST_FIVE, shown.best_five)
    wire.append_int_field(out, keys.SHOWN_HAND_RANK, shown.rank)
    wire.append_text(out, keys.SHOWN_HAND_DESCRIPTION, shown.description)
    wire.append_int_field(out, keys.SHOWN_HAND_LOW, shown.low)
    _card_texts(out, _SHOWN_LOW_BEST_FIVE, shown.low_best_five)
    wire.append_text(out, keys.SHOWN_HAND_LOW_DESCRIPTION, shown.low_description)


def reveal_bytes(
    salt: bytes, deck: list[int], server_seed: bytes = b"", contributions: Sequence[bytes] = ()
) -> bytes:
    """``pb.Reveal(salt=salt.hex(), deck=cards_text(deck), server_seed=server_seed.hex(),
    contributions=[c.hex() for c in contributions]).SerializeToString()``."""
    out = BytesWriter()
    wire.append_text(out, keys.REVEAL_SALT, salt.hex())
    _card_texts(out, _REVEAL_DECK, deck)
    if server_seed:
        wire.append_text(out, keys.REVEAL_SERVER_SEED, server_seed.hex())
    for contribution in contributions:
        wire.append_text(out, keys.REVEAL_CONTRIBUTIONS, contribution.hex())
    return out.getvalue()


def _card_texts(out: BytesWriter, fields: tuple[bytes, ...], cards: Sequence[int]) -> None:
    """A repeated string field of cards: each card's whole field, made once (``fields``)."""
    for card in cards:
        out.write(fields[card])


def card_fields(key: int) -> tuple[bytes, ...]:
    """Each card's text as one string field ``key``, or one element of a repeated one."""
    return tuple(wire.record(key, text.encode()) for text in CARD_TEXT)


if [pb.ShownHand.DESCRIPTOR.fields_by_name[f].number for f in ShownHand.__match_args__] != [
    pb.HandShown.DESCRIPTOR.fields_by_name[f].number for f in ShownHand.__match_args__
]:
    raise ImportError("ShownHand and HandShown no longer number their fields alike")
# each card's whole field, made once (the keys: ``keys``, generated)
_SHOWN_CARDS: Final = card_fields(keys.SHOWN_HAND_CARDS)
_SHOWN_BEST_FIVE: Final = card_fields(keys.SHOWN_HAND_BEST_FIVE)
_SHOWN_LOW_BEST_FIVE: Final = card_fields(keys.SHOWN_HAND_LOW_BEST_FIVE)
_REVEAL_DECK: Final = card_fields(keys.REVEAL_DECK)
