"""Poker hand evaluator: best five of 5, 6 or 7 cards, as one comparable int.

``evaluate(cards)`` returns a rank: a larger int beats a smaller one and equal ints tie
(standard high ranking, R-HAND-RANK: the ace plays low only in A-2-3-4-5, suits never
break a tie). A rank is ``category << 20`` plus the tie-breaking card ranks as 4-bit
nibbles, most significant first; all 2,598,960 five-card hands give 7,462 distinct ranks.

The work is done by the C extension ``_ceval`` when it is built (``BACKEND == "c"``),
else by the pure-Python twin ``_twin`` that gives the same numbers (``BACKEND ==
"python"``, with one warning at import). ``STUDENGINE_EVALUATOR=python`` forces the twin.
"""

from __future__ import annotations

import array
import enum
import importlib
import os
import warnings
from collections.abc import Callable, Sequence
from itertools import combinations

from studengine.evaluator import _twin

__all__ = [
    "BACKEND",
    "Category",
    "best_five",
    "category",
    "describe",
    "evaluate",
    "evaluate_many",
    "evaluate_mask",
]


class Category(enum.IntEnum):
    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8


evaluate: Callable[[Sequence[int]], int]
evaluate_mask: Callable[[int], int]
evaluate_many: Callable[[object, int], array.array[int]]

BACKEND: str
if os.environ.get("STUDENGINE_EVALUATOR", "").lower() == "python":
    BACKEND = "python"
else:
    try:
        _ceval = importlib.import_module("studengine.evaluator._ceval")
    except ImportError as exc:  # the extension was not built: the twin does the work
        warnings.warn(
            f"studengine.evaluator: C extension unavailable ({exc}); "
            "using the pure-Python evaluator",
            RuntimeWarning,
            stacklevel=2,
        )
        BACKEND = "python"
    else:
        BACKEND = "c"

if BACKEND == "c":
    evaluate = _ceval.evaluate
    evaluate_mask = _ceval.evaluate_mask
    evaluate_many = _ceval.evaluate_many
else:
    evaluate = _twin.evaluate
    evaluate_mask = _twin.evaluate_mask
    evaluate_many = _twin.evaluate_many

_NAMES: tuple[str, ...] = ("Two", "Three", "Four", "Five", "Six", "Seven", "Eight")
_NAMES += ("Nine", "Ten", "Jack", "Queen", "King", "Ace")
_PLURALS = tuple(name + ("es" if name == "Six" else "s") for name in _NAMES)
_TITLES = {
    Category.HIGH_CARD: "High Card",
    Category.PAIR: "One Pair",
    Category.TWO_PAIR: "Two Pair",
    Category.THREE_OF_A_KIND: "Three of a Kind",
    Category.STRAIGHT: "Straight",
    Category.FLUSH: "Flush",
    Category.FULL_HOUSE: "Full House",
    Category.FOUR_OF_A_KIND: "Four of a Kind",
    Category.STRAIGHT_FLUSH: "Straight Flush",
}
_valid_ranks: frozenset[int] | None = None


def _check_rank(rank: int) -> None:
    global _valid_ranks
    if _valid_ranks is None:
        _valid_ranks = _twin.valid_values()
    if rank not in _valid_ranks:
        raise ValueError(f"not a hand rank: {rank!r}")


def category(rank: int) -> Category:
    """The category of a rank returned by ``evaluate``."""
    _check_rank(rank)
    return Category(rank >> 20)


def describe(rank: int) -> str:
    """A readable name, "Category, detail": "Two Pair, Kings and Sevens", "One Pair, Sixes",
    "Full House, Aces over Tens", "Straight, Five High", "High Card, King"."""
    cat = category(rank)
    first, second = (rank >> 16) & 15, (rank >> 12) & 15
    title = _TITLES[cat]
    if cat in (Category.HIGH_CARD,):
        return f"{title}, {_NAMES[first]}"
    if cat in (Category.STRAIGHT, Category.FLUSH, Category.STRAIGHT_FLUSH):
        return f"{title}, {_NAMES[first]} High"
    if cat == Category.TWO_PAIR:
        return f"{title}, {_PLURALS[first]} and {_PLURALS[second]}"
    if cat == Category.FULL_HOUSE:
        return f"{title}, {_PLURALS[first]} over {_PLURALS[second]}"
    return f"{title}, {_PLURALS[first]}"


def best_five(cards: Sequence[int]) -> tuple[int, ...]:
    """The five cards forming the best hand, for showdown display.

    Grouped cards come first (the pair, trips or quads), then the rest by rank; a
    wheel shows its ace last. Among equal fives the higher cards are chosen.
    """
    target = evaluate(cards)  # also validates
    ordered = sorted(cards, reverse=True)
    best: tuple[int, ...] = ()
    for five in combinations(ordered, 5):
        if evaluate(five) == target:
            best = five  # combinations of a descending list: the first match is the highest
            break
    ranks = [c >> 2 for c in best]
    shown = sorted(best, key=lambda c: (ranks.count(c >> 2), c >> 2, c & 3), reverse=True)
    if target >> 20 in (Category.STRAIGHT, Category.STRAIGHT_FLUSH) and (target >> 16) & 15 == 3:
        shown = shown[1:] + shown[:1]  # the wheel: the ace plays low
    return tuple(shown)
