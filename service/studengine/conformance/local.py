"""The in-process conformance driver: plays a vector against the rules engine directly."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from studengine.cards import parse_cards
from studengine.conformance.runner import ActionRefused, Snapshot
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import ActionType, IllegalAction, Table, Variant


def table_from_vector(vector: dict[str, Any]) -> Table:
    """The vector's table, its fields named as the dataclass's (an enum by its value);
    options it leaves out take the game's defaults (``Table.for_game``)."""
    given = vector["table"]
    values: dict[str, Any] = {}
    for field in dataclasses.fields(Table):
        if field.name in given:
            value = given[field.name]
            kind = type(field.default)
            values[field.name] = kind(value) if issubclass(kind, enum.Enum) else value
    return Table.for_game(Variant(vector["variant"]), **values)


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
