"""Poker hand evaluator: best five of 5, 6 or 7 cards, as one comparable int.

``evaluate(cards)`` returns a rank: a larger int beats a smaller one and equal ints tie
(standard high ranking, R-HAND-RANK: the ace plays low only in A-2-3-4-5, suits never
break a tie). A rank is ``category << 20`` plus the tie-breaking card ranks as 4-bit
nibbles, most significant first; all 2,598,960 five-card hands give 7,462 distinct ranks.

Lows, for Razz and Stud Hi-Lo, follow the same convention (a larger int is a better
low, equal ints tie); compare lows only with lows:

- ``evaluate_low(cards) -> int``: the ace-to-five low of the best five (R-LOW-A5: aces
  low, straights and flushes ignored, fewer and lower pairs better); 6,175 distinct
  values, all positive, ``describe_low`` names them ("7-6-4-3-A low").
- ``evaluate_low8(cards) -> int``: the eight-or-better low (R-HILO-QUALIFY: five
  distinct ranks, all 8 or lower), the same number as ``evaluate_low`` gives for it,
  or ``NO_LOW`` (0, below every low) when the cards make none; 56 distinct lows.
- ``evaluate_low_many`` / ``evaluate_low8_many(buffer, hand_size)``: the batch forms,
  like ``evaluate_many`` (one byte per card, an ``array('i')`` back; the C extension
  works without the GIL). ``best_five_low(cards)``: the five cards of the low.

Every entry point raises ValueError on bad input (not 5..7 distinct cards 0..51, a bad
buffer or hand size, a value that is no rank).

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
from typing import Any, Final

from studengine.evaluator import _twin

__all__ = [
    "BACKEND",
    "NO_LOW",
    "Category",
    "best_five",
    "best_five_low",
    "category",
    "category_name",
    "describe",
    "describe_low",
    "evaluate",
    "evaluate_low",
    "evaluate_low8",
    "evaluate_low8_many",
    "evaluate_low_many",
    "evaluate_many",
    "evaluate_mask",
    "low_category_name",
]

NO_LOW: Final = _twin.NO_LOW  # evaluate_low8's "no qualifying low"


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
evaluate_low: Callable[[Sequence[int]], int]
evaluate_low8: Callable[[Sequence[int]], int]
evaluate_low_many: Callable[[object, int], array.array[int]]
evaluate_low8_many: Callable[[object, int], array.array[int]]

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

_backend: Any = _ceval if BACKEND == "c" else _twin  # the two have the same functions
evaluate = _backend.evaluate
evaluate_mask = _backend.evaluate_mask
evaluate_many = _backend.evaluate_many
evaluate_low = _backend.evaluate_low
evaluate_low8 = _backend.evaluate_low8
evaluate_low_many = _backend.evaluate_low_many
evaluate_low8_many = _backend.evaluate_low8_many

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


def category_name(rank: int) -> str:
    """The title of a rank's category: "Two Pair", "High Card"."""
    return _TITLES[category(rank)]


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


_LOW_NAMES = "A23456789TJQK"  # by ace-to-five rank, ace lowest
# a low's category by its pairing: unpaired, then as in the high ranking
_LOW_CATEGORIES: tuple[str, ...] = ("Low", "One Pair", "Two Pair", "Three of a Kind")
_LOW_CATEGORIES += ("Full House", "Four of a Kind")
_LOW_TITLES = ("", *(name + ", " for name in _LOW_CATEGORIES[1:]))
# how many times each deciding rank of a low's badness is held, by its category
_LOW_SHAPES = ((1, 1, 1, 1, 1), (2, 1, 1, 1), (2, 2, 1), (3, 1, 1), (3, 2), (4, 1))
_valid_lows: frozenset[int] | None = None


def _low_ranks(value: int) -> tuple[int, ...]:
    """The five ace-to-five ranks (ace 0) of a low value, highest first."""
    global _valid_lows
    if _valid_lows is None:
        _valid_lows = _twin.valid_low_values()
    if value not in _valid_lows:
        raise ValueError(f"not an ace-to-five low value: {value!r}")
    badness = _twin.LOW_BASE - value
    shape = _LOW_SHAPES[badness >> 20]
    ranks = [(badness >> (16 - 4 * i)) & 15 for i in range(len(shape))]
    return tuple(
        sorted((r for r, n in zip(ranks, shape, strict=True) for _ in range(n)), reverse=True)
    )


def describe_low(value: int) -> str:
    """A low's name, its five ranks highest first, ace as "A": "8-5-4-3-2 low",
    "7-6-4-3-A low"; paired lows lead with the category: "One Pair, 8-6-6-4-A low".
    ``NO_LOW`` gives "No qualifying low"."""
    if value == NO_LOW and isinstance(value, int):
        return "No qualifying low"
    ranks = _low_ranks(value)
    title = _LOW_TITLES[(_twin.LOW_BASE - value) >> 20]
    return title + "-".join(_LOW_NAMES[r] for r in ranks) + " low"


def low_category_name(value: int) -> str:
    """A low's category: "Low" when unpaired, else its pairing ("One Pair", ... "Four of
    a Kind"); ``NO_LOW`` gives "No Low"."""
    if value == NO_LOW and isinstance(value, int):
        return "No Low"
    _low_ranks(value)  # validates
    return _LOW_CATEGORIES[(_twin.LOW_BASE - value) >> 20]


def best_five_low(cards: Sequence[int]) -> tuple[int, ...]:
    """The five cards forming the ace-to-five low (R-LOW-A5), for showdown display:
    highest first, so the ace comes last. Among equal fives the lower cards (by
    ace-to-five rank, then suit) are chosen."""
    target = evaluate_low(cards)  # also validates

    def low_order(card: int) -> tuple[int, int]:
        return ((card >> 2) + 1) % 13, card & 3

    ordered = sorted(cards, key=low_order)
    best = next(five for five in combinations(ordered, 5) if evaluate_low(five) == target)
    return tuple(sorted(best, key=low_order, reverse=True))
