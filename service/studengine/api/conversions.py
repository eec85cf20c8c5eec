"""The one place where engine values and the public API's messages meet: variants, odd
chip rules, action types, tables, legal actions, cards as text, hand results."""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer
from stud_api.stud.v1 import stud_engine_pb2 as pb

from studengine.cards import DECK_SIZE, format_card
from studengine.history.phh import Audience
from studengine.rules.types import ActionType, HandResult, LegalAction, OddChip, Table, Variant
from studengine.rules.variants import HIGH, LOW_8, LOW_A5
from studengine.state.table_fields import table_to_message

VARIANT_TO_PB = {
    Variant.FIVE_CARD_STUD: pb.VARIANT_FIVE_CARD_STUD,
    Variant.SEVEN_CARD_STUD: pb.VARIANT_SEVEN_CARD_STUD,
    Variant.RAZZ: pb.VARIANT_RAZZ,
    Variant.SEVEN_CARD_STUD_HI_LO: pb.VARIANT_SEVEN_CARD_STUD_HI_LO,
}
VARIANT_FROM_PB = {code: v for v, code in VARIANT_TO_PB.items()}
ODD_CHIP_TO_PB = {
    OddChip.LEFT_OF_DEALER: pb.ODD_CHIP_LEFT_OF_DEALER,
    OddChip.HIGH_CARD_BY_SUIT: pb.ODD_CHIP_HIGH_CARD_BY_SUIT,
}
ODD_CHIP_FROM_PB = {code: o for o, code in ODD_CHIP_TO_PB.items()}
ODD_CHIP_FROM_PB[pb.ODD_CHIP_UNSPECIFIED] = OddChip.LEFT_OF_DEALER
ACTION_TO_PB = {
    ActionType.FOLD: pb.ACTION_TYPE_FOLD,
    ActionType.CHECK: pb.ACTION_TYPE_CHECK,
    ActionType.CALL: pb.ACTION_TYPE_CALL,
    ActionType.BRING_IN: pb.ACTION_TYPE_BRING_IN,
    ActionType.COMPLETE: pb.ACTION_TYPE_COMPLETE,
    ActionType.BET: pb.ACTION_TYPE_BET,
    ActionType.RAISE: pb.ACTION_TYPE_RAISE,
}
ACTION_FROM_PB = {code: a for a, code in ACTION_TO_PB.items()}
AUDIENCE_TO_PB = {
    Audience.PLAYERS: pb.HISTORY_AUDIENCE_PLAYERS,
    Audience.AUDIT: pb.HISTORY_AUDIENCE_AUDIT,
}
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


def add_legal(
    container: RepeatedCompositeFieldContainer[pb.LegalAction], actions: Sequence[LegalAction]
) -> None:
    """Append ``actions`` to a repeated LegalAction field (built in place, not copied)."""
    for action in actions:
        if action.to is None:
            container.add(type=ACTION_TO_PB[action.type])
        else:
            container.add(type=ACTION_TO_PB[action.type], to=action.to)


def result_to_pb(result: HandResult) -> pb.HandResult:
    return pb.HandResult(
        pots=[
            pb.Pot(
                amount=p.amount,
                eligible=p.eligible,
                winners=p.winners,
                shares=p.shares,
                low_winners=p.low_winners,
                low_shares=p.low_shares,
                rake=p.rake,
            )
            for p in result.pots
        ],
        stacks=result.stacks,
        shown=[
            pb.ShownHand(
                seat=s.seat,
                cards=cards_text(s.cards),
                best_five=cards_text(s.best_five),
                rank=s.rank,
                description=s.description,
                low=s.low,
                low_best_five=cards_text(s.low_best_five),
                low_description=s.low_description,
            )
            for s in result.shown
        ],
        revealed=result.revealed,
        uncalled=[pb.UncalledReturned(seat=s, amount=a) for s, a in result.uncalled],
        rake=result.rake,
    )
