"""The one place where engine values and the public API's messages meet: variants, odd
chip rules, action types, tables, legal actions, cards as text, hand results."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, TypeVar

from stud_api.stud.v1 import stud_engine_pb2 as pb

from studengine.cards import DECK_SIZE, format_card
from studengine.history.phh import Audience
from studengine.rules.types import ActionType, HandResult, LegalAction, OddChip, Table, Variant
from studengine.rules.variants import HIGH, LOW_8, LOW_A5
from studengine.state.messages import field_values, table_to_message

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
