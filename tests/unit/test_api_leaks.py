"""No leaks (R-MUCK): over many random hands played through the API, no spectator view or
event shows a down card before the showdown reveals it, no seat's view shows another
seat's down card, and a mucked or folded hand is never revealed."""

from __future__ import annotations

import pytest
from studengine.api.handlers import Handlers
from studengine.state.sealing import KeyRing
from support.api_helpers import new_key
from support.leaks import LeakChecker, play_hands


@pytest.mark.slow
def test_no_leaks_in_1000_random_hands_through_the_handlers() -> None:
    handlers = Handlers(KeyRing([new_key("k1")]), allow_test_decks=False)
    checker = LeakChecker(handlers)
    play_hands(
        1000,
        2024,
        lambda r: handlers.start_hand(r).hand,
        lambda r: handlers.act(r).hand,
        checker,
    )
    # the random play reached showdowns with mucked hands, so the checks were exercised
    assert checker.showdowns > 100 and checker.mucked > 20, vars(checker)
