"""Exhaustive checks (R-HAND-RANK, R-LOW-A5, R-HILO-QUALIFY): every five-card hand on the
twin, C = twin on all of them and on a million random seven-card hands, on six-card
hands, and the seven-card category counts; the same for the lows."""

from __future__ import annotations

import random
import subprocess
from collections import Counter
from itertools import chain, combinations, pairwise
from pathlib import Path

import pytest
from studengine.evaluator import NO_LOW, Category, _twin
from support.evaluator_cases import c_extension, reference_key
from support.paths import REPO, require_tool

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
def test_all_seven_card_hands_category_counts_in_c(tmp_path: Path) -> None:
    """benchmarks/enumerate7.c (the evaluator's C core over every seven-card hand, the
    benchmark's part (a)) finds the nine known category counts."""
    gcc = require_tool("gcc", "install a C compiler (Debian: apt-get install gcc)")
    program = tmp_path / "enumerate7"
    core = REPO / "service" / "studengine" / "evaluator"
    source = REPO / "benchmarks" / "enumerate7.c"
    subprocess.run([gcc, "-O3", "-std=c99", "-I", str(core), str(source), "-o", str(program)],
                   check=True)  # fmt: skip
    out = subprocess.run([str(program)], check=True, capture_output=True, text=True).stdout
    assert tuple(int(n) for n in out.split()) == tuple(SEVEN_CARD_COUNTS)


@pytest.mark.slow
def test_all_five_card_lows_twin_counts_and_c_agreement() -> None:
    """R-LOW-A5 and R-HILO-QUALIFY over all 2,598,960 five-card hands: 6,175 distinct
    ace-to-five values (one per multiset of ranks), 56 eight-or-better lows (one per
    five ranks of A..8), C = twin, and the values in the order of R-LOW-A5 read
    literally (test_evaluator_low.reference_key)."""
    hands = list(combinations(range(52), 5))
    twin_lows = [_twin.evaluate_low(hand) for hand in hands]
    distinct = set(twin_lows)
    assert len(distinct) == 6175
    assert distinct == _twin.valid_low_values()
    assert min(distinct) > NO_LOW
    twin_eights = [v if _twin.qualifies_low8(v) else NO_LOW for v in twin_lows]
    assert len(set(twin_eights) - {NO_LOW}) == 56
    assert twin_eights.count(NO_LOW) == 2_598_960 - 56 * 4**5
    buffer = bytes(chain.from_iterable(hands))
    assert _twin.evaluate_low8_many(buffer[: 5 * 20000], 5).tolist() == twin_eights[:20000]
    c = c_extension()
    assert c.evaluate_low_many(buffer, 5).tolist() == twin_lows
    assert c.evaluate_low8_many(buffer, 5).tolist() == twin_eights
    by_key: dict[object, int] = {}
    for hand, value in zip(hands, twin_lows, strict=True):
        assert by_key.setdefault(reference_key(hand), value) == value
    ordered = [by_key[k] for k in sorted(by_key)]
    assert all(a > b for a, b in pairwise(ordered))


@pytest.mark.slow
def test_c_and_twin_lows_agree_on_a_million_seven_card_hands() -> None:
    c = c_extension()
    buffer = random_hands(1_000_000, 7, seed=2027)
    c_lows = c.evaluate_low_many(buffer, 7).tolist()
    twin_lows = [_twin.evaluate_low(buffer[i : i + 7]) for i in range(0, len(buffer), 7)]
    assert c_lows == twin_lows
    c_eights = c.evaluate_low8_many(buffer, 7).tolist()
    assert c_eights == [v if _twin.qualifies_low8(v) else NO_LOW for v in twin_lows]
    assert len(set(c_eights)) == 57  # every eight-or-better low met, and NO_LOW
    # seven cards always make a low better than trips or quads (three ranks held seven
    # times pair two of them; two ranks make a full house): the other shapes all occur
    assert {(_twin.LOW_BASE - v) >> 20 for v in c_lows} == {0, 1, 2, 4}


def test_c_and_twin_lows_agree_on_six_card_hands() -> None:
    c = c_extension()
    buffer = random_hands(200_000, 6, seed=7)
    assert c.evaluate_low_many(buffer, 6).tolist() == _twin.evaluate_low_many(buffer, 6).tolist()
    c_eights = c.evaluate_low8_many(buffer, 6).tolist()
    assert c_eights == _twin.evaluate_low8_many(buffer, 6).tolist()
