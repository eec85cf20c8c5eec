"""Our PHH histories read by PokerKit (the reference implementation of PHH): every history
of random hands of each PHH variant the engine plays (Seven Card Stud, Razz, Stud Hi-Lo)
loads with ``pokerkit.HandHistory.loads``, plays through PokerKit's own rules, and ends
with our finishing stacks. Deep stacks and no open-pair big bet: the rules PokerKit shares
with ours (R-ANTE, R-BRING-IN-WHO, R-RAZZ-BRING-IN, R-HILO-BRING-IN, R-FIRST-TO-ACT,
R-RAZZ-FIRST-TO-ACT, R-CAP, R-SPLIT, R-HILO-SPLIT, R-ODD-CHIP), and half the hands raked
(R-RAKE), PokerKit's rake function set from the history's ``_rake_percent_bp`` and
``_rake_cap``.

Departures from our rulebook, kept out of these hands: PokerKit's stud has no community
card (R-COMMUNITY-CARD, at most 7 players here); it has no open-pair big bet
(R-OPEN-PAIR); its rake is a function of each pot, so the rake's "no drop" rule (R-RAKE)
is given to it as "no rake unless a fourth-street card was dealt", the same thing with no
all-in, and a hand's cap is its one pot's cap (deep stacks: one pot); when a fold ends a
raked hand PokerKit rakes only part of the pot (``expected_stacks``). PHH defines no
``rake`` field (PokerKit's ``HandHistory.rake`` is its rake function, not a field): the
rake taken is written as ``_rake``.

With ``all_in_face_up`` (R-ALL-IN-FACE-UP) the tabled hands' ``sm`` lines are where PokerKit
holds its all-in showdown (before the remaining deals) and the showdowns of its run-out
(after a down card): PokerKit reads them back.

Counts: ``HANDS`` per variant (700 each, 2,100 in all) keep the whole file well under a
minute on two cores.
"""

from __future__ import annotations

import dataclasses
import random
import tomllib
import warnings
from functools import partial
from typing import Any

import pytest
from studengine.history.codes import EXTENSION_CODES, PHH_CODES
from studengine.history.phh import Audience, dealing_order, render
from studengine.history.reader import parse, replay
from studengine.rules.hand import Hand
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
HANDS = 700  # per variant (2,100 in all, about 8 ms a hand, Stud Hi-Lo 15, on one core)


def our_rake(bp: int, cap: int, amount: int, state: Any) -> tuple[int, int]:
    """R-RAKE as a PokerKit rake function (raked, left) for a hand with one pot."""
    if bp == 0 or not any(len(cards) > 3 for cards in state.hole_cards):  # no drop
        return 0, amount
    raked = amount * bp // 10_000
    raked = min(raked, cap) if cap else raked
    return raked, amount - raked


def pokerkit_stacks(text: str, raked: bool = True) -> list[int]:
    """The finishing stacks PokerKit plays ``text`` to, with our rake or none."""
    fields = tomllib.loads(text)
    bp = fields["_rake_percent_bp"] if raked else 0
    rake = partial(our_rake, bp, fields["_rake_cap"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an unexpected field would only warn
        history = pokerkit.HandHistory.loads(text, rake=rake)
        *_, final = iter(history)
    # the chips PokerKit's rake took are the `_rake` we wrote
    assert sum(history.starting_stacks) - sum(final.stacks) == (fields["_rake"] if raked else 0)
    return list(final.stacks)


def expected_stacks(hand: Hand) -> list[int]:
    """What PokerKit should finish with, in PHH order. Departure (R-RAKE): when a fold ends
    the hand, PokerKit's rake misses chips of the last betting round (e.g. 10% of 290, not
    of the 330 in the pot, when a raise to 80 over a 40 bet was folded to), so such a raked
    hand is played by PokerKit unraked and compared with our stacks before the rake (the
    rake back to the winner)."""
    assert hand.result is not None
    stacks = list(hand.stacks)
    if not hand.result.shown and hand.result.rake:
        (winner,) = hand.result.pots[0].winners
        stacks[winner] += hand.result.rake
    return [stacks[s] for s in dealing_order(hand)]


def test_phh_has_no_rake_field() -> None:
    """Why the rake is ``_rake``: PHH's optional fields (as PokerKit reads them) have none,
    and PokerKit's ``rake`` attribute is a function, not a history field."""
    assert "rake" not in pokerkit.HandHistory.optional_field_names
    assert all("rake" not in names for names in pokerkit.HandHistory.required_field_names.values())


def raked_table(rng: random.Random) -> Table:
    """Deep-stack stakes with no open-pair big bet; half the tables raked (R-RAKE)."""
    raked = rng.random() < 0.5
    return Table(
        ante=5,
        bring_in=10,
        small_bet=20,
        big_bet=40,
        open_pair_big_bet=False,
        rake_percent_bp=rng.choice([250, 500, 1000]) if raked else 0,
        rake_cap=rng.choice([0, 3, 15]) if raked else 0,
    )


@pytest.mark.parametrize("variant", PHH_VARIANTS, ids=lambda v: PHH_CODES[v])
def test_pokerkit_replays_our_histories_to_the_same_stacks(variant: Variant) -> None:
    rng = random.Random(f"pokerkit {variant.value}")
    showdowns = raked = 0
    for index in range(HANDS):
        # at most 7: PokerKit's stud has no community card (R-COMMUNITY-CARD, "d db")
        players = random_players(rng, variant, most=7)
        hand = play_random_hand(rng, variant, raked_table(rng), [100_000] * players)
        assert hand.result is not None
        showdowns += bool(hand.result.shown)
        raked += hand.result.rake > 0
        audience = Audience.AUDIT if index % 2 == 0 else Audience.PLAYERS
        text = render(hand, meta_for(hand, index), audience)
        raked_by_pokerkit = bool(hand.result.shown)  # the departure: see expected_stacks
        assert pokerkit_stacks(text, raked_by_pokerkit) == expected_stacks(hand), text
    assert showdowns > HANDS // 4 and raked > HANDS // 5


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


def pokerkit_agrees(hand: Hand, index: int) -> bool:
    """Whether PokerKit plays the hand's players' history to our stacks (no rake)."""
    text = render(hand, meta_for(hand, index), Audience.PLAYERS)
    try:
        return pokerkit_stacks(text, raked=False) == expected_stacks(hand)
    except (ValueError, KeyError):  # PokerKit's all-in model and rules (see README)
        return False


@pytest.mark.parametrize("variant", PHH_VARIANTS, ids=lambda v: PHH_CODES[v])
def test_pokerkit_reads_the_tabled_hands_back_r_all_in_face_up(variant: Variant) -> None:
    """R-ALL-IN-FACE-UP: short stacks, each hand played with the option on and off (same
    deck, same decisions). A tabled hand's ``sm`` lines (where it was tabled, and after
    each later down card) are PokerKit's all-in showdown and the showdowns of its
    run-out: every hand whose history PokerKit plays to our stacks with the option off
    it also plays to them with the option on, tabled hands and all."""
    rng = random.Random(f"pokerkit face up {variant.value}")
    table = Table(ante=5, bring_in=10, small_bet=20, big_bet=40, open_pair_big_bet=False)
    tabled = 0
    for index in range(150):
        stacks = [rng.randint(1, 150) for _ in range(random_players(rng, variant, most=6))]
        seed = rng.random()
        off = play_random_hand(random.Random(seed), variant, table, list(stacks))
        face_up = dataclasses.replace(table, all_in_face_up=True)
        on = play_random_hand(random.Random(seed), variant, face_up, list(stacks))
        assert on.moves == off.moves and on.stacks == off.stacks
        if on.tabled and pokerkit_agrees(off, index):
            assert pokerkit_agrees(on, index), render(on, meta_for(on, index), Audience.PLAYERS)
            tabled += 1
    assert tabled > 75
