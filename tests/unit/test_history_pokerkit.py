"""Our PHH histories read by PokerKit (the reference implementation of PHH): every history
of thousands of random hands of each PHH variant the engine plays loads with
``pokerkit.HandHistory.loads``, plays through PokerKit's own rules, and ends with our
finishing stacks. Deep stacks and no open-pair big bet: the rules PokerKit shares with
ours (R-ANTE, R-BRING-IN-WHO, R-FIRST-TO-ACT, R-CAP, R-SPLIT, R-ODD-CHIP)."""

from __future__ import annotations

import random
import warnings

import pytest
from studengine.history.codes import EXTENSION_CODES, PHH_CODES
from studengine.history.phh import Audience, render
from studengine.history.reader import parse, replay
from studengine.rules.types import Table, Variant
from support.history_helpers import meta_for, play_random_hand, random_players
from support.paths import IN_CI

try:
    import pokerkit
except ImportError:  # the server's `test` extra; CI installs it (requirements/ci.txt)
    if IN_CI:
        raise
    pytest.skip("PokerKit is not installed: pip install -e '.[test]'", allow_module_level=True)

PHH_VARIANTS = [v for v, code in PHH_CODES.items() if code not in EXTENSION_CODES]
HANDS = 1600  # per variant; about 16 s each on one core


def pokerkit_stacks(text: str) -> list[int]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an unexpected field would only warn
        history = pokerkit.HandHistory.loads(text)
        *_, final = iter(history)
    return list(final.stacks)


@pytest.mark.parametrize("variant", PHH_VARIANTS, ids=lambda v: PHH_CODES[v])
def test_pokerkit_replays_our_histories_to_the_same_stacks(variant: Variant) -> None:
    rng = random.Random(f"pokerkit {variant.value}")
    table = Table(ante=5, bring_in=10, small_bet=20, big_bet=40, open_pair_big_bet=False)
    showdowns = 0
    for index in range(HANDS):
        # at most 7: PokerKit's stud has no community card (R-COMMUNITY-CARD, "d db")
        players = random_players(rng, variant, most=7)
        hand = play_random_hand(rng, variant, table, [100_000] * players)
        assert hand.result is not None
        showdowns += bool(hand.result.shown)
        audience = Audience.AUDIT if index % 2 == 0 else Audience.PLAYERS
        text = render(hand, meta_for(hand, index), audience)
        order = [(hand.button + 1 + i) % players for i in range(players)]
        assert pokerkit_stacks(text) == [hand.stacks[s] for s in order], text
    assert showdowns > HANDS // 4


@pytest.mark.parametrize("variant", PHH_VARIANTS, ids=lambda v: PHH_CODES[v])
def test_pokerkit_exports_replay_through_our_engine(variant: Variant) -> None:
    """The other way: PokerKit's own export of a hand it played (``from_game_state``, then
    ``dumps``) reads and plays through our engine (``stud-replay``'s path) to its stacks."""
    rng = random.Random(f"pokerkit export {variant.value}")
    table = Table(ante=5, bring_in=10, small_bet=20, big_bet=40, open_pair_big_bet=False)
    for index in range(150):
        hand = play_random_hand(rng, variant, table, [100_000] * random_players(rng, variant, 7))
        ours = pokerkit.HandHistory.loads(render(hand, meta_for(hand, index), Audience.AUDIT))
        *_, final = iter(ours)
        export = pokerkit.HandHistory.from_game_state(
            ours.create_game(), final, finishing_stacks=list(final.stacks)
        ).dumps()
        played = replay(parse(export))
        assert played.stacks_agree, export
        assert played.actions == len(hand.moves)


def test_pokerkit_exports_with_all_ins_replay_through_our_engine() -> None:
    """Short stacks: PokerKit writes an all-in showdown before the remaining deals (and
    "sm ????" lines for cards kept down); every hand PokerKit plays to our stacks exports
    a history our engine replays to them too."""
    rng = random.Random("pokerkit short stacks")
    table = Table(ante=5, bring_in=10, small_bet=20, big_bet=40, open_pair_big_bet=False)
    checked = 0
    for index in range(150):
        players = rng.randint(2, 6)
        stacks = [rng.randint(1, 150) for _ in range(players)]
        hand = play_random_hand(rng, Variant.SEVEN_CARD_STUD, table, stacks)
        ours = pokerkit.HandHistory.loads(render(hand, meta_for(hand, index), Audience.AUDIT))
        try:
            *_, final = iter(ours)
        except (ValueError, KeyError):  # PokerKit's all-in model (see README): not ours to test
            continue
        order = [(hand.button + 1 + i) % players for i in range(players)]
        if list(final.stacks) != [hand.stacks[s] for s in order]:
            continue  # a rule PokerKit does not share (a short ante's pot, R-ANTE)
        export = pokerkit.HandHistory.from_game_state(
            ours.create_game(), final, finishing_stacks=list(final.stacks)
        ).dumps()
        assert replay(parse(export)).stacks_agree, export
        checked += 1
    assert checked > 100
