"""The leak checker (R-MUCK) the unit and integration tiers share: every response of a hand
checked against the truth inside its sealed state."""

from __future__ import annotations

import random
from collections.abc import Callable

from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api.handlers import Handlers

from support.api_helpers import cards_in, random_act, random_start


class LeakChecker:
    """Checks every response of a hand against the truth inside its sealed state."""

    def __init__(self, handlers: Handlers) -> None:
        self.handlers = handlers
        self.showdowns = 0
        self.mucked = 0
        self.responses = 0

    def check(self, update: pb.HandUpdate) -> None:
        self.responses += 1
        hand = self.handlers.sealer.open(update.state).hand
        down = {s: set(hand.down_cards(s)) for s in range(hand.players)}
        revealed = set() if hand.result is None else {s.seat for s in hand.result.shown}
        assert set(update.result.revealed) == revealed

        def secret_from(viewer: int | None) -> set[int]:
            hidden: set[int] = set()
            for seat, cards in down.items():
                if seat != viewer and seat not in revealed:
                    hidden |= cards
            return hidden

        spectator_cards = cards_in(update.spectator)
        assert not spectator_cards & secret_from(None), "a spectator sees a down card"
        for seat, view in enumerate(update.seats):
            seen = cards_in(view)
            assert not seen & secret_from(seat), f"seat {seat} sees another seat's down card"
            assert down[seat] <= seen, "a seat does not see its own down cards"
        # outside the views: the result shows revealed hands only
        assert not cards_in(update.result) & secret_from(None)
        for seat in revealed:
            assert down[seat] <= spectator_cards, "a revealed hand is not shown"
        if hand.result is not None and len(hand.result.shown) > 0:
            self.showdowns += 1
            live = [s for s in range(hand.players) if not hand.folded[s]]
            mucked = [s for s in live if s not in revealed]
            self.mucked += len(mucked)
            muck_events = {
                e.hand_mucked.seat for e in update.spectator.events if e.HasField("hand_mucked")
            }
            assert muck_events == set(mucked)


def play_hands(
    count: int,
    seed: int,
    start: Callable[[pb.StartHandRequest], pb.HandUpdate],
    act: Callable[[pb.ActRequest], pb.HandUpdate],
    checker: LeakChecker,
) -> None:
    rng = random.Random(seed)
    for _ in range(count):
        update = start(random_start(rng))
        checker.check(update)
        while not update.over:
            update = act(random_act(rng, update))
            checker.check(update)
