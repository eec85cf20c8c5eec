"""``make bench-engine``: random complete hands per second, ours next to PokerKit's.

Both engines play the same kind of hands in the same run: fixed-limit stud, ante 5,
bring-in 10, bets 20/40, stacks 1,000, every decision chosen uniformly at random among
the legal ones (a fresh shuffle per hand, the showdown evaluated), in each game: PokerKit's
``FixedLimitSevenCardStud``, ``FixedLimitRazz`` and
``FixedLimitSevenCardStudHighLowSplitEightOrBetter`` next to ours (PokerKit has no Five
Card Stud). ``make bench-engine`` installs PokerKit into .venv-bench.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from functools import partial

from studengine.rules.hand import start_hand
from studengine.rules.types import Table, Variant

TABLE = Table(ante=5, bring_in=10, small_bet=20, big_bet=40)
STACK = 1000
# PokerKit's class for each game it plays
POKERKIT_GAMES = {
    Variant.SEVEN_CARD_STUD: "FixedLimitSevenCardStud",
    Variant.RAZZ: "FixedLimitRazz",
    Variant.SEVEN_CARD_STUD_HI_LO: "FixedLimitSevenCardStudHighLowSplitEightOrBetter",
}


def table_of(variant: Variant) -> Table:
    """TABLE's stakes, the open-pair option at the game's default (off in Razz, Hi-Lo)."""
    return Table.for_game(variant, 5, 10, 20, 40)


def ours(variant: Variant, players: int, rng: random.Random) -> int:
    """Play one random hand; returns the number of actions taken."""
    deck = list(range(52))
    rng.shuffle(deck)
    hand, _ = start_hand(
        variant, table_of(variant), [STACK] * players, rng.randrange(players), deck
    )
    actions = 0
    while hand.to_act is not None:
        choice = rng.choice(hand.legal_actions())
        hand.act(hand.to_act, choice.type, choice.to)
        actions += 1
    return actions


def pokerkit_player(variant: Variant, players: int) -> Callable[[random.Random], int]:
    import pokerkit
    from pokerkit import Automation

    game = getattr(pokerkit, POKERKIT_GAMES[variant])

    automations = (
        Automation.ANTE_POSTING,
        Automation.BET_COLLECTION,
        Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING,
        Automation.HOLE_DEALING,
        Automation.BOARD_DEALING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )

    def play(rng: random.Random) -> int:
        state = game.create_state(
            automations,
            True,
            TABLE.ante,
            TABLE.bring_in,
            TABLE.small_bet,
            TABLE.big_bet,
            STACK,
            players,
        )
        actions = 0
        while state.status:
            options: list[Callable[[], object]] = []
            if state.can_post_bring_in():
                options.append(state.post_bring_in)
            if state.can_complete_bet_or_raise_to():
                options.append(state.complete_bet_or_raise_to)
            if state.can_check_or_call():
                options.append(state.check_or_call)
            # PokerKit also allows a fold where a check is free; our rules do not, so the
            # bench leaves it out and both engines choose among the same moves
            if state.can_fold() and state.checking_or_calling_amount:
                options.append(state.fold)
            if not options:
                break
            rng.choice(options)()
            actions += 1
        return actions

    return play


def measure(play: Callable[[random.Random], int], seconds: float) -> tuple[float, float]:
    """(hands per second, actions per hand) over about ``seconds``."""
    rng = random.Random(2026)
    hands = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(10):
            actions += play(rng)
        hands += 10
        now = time.perf_counter()
        if now >= deadline:
            return hands / (now - start), actions / hands


def side_by_side(
    plays: list[Callable[[random.Random], int]], seconds: float, rounds: int = 5
) -> list[tuple[float, float]]:
    """Interleave short slices of each contender and keep each one's best slice, so a
    busy machine slows them alike instead of skewing the ratio."""
    best = [(0.0, 0.0)] * len(plays)
    for _ in range(rounds):
        for index, play in enumerate(plays):
            rate, acts = measure(play, seconds / rounds)
            if rate > best[index][0]:
                best[index] = (rate, acts)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    args = parser.parse_args()
    try:
        import pokerkit  # noqa: F401

        have_pokerkit = True
    except ImportError:
        have_pokerkit = False
        print(
            "PokerKit is not installed (make bench-engine installs it into .venv-bench): ours only"
        )

    print(
        f"{'game':<22}{'players':>8}{'ours hands/s':>14}{'acts/hand':>11}"
        f"{'PokerKit hands/s':>18}{'acts/hand':>11}{'ratio':>8}"
    )
    for variant in Variant:
        for players in (2, 5, 8):
            plays: list[Callable[[random.Random], int]] = [partial(ours, variant, players)]
            if have_pokerkit and variant in POKERKIT_GAMES:
                plays.append(pokerkit_player(variant, players))
            (rate, acts), *theirs = side_by_side(plays, args.seconds)
            line = f"{variant.value:<22}{players:>8}{rate:>14,.0f}{acts:>11.1f}"
            for their_rate, their_acts in theirs:
                line += f"{their_rate:>18,.0f}{their_acts:>11.1f}{rate / their_rate:>7.1f}x"
            print(line, flush=True)


if __name__ == "__main__":
    main()
