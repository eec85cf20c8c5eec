"""The in-process conformance driver: plays a vector against the rules engine directly."""

from __future__ import annotations

from typing import Any

from studengine.cards import parse_cards
from studengine.conformance.runner import ActionRefused, Snapshot
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import ActionType, IllegalAction, OddChip, Table, Variant


def table_from_vector(vector: dict[str, Any]) -> Table:
    t = vector["table"]
    return Table(
        ante=t["ante"],
        bring_in=t["bring_in"],
        small_bet=t["small_bet"],
        big_bet=t["big_bet"],
        max_bets=t.get("max_bets", 4),
        uncapped_heads_up=t.get("uncapped_heads_up", False),
        open_pair_big_bet=t.get("open_pair_big_bet", True),
        odd_chip=OddChip(t.get("odd_chip", "LEFT_OF_DEALER")),
    )


def snapshot_of(hand: Hand) -> Snapshot:
    result = hand.result
    return Snapshot(
        to_act=hand.to_act,
        legal=[(a.type.value, a.to) for a in hand.legal_actions()],
        pot=hand.pot,
        stacks=list(hand.stacks),
        over=hand.is_over,
        pots=[] if result is None else [(p.amount, sorted(p.winners)) for p in result.pots],
        revealed=[] if result is None else list(result.revealed),
    )


class LocalDriver:
    """Plays a vector against the engine in this process."""

    hand: Hand

    def start(self, vector: dict[str, Any]) -> Snapshot:
        self.hand, _ = start_hand(
            Variant(vector["variant"]),
            table_from_vector(vector),
            vector["stacks"],
            vector["button"],
            parse_cards(vector.get("deck", [])),
        )
        return snapshot_of(self.hand)

    def act(self, seat: int, action: str, to: int | None) -> Snapshot:
        try:
            self.hand.act(seat, ActionType(action), to)
        except IllegalAction as refusal:
            raise ActionRefused(str(refusal)) from None
        return snapshot_of(self.hand)
