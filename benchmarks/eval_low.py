"""The low evaluators' figures for ``make bench-eval`` (R-LOW-A5, R-HILO-QUALIFY).

On the same pre-generated random hands, 7-card and 5-card: single calls per second from
Python of ``evaluate_low`` / ``evaluate_low8`` (C extension and pure-Python twin) next to
PokerKit's ``RegularLowHand`` (ace-to-five) and ``EightOrBetterLowHand``, the only
Python peer with low hand classes (``from_game`` picks the best five of seven; it
raises ValueError when no eight-or-better low exists, caught here as a user would);
then our batch calls and a plain C loop (our core compiled with gcc) over a million
hands. Run alone: ``python -m benchmarks.eval_low``.
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

from studengine import evaluator
from studengine.cards import format_cards
from studengine.evaluator import _twin

from benchmarks.eval import PlainLoop, best_rates, random_hands

Entries = dict[str, tuple[Callable[[], Any], int]]


def single_call_entries(hands: Sequence[Sequence[int]], slow: int, eight: bool) -> Entries:
    """name -> (a loop ranking each hand once, the number of hands it does)."""
    few = hands[:slow]
    entries: Entries = {}
    if evaluator.BACKEND == "c":
        ours = evaluator.evaluate_low8 if eight else evaluator.evaluate_low
        entries["studengine C"] = (lambda: [ours(h) for h in hands], len(hands))
    twin = _twin.evaluate_low8 if eight else _twin.evaluate_low
    entries["studengine twin"] = (lambda: [twin(h) for h in few], len(few))
    try:
        from pokerkit import Card, EightOrBetterLowHand, RegularLowHand
    except ImportError:
        print("  (pokerkit not installed)")
        return entries
    size = len(hands[0])
    pk = [tuple(Card.parse(format_cards(h).replace(" ", ""))) for h in hands[: max(slow // 5, 1)]]
    cls = EightOrBetterLowHand if eight else RegularLowHand
    make = cls if size == 5 else cls.from_game  # five cards: the constructor

    def pokerkit_loop() -> None:
        for cards in pk:
            with contextlib.suppress(ValueError):  # no eight-or-better low (or a pair of 5)
                make(cards)

    entries["pokerkit"] = (pokerkit_loop, len(pk))
    return entries


def batch_vs_plain(size: int, eight: bool, ours: float, plain: PlainLoop) -> None:
    hands = random_hands(1_000_000, size, seed=200 + size)
    buffer = bytes(c for h in hands for c in h)
    many = evaluator.evaluate_low8_many if eight else evaluator.evaluate_low_many
    name = "evaluate_low8_many" if eight else "evaluate_low_many"
    batch_best = plain_best = float("inf")
    checksum = 0
    for _ in range(5):  # in turns, best of each
        start = time.perf_counter()
        values = many(buffer, size)
        batch_best = min(batch_best, time.perf_counter() - start)
        if plain.program is not None:
            seconds, checksum = plain.run(buffer, size, 2, "2" if eight else "1")
            plain_best = min(plain_best, seconds)
    batch = len(hands) / batch_best
    print(f"    batch {name:18} {batch / 1e6:7.1f} M/s  {batch / ours:6.1f}x the single C call")
    if plain.program is not None:
        plain_rate = len(hands) / plain_best
        print(
            f"    plain C loop             {plain_rate / 1e6:7.1f} M/s  plain/batch = "
            f"{plain_rate / batch:.2f} (same values: {checksum == sum(values)})"
        )


def run(count: int = 100_000, slow: int = 10_000, rounds: int = 5) -> None:
    print(
        f"(d) lows: single calls from Python on the same random hands ({count:,}; "
        f"slow ones: the first {slow:,}); best of {rounds} passes taken in turns"
    )
    with tempfile.TemporaryDirectory() as tmp:
        plain = PlainLoop(tmp)
        for eight in (False, True):
            title = "eight-or-better low" if eight else "ace-to-five low"
            for size in (7, 5):
                hands = random_hands(count, size, seed=size)
                rates = best_rates(single_call_entries(hands, slow, eight), rounds)
                ours = rates.get("studengine C", rates["studengine twin"])
                print(f"  {title}, {size}-card hands     evals/s    ours (C) is x faster")
                for name, value in sorted(rates.items(), key=lambda kv: -kv[1]):
                    print(f"    {name:18} {value / 1e6:8.3f} M   {ours / value:7.2f}x")
                if evaluator.BACKEND == "c":
                    batch_vs_plain(size, eight, ours, plain)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000, help="hands for fast entries")
    parser.add_argument("--slow-hands", type=int, default=10_000, help="hands for slow ones")
    parser.add_argument("--rounds", type=int, default=5, help="passes per entry")
    args = parser.parse_args(argv)
    print(f"studengine evaluator backend: {evaluator.BACKEND}")
    run(args.hands, args.slow_hands, args.rounds)


if __name__ == "__main__":
    main()
