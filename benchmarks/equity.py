"""Equity figures for ``make bench-eval``: Monte Carlo showdowns per second.

Ours: Seven Card Stud Monte Carlo through ``stud_equity`` (C loops, and the Python twin
on fewer samples). Next to it, in the same run, eval7's hold'em Monte Carlo
(``py_hand_vs_range_monte_carlo``, one hand against a one-hand range): also one
showdown of two seven-card hands per sample. Run alone: ``python -m
benchmarks.equity``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Any

from studengine.cards import parse_cards
from studengine.equity import BACKEND, stud_equity

SCENARIOS: list[tuple[str, list[str]]] = [
    ("heads-up, third street", ["As Ah Kd", "Qs"]),
    ("4 players, fifth street", ["As Ah Kd Kc 9s", "Qs Qd 2c", "7h 8h 9h", "Jc Tc 4d"]),
    (
        "8 players, third street (community card)",
        ["As Ah Kd", "Ks", "2c", "9d", "Tc", "Jh", "Qs", "8s"],
    ),
]


def best_time(call: Callable[[], Any], rounds: int) -> tuple[float, Any]:
    """The shortest of ``rounds`` runs and the last answer."""
    best, answer = float("inf"), None
    for _ in range(rounds):
        start = time.perf_counter()
        answer = call()
        best = min(best, time.perf_counter() - start)
    return best, answer


def ours(samples: int, backend: str, rounds: int) -> None:
    for title, known in SCENARIOS:
        players = [parse_cards(text) for text in known]
        street = max(len(p) for p in players)
        run = partial(
            stud_equity,
            players,
            variant="SEVEN_CARD_STUD",
            street=street,
            method="monte_carlo",
            samples=samples,
            seed=2026,
            backend=backend,
        )
        elapsed, result = best_time(run, rounds)
        hands = result.samples * len(players)
        print(
            f"    {backend:6} {title:42} {result.samples / elapsed / 1e6:7.3f} M showdowns/s "
            f"({hands / elapsed / 1e6:6.2f} M hands/s); hero {result.equity[0]:.4f} "
            f"+- {result.stderr[0]:.4f}"
        )


def eval7_holdem(iterations: int, rounds: int) -> None:
    try:
        import eval7
    except ImportError:
        print("    (eval7 not installed)")
        return
    hand = [eval7.Card("As"), eval7.Card("Ah")]
    villain: Any = eval7.HandRange("KsKh")
    run = partial(eval7.py_hand_vs_range_monte_carlo, hand, villain, [], iterations)
    elapsed, share = best_time(run, rounds)
    rate = iterations / elapsed
    print(
        f"    eval7  hold'em AsAh vs KsKh, preflop            {rate / 1e6:7.3f} M showdowns/s "
        f"({2 * rate / 1e6:6.2f} M hands/s); hero {share:.4f}"
    )


def run(samples: int = 300_000, rounds: int = 3) -> None:
    print(f"(c) equity Monte Carlo, showdowns per second (best of {rounds} runs)")
    if BACKEND == "c":
        ours(samples, "c", rounds)
    ours(max(samples // 100, 1000), "python", 1)
    eval7_holdem(samples, rounds)


if __name__ == "__main__":
    run()
