"""``make bench-engine``: random complete hands per second, ours next to PokerKit's.

The engines play the same kind of hands in the same run: fixed-limit stud, ante 5,
bring-in 10, bets 20/40, stacks 1,000, every decision chosen uniformly at random among
the legal ones (a fresh shuffle per hand, the showdown evaluated), in each game: PokerKit's
``FixedLimitSevenCardStud``, ``FixedLimitRazz`` and
``FixedLimitSevenCardStudHighLowSplitEightOrBetter`` next to ours (PokerKit has no Five
Card Stud). Ours runs twice: the compiled build (mypyc, this process) and its pure-Python
fallback (a child process with ``STUDENGINE_PURE=1``, measured in turn with the others).
``make bench-engine`` installs PokerKit into .venv-bench.

``--instructions N`` counts instructions per hand under callgrind instead (valgrind),
for each build and PokerKit, heads-up and eight-handed: the count of N hands less that of
none (both after the same warm-up hands), divided by N; unlike rates, unmoved by load.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial

from studengine import compiled
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


class PureChild:
    """The pure-Python build in a child process (``STUDENGINE_PURE=1``): it measures when
    asked, so its slices interleave with the others' like an in-process contender."""

    def __init__(self) -> None:
        env = {**os.environ, compiled.PURE_SWITCH: "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.engine", "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def player(self, variant: Variant, players: int) -> Callable[[float], tuple[float, float]]:
        def measured(seconds: float) -> tuple[float, float]:
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.write(f"{variant.value} {players} {seconds}\n")
            self.proc.stdin.flush()
            rate, acts = self.proc.stdout.readline().split()
            return float(rate), float(acts)

        return measured

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


def serve() -> None:
    """The child's loop: ``VARIANT PLAYERS SECONDS`` in, ``RATE ACTS`` out."""
    assert compiled.BUILD == "python"
    for line in sys.stdin:
        name, players, seconds = line.split()
        rate, acts = measure(partial(ours, Variant(name), int(players)), float(seconds))
        print(rate, acts, flush=True)


Measured = Callable[[float], tuple[float, float]]


def interleaved(contenders: list[Measured], seconds: float, rounds: int = 5) -> list[float]:
    """Each contender's best rate over ``rounds`` short slices taken in turn."""
    best = [0.0] * len(contenders)
    for _ in range(rounds):
        for index, contender in enumerate(contenders):
            best[index] = max(best[index], contender(seconds / rounds)[0])
    return best


def speed(seconds: float) -> None:
    have_pokerkit = True
    try:
        import pokerkit  # noqa: F401
    except ImportError:
        have_pokerkit = False
        print("PokerKit is not installed (make bench-engine installs it into .venv-bench)")
    two_builds = compiled.BUILD == "mypyc"
    if not two_builds:
        print("no compiled build here (a pure-Python install): the pure-Python engine only")
    child = PureChild() if two_builds else None
    ours_name = "mypyc" if two_builds else "pure"
    head = f"{'game':<22}{'players':>8}{'acts':>6}{ours_name + ' hands/s':>15}"
    if two_builds:
        head += f"{'pure hands/s':>14}{'mypyc/pure':>11}"
    if have_pokerkit:
        head += f"{'PokerKit':>10}{ours_name + '/PK':>10}" + (
            f"{'pure/PK':>9}" if two_builds else ""
        )
    print(head)
    try:
        for variant in Variant:
            for players in (2, 5, 8):
                acts = measure(partial(ours, variant, players), 0.2)[1]
                contenders: list[Measured] = [partial(measure, partial(ours, variant, players))]
                if child is not None:
                    contenders.append(child.player(variant, players))
                pk = have_pokerkit and variant in POKERKIT_GAMES
                if pk:
                    contenders.append(partial(measure, pokerkit_player(variant, players)))
                rates = interleaved(contenders, seconds)
                line = f"{variant.value:<22}{players:>8}{acts:>6.1f}{rates[0]:>15,.0f}"
                if child is not None:
                    line += f"{rates[1]:>14,.0f}{rates[0] / rates[1]:>10.2f}x"
                if pk:
                    theirs = rates[-1]
                    line += f"{theirs:>10,.0f}{rates[0] / theirs:>9.1f}x"
                    if child is not None:
                        line += f"{rates[1] / theirs:>8.1f}x"
                print(line, flush=True)
    finally:
        if child is not None:
            child.close()


WARM_UP = 30  # hands played before those counted (showdowns among them)
COUNTED = (Variant.SEVEN_CARD_STUD, Variant.RAZZ, Variant.SEVEN_CARD_STUD_HI_LO)


def play_hands(engine: str, variant: Variant, players: int, count: int) -> None:
    """``count`` seeded random hands (the callgrind run) after WARM_UP more that set up
    what is made on first use (the evaluator's tables)."""
    rng = random.Random(2026)
    random.seed(2026)  # PokerKit shuffles with the module's generator
    play = (
        pokerkit_player(variant, players)
        if engine == "pokerkit"
        else partial(ours, variant, players)
    )
    for _ in range(WARM_UP + count):
        play(rng)


def instructions(hands: int) -> None:
    """Instructions per hand under callgrind, each build and PokerKit: (count(N) -
    count(0)) / N, both counts after the same warm-up hands."""

    def count(engine: str, variant: Variant, players: int, how_many: int) -> int:
        env = {**os.environ, compiled.PURE_SWITCH: "1" if engine == "pure" else ""}
        env["PYTHONHASHSEED"] = "0"  # the same dict and set layouts in every run
        play = f"{engine}:{variant.value}:{players}:{how_many}"
        proc = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
             sys.executable, "-m", "benchmarks.engine", "--play", play],
            env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        found = re.search(r"Collected : (\d+)", proc.stderr)
        assert found, proc.stderr[-2000:]
        return int(found.group(1))

    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed: apt-get install valgrind")
    engines = ["mypyc", "pure"] if compiled.BUILD == "mypyc" else ["pure"]
    print(f"instructions per hand under callgrind ({hands} hands), ratios to PokerKit's")
    print(
        f"{'game':<22}{'players':>8}"
        + "".join(f"{name:>14}" for name in engines)
        + (f"{'PokerKit':>14}" + "".join(f"{name + '/PK':>10}" for name in engines))
    )
    for variant in COUNTED:
        for players in (2, 8):
            per_hand = [
                (count(engine, variant, players, hands) - count(engine, variant, players, 0))
                / hands
                for engine in [*engines, "pokerkit"]
            ]
            line = f"{variant.value:<22}{players:>8}" + "".join(f"{n:>14,.0f}" for n in per_hand)
            line += "".join(f"{per_hand[-1] / n:>9.1f}x" for n in per_hand[:-1])
            print(line, flush=True)


def conditions() -> str:
    """What a figure needs beside it: the commit, the time, the build and the load."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return f"commit {commit}, {now}, build {compiled.BUILD}, load average {load}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument(
        "--instructions", type=int, metavar="HANDS", help="callgrind instructions per hand"
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--play", help=argparse.SUPPRESS)  # ENGINE:VARIANT:PLAYERS:HANDS
    args = parser.parse_args()
    if args.serve:
        serve()
    elif args.play is not None:
        engine, variant, players, hands = args.play.split(":")
        play_hands(engine, Variant(variant), int(players), int(hands))
    else:
        print(conditions(), flush=True)
        if args.instructions:
            instructions(args.instructions)
        else:
            speed(args.seconds)
        print(f"at the end: {conditions()}")


if __name__ == "__main__":
    main()
