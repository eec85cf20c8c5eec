"""The in-process conformance driver: plays a vector against the rules engine directly."""

from __future__ import annotations

from typing import Any

from studengine.cards import parse_cards
from studengine.conformance.runner import ActionRefused, Snapshot
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import ActionType, IllegalAction, OddChip, Table, Variant
from studengine.rules.variants import VARIANTS


def table_from_vector(vector: dict[str, Any]) -> Table:
    """The vector's table; options it leaves out take their defaults (the open-pair
    option on only in the games that have it)."""
    t = vector["table"]
    has_open_pair = VARIANTS[Variant(vector["variant"])].open_pair_street is not None
    return Table(
        ante=t["ante"],
        bring_in=t["bring_in"],
        small_bet=t["small_bet"],
        big_bet=t["big_bet"],
        max_bets=t.get("max_bets", 4),
        uncapped_heads_up=t.get("uncapped_heads_up", False),
        open_pair_big_bet=t.get("open_pair_big_bet", has_open_pair),
        odd_chip=OddChip(t.get("odd_chip", "LEFT_OF_DEALER")),
        rake_percent_bp=t.get("rake_percent_bp", 0),
        rake_cap=t.get("rake_cap", 0),
        all_in_face_up=t.get("all_in_face_up", False),
    )


def snapshot_of(hand: Hand) -> Snapshot:
    result = hand.result
    return Snapshot(
        to_act=hand.to_act,
        legal=[(a.type.value, a.to) for a in hand.legal_actions()],
        pot=hand.pot,
        stacks=list(hand.stacks),
        over=hand.is_over,
        pots=[]
        if result is None
        else [(p.amount, sorted(p.winners), sorted(p.low_winners)) for p in result.pots],
        revealed=[] if result is None else list(result.revealed),
        rake=0 if result is None else result.rake,
        tabled=list(hand.tabled),
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
