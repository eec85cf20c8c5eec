"""Exhaustive checks (R-HAND-RANK): every five-card hand on the twin, C = twin on all of
them and on a million random seven-card hands, on six-card hands, and the seven-card
category counts."""

from __future__ import annotations

import random
from collections import Counter
from itertools import chain, combinations

import pytest
from studengine.evaluator import Category, _twin
from test_evaluator import c_extension

FIVE_CARD_COUNTS = {
    Category.STRAIGHT_FLUSH: 40,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3744,
    Category.FLUSH: 5108,
    Category.STRAIGHT: 10200,
    Category.THREE_OF_A_KIND: 54912,
    Category.TWO_PAIR: 123552,
    Category.PAIR: 1098240,
    Category.HIGH_CARD: 1302540,
}
DISTINCT_BY_CATEGORY = {
    Category.STRAIGHT_FLUSH: 10,
    Category.FOUR_OF_A_KIND: 156,
    Category.FULL_HOUSE: 156,
    Category.FLUSH: 1277,
    Category.STRAIGHT: 10,
    Category.THREE_OF_A_KIND: 858,
    Category.TWO_PAIR: 858,
    Category.PAIR: 2860,
    Category.HIGH_CARD: 1277,
}
SEVEN_CARD_COUNTS = [
    23_294_460,
    58_627_800,
    31_433_400,
    6_461_620,
    6_180_020,
    4_047_644,
    3_473_184,
    224_848,
    41_584,
]


def random_hands(n: int, size: int, seed: int) -> bytes:
    """``n`` random hands of ``size`` distinct cards, one byte per card (hands cut from
    shuffled decks, as many as a deck holds: fast, and every hand is uniform)."""
    rng = random.Random(seed)
    deck = list(range(52))
    per_deck = 52 // size
    chunks = []
    for _ in range(-(-n // per_deck)):
        rng.shuffle(deck)
        chunks.append(bytes(deck[: per_deck * size]))
    return b"".join(chunks)[: n * size]


@pytest.mark.slow
def test_all_five_card_hands_twin_counts_and_c_agreement() -> None:
    hands = list(combinations(range(52), 5))
    assert len(hands) == 2_598_960
    twin_values = [_twin.evaluate(hand) for hand in hands]
    by_category = Counter(Category(v >> 20) for v in twin_values)
    assert by_category == FIVE_CARD_COUNTS
    distinct = set(twin_values)
    assert len(distinct) == 7462
    assert Counter(Category(v >> 20) for v in distinct) == DISTINCT_BY_CATEGORY
    assert distinct == _twin.valid_values()
    buffer = bytes(chain.from_iterable(hands))
    assert _twin.evaluate_many(buffer[: 5 * 20000], 5).tolist() == twin_values[:20000]
    c = c_extension()
    assert c.evaluate_many(buffer, 5).tolist() == twin_values


@pytest.mark.slow
def test_c_and_twin_agree_on_a_million_seven_card_hands() -> None:
    c = c_extension()
    buffer = random_hands(1_000_000, 7, seed=2026)
    c_values = c.evaluate_many(buffer, 7)
    twin_values = [_twin.evaluate(buffer[i : i + 7]) for i in range(0, len(buffer), 7)]
    assert c_values.tolist() == twin_values
    assert len({v >> 20 for v in twin_values}) == 9  # every category met


def test_c_and_twin_agree_on_six_card_hands() -> None:
    c = c_extension()
    buffer = random_hands(200_000, 6, seed=6)
    assert c.evaluate_many(buffer, 6).tolist() == _twin.evaluate_many(buffer, 6).tolist()


@pytest.mark.slow
def test_all_seven_card_hands_category_counts_in_c() -> None:
    assert c_extension().count_categories_7() == SEVEN_CARD_COUNTS
