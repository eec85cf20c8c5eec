"""An Act with no ``to`` (issue 22): parse_act leaves the size to ``Hand.act``, which takes
the smallest legal one of the action's type, where it used to pick the smaller of two
legal sizes itself (``support.api_helpers.smallest_size``, the reference). On random
hands of every game, at every turn, each action type asked of the seat to act and of
another seat with no ``to`` does what the reference's ``to`` did: the same events and
the same hand after, or the same refusal (its kind, reason, legal moves, seat to act)
and the hand unchanged."""

from __future__ import annotations

import random

from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import ActionType, IllegalAction, Variant
from support.api_helpers import smallest_size
from support.history_helpers import random_players
from support.stud_helpers import random_table

Outcome = tuple[str, object]


def outcome(hand: Hand, seat: int, action: ActionType, to: int | None) -> Outcome:
    """What ``hand.act`` does: its events, or its refusal."""
    try:
        return "events", hand.act(seat, action, to)
    except IllegalAction as error:
        return "refused", (error.refusal, str(error), error.legal, error.to_act)


def test_no_to_does_what_the_reference_size_did() -> None:
    rng = random.Random(22)
    two_sizes = compared = 0
    for index in range(600):
        variant = list(Variant)[index % len(Variant)]
        players = random_players(rng, variant)
        stacks = [rng.choice([40, 150, 600, 2000]) for _ in range(players)]
        deck = list(range(52))
        rng.shuffle(deck)
        table = random_table(rng, variant)
        hand, _ = start_hand(variant, table, stacks, rng.randrange(players), deck)
        while True:
            other = rng.randrange(players)
            for seat in {hand.to_act if hand.to_act is not None else other, other}:
                for action in ActionType:
                    reference = hand.copy()
                    size = smallest_size(reference, action)
                    two_sizes += size is not None
                    expected = outcome(reference, seat, action, size)
                    ours = hand.copy()
                    assert outcome(ours, seat, action, None) == expected
                    assert ours == reference
                    compared += 1
            if hand.is_over:
                break
            assert hand.to_act is not None
            legal = hand.legal_actions()
            choice = rng.choice(legal)
            hand.act(hand.to_act, choice.type, choice.to)
    assert compared > 10_000
    assert two_sizes > 40  # the open-pair round's two sizes came up (61 times, seed 22)
