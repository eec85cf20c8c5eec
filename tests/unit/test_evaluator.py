"""Evaluator: known hands (R-HAND-RANK, R-SUITS: suits never break a tie), names, best
five, bad input, batch = single, on both backends."""

from __future__ import annotations

import array
import importlib
import random
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import pytest
from studengine import evaluator
from studengine.cards import parse_cards
from studengine.evaluator import Category, _twin
from support.evaluator_cases import BAD_BATCHES, BAD_HANDS, c_extension, stable_id


@pytest.fixture(params=["c", "python"])
def backend(request: pytest.FixtureRequest) -> Any:
    return c_extension() if request.param == "c" else _twin


def ev(backend: Any, text: str) -> int:
    result: int = backend.evaluate(parse_cards(text))
    return result


def test_backend_is_c_when_built() -> None:
    c_extension()
    assert evaluator.BACKEND == "c"
    assert evaluator.evaluate is c_extension().evaluate


def reimport_evaluator() -> ModuleType:
    """A fresh import of studengine.evaluator; the caller restores the original."""
    sys.modules.pop("studengine.evaluator", None)
    return importlib.import_module("studengine.evaluator")


def test_missing_extension_falls_back_to_twin_with_one_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import studengine

    monkeypatch.setitem(sys.modules, "studengine.evaluator", evaluator)
    monkeypatch.setattr(studengine, "evaluator", evaluator)
    monkeypatch.setitem(sys.modules, "studengine.evaluator._ceval", None)  # import fails
    monkeypatch.delenv("STUDENGINE_EVALUATOR", raising=False)
    with pytest.warns(RuntimeWarning, match="pure-Python") as record:
        fallback = reimport_evaluator()
    assert len(record) == 1
    assert fallback.BACKEND == "python"
    assert fallback.evaluate is _twin.evaluate
    assert fallback.evaluate_low is _twin.evaluate_low
    assert fallback.evaluate_low8_many is _twin.evaluate_low8_many
    assert fallback.evaluate(parse_cards("As Ks Qs Js Ts")) == ev(_twin, "Ah Kh Qh Jh Th")
    monkeypatch.setenv("STUDENGINE_EVALUATOR", "python")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # forcing the twin is not worth a warning
        assert reimport_evaluator().BACKEND == "python"


def test_categories_of_known_hands(backend: Any) -> None:
    cases = {
        "As Ks Qs Js Ts": Category.STRAIGHT_FLUSH,
        "5d 4d 3d 2d Ad": Category.STRAIGHT_FLUSH,
        "9c 9d 9h 9s 2c": Category.FOUR_OF_A_KIND,
        "Tc Td Th 4s 4c": Category.FULL_HOUSE,
        "Kh 9h 7h 4h 2h": Category.FLUSH,
        "5c 4d 3h 2s Ac": Category.STRAIGHT,
        "Ac Kd Qh Js Tc": Category.STRAIGHT,
        "7c 7d 7h Ks 2c": Category.THREE_OF_A_KIND,
        "Kc Kd 7h 7s 2c": Category.TWO_PAIR,
        "Kc Kd 7h 5s 2c": Category.PAIR,
        "Kc Jd 7h 5s 2c": Category.HIGH_CARD,
    }
    for text, expected in cases.items():
        assert evaluator.category(ev(backend, text)) == expected, text


def test_straights_wheel_and_steel_wheel(backend: Any) -> None:
    wheel = ev(backend, "Ac 2d 3h 4s 5c")
    six_high = ev(backend, "2d 3h 4s 5c 6d")
    broadway = ev(backend, "Ac Kd Qh Js Tc")
    king_high = ev(backend, "9c Kd Qh Js Tc")
    assert wheel < six_high < king_high < broadway
    assert ev(backend, "Ac Ad Ah Kc Qd") < wheel < ev(backend, "Ac Ad Kh Qs Js Ts 9c")
    assert ev(backend, "Ac Kd Qh Js 2c") < wheel  # no wrap-around straight: ace high only
    steel = ev(backend, "Ah 2h 3h 4h 5h")
    assert ev(backend, "Ac Ad Ah As Kc") < steel < ev(backend, "2h 3h 4h 5h 6h")
    assert steel < ev(backend, "Ah Kh Qh Jh Th")
    assert ev(backend, "Ah 2h 3h 4h 5h 6h Kc") == ev(backend, "2s 3s 4s 5s 6s")


def test_full_house_ordering(backend: Any) -> None:
    assert ev(backend, "Kc Kd Kh Ac Ad") < ev(backend, "Ac Ad Ah 2c 2d")
    assert ev(backend, "3c 3d 3h 2c 2d") > ev(backend, "2c 2d 2h Ac Ad")
    assert ev(backend, "Ac Ad Ah Kc Kd") > ev(backend, "Ac Ad Ah Qc Qd")
    # two trips in seven cards: the higher trips over a pair of the lower
    assert ev(backend, "9c 9d 9h 4c 4d 4h 2s") == ev(backend, "9c 9d 9h 4c 4d")
    assert ev(backend, "Ac Ad Ah Ks Kd Qh Qs") == ev(backend, "As Ad Ah Kh Kc")


def test_kickers_and_suits_never_break_ties(backend: Any) -> None:
    assert ev(backend, "Ac Kd Qh Jc 9s") > ev(backend, "Ac Kd Qh Jc 8s")
    assert ev(backend, "Ac Kd Qh Jc 9s") == ev(backend, "As Kh Qd Js 9c")
    assert ev(backend, "7c 7d Ah 5c 3s") > ev(backend, "7h 7s Kh Qc Js")
    assert ev(backend, "7c 7d Ah 5c 4s") > ev(backend, "7h 7s Ad 5d 3c")
    assert ev(backend, "Kc Kd 7h 7s Ac") > ev(backend, "Kh Ks 7c 7d Qc")
    assert ev(backend, "Kc Kd 7h 7s Ac") == ev(backend, "Kh Ks 7c 7d Ad")
    assert ev(backend, "9c 9d 9h As 2c") > ev(backend, "9c 9d 9h Ks Qc")
    assert ev(backend, "Ah Th 8h 6h 4h") > ev(backend, "Ac Tc 8c 6c 3c")
    assert ev(backend, "Ah Th 8h 6h 4h") == ev(backend, "As Ts 8s 6s 4s")
    assert ev(backend, "Qc Qd Qh Qs 3c") > ev(backend, "Qc Qd Qh Qs 2d")
    # three pairs: the best two plus the best kicker, which may come from the third pair
    assert ev(backend, "Kc Kd 7h 7s 5c 5d 2h") == ev(backend, "Kh Ks 7c 7d 5s")
    assert ev(backend, "Kc Kd 7h 7s 5c 5d Ah") > ev(backend, "Kh Ks 7c 7d 5s 5h Qc")


def test_best_of_seven_and_six(backend: Any) -> None:
    assert ev(backend, "2c 3d 4h 5s 7c 9d Kh") == ev(backend, "Kh 9d 7c 5s 4h")
    assert ev(backend, "2h 4h 6h 8h Th Ac Ad") == ev(backend, "2h 4h 6h 8h Th")  # flush > pair
    assert ev(backend, "2h 4h 6h 8h 5h 3h 7c") == ev(backend, "2s 3s 4s 5s 6s")  # not 8-high
    assert ev(backend, "2h 4h 6h 8h 5h 3h") == ev(backend, "2h 3h 4h 5h 6h")


def test_evaluate_mask_matches_evaluate(backend: Any) -> None:
    rng = random.Random(11)
    for n in (5, 6, 7):
        for _ in range(500):
            cards = rng.sample(range(52), n)
            mask = sum(1 << c for c in cards)
            assert backend.evaluate_mask(mask) == backend.evaluate(cards)


def test_evaluate_many_equals_evaluate(backend: Any) -> None:
    rng = random.Random(12)
    for n in (5, 6, 7):
        hands = [rng.sample(range(52), n) for _ in range(3000)]
        flat = [c for hand in hands for c in hand]
        expected = [backend.evaluate(hand) for hand in hands]
        for buffer in (
            bytes(flat),
            bytearray(flat),
            array.array("B", flat),
            memoryview(bytes(flat)),
        ):
            result = backend.evaluate_many(buffer, n)
            assert isinstance(result, array.array)
            assert result.tolist() == expected
    assert backend.evaluate_many(b"", 7).tolist() == []


def test_single_call_accepts_sequences(backend: Any) -> None:
    cards = parse_cards("As Kd 9h 9c 2s 3d")
    value = backend.evaluate(cards)
    assert backend.evaluate(tuple(cards)) == value
    assert backend.evaluate(bytes(cards)) == value
    assert backend.evaluate(range(5)) == backend.evaluate([0, 1, 2, 3, 4])


@pytest.mark.parametrize("hand", BAD_HANDS, ids=stable_id)
def test_evaluate_rejects_bad_hands(backend: Any, hand: object) -> None:
    with pytest.raises(ValueError):
        backend.evaluate(hand)


@pytest.mark.parametrize(
    "mask",
    [0, 0b1111, (1 << 8) - 1, (1 << 52) | 0b1111, 1 << 60 | 0b11111, -1, -31, 2**80, "x", None],
    ids=stable_id,
)
def test_evaluate_mask_rejects_bad_masks(backend: Any, mask: object) -> None:
    with pytest.raises(ValueError):
        backend.evaluate_mask(mask)


@pytest.mark.parametrize(("buffer", "hand_size"), BAD_BATCHES, ids=stable_id)
def test_evaluate_many_rejects_bad_input(backend: Any, buffer: object, hand_size: object) -> None:
    with pytest.raises(ValueError):
        backend.evaluate_many(buffer, hand_size)


def test_evaluate_many_names_the_bad_hand(backend: Any) -> None:
    with pytest.raises(ValueError, match="hand 1"):
        backend.evaluate_many(bytes([0, 1, 2, 3, 4, 0, 1, 2, 3, 3]), 5)


def test_describe() -> None:
    def name(text: str) -> str:
        return evaluator.describe(evaluator.evaluate(parse_cards(text)))

    assert name("Kc Kd 7h 7s 2c") == "Two Pair, Kings and Sevens"
    assert name("Ac Ad Ah Tc Td 2s 3s") == "Full House, Aces over Tens"
    assert name("Ac 2d 3h 4s 5c Kd") == "Straight, Five High"
    assert name("Ah Th 8h 6h 4h") == "Flush, Ace High"
    assert name("Kc Jd 7h 5s 2c") == "High Card, King"
    assert name("6c 6d 7h 5s 2c") == "One Pair, Sixes"
    assert name("7c 7d 7h Ks 2c") == "Three of a Kind, Sevens"
    assert name("9c 9d 9h 9s 2c") == "Four of a Kind, Nines"
    assert name("Ah 2h 3h 4h 5h") == "Straight Flush, Five High"
    assert name("Ah Kh Qh Jh Th") == "Straight Flush, Ace High"
    for text, title in [("Kc Kd 7h 7s 2c", "Two Pair"), ("Kc Jd 7h 5s 2c", "High Card")]:
        rank = evaluator.evaluate(parse_cards(text))
        assert evaluator.category_name(rank) == title == name(text).split(",")[0]


def test_category_and_describe_reject_non_ranks() -> None:
    for bad in (-1, 0, 1, 9 << 20, (5 << 20) | 0x43210, (8 << 20) | (2 << 16)):
        with pytest.raises(ValueError):
            evaluator.category(bad)
        with pytest.raises(ValueError):
            evaluator.describe(bad)
        with pytest.raises(ValueError):
            evaluator.category_name(bad)


def show(cards: Sequence[int]) -> str:
    from studengine.cards import format_cards

    return format_cards(cards)


def test_best_five() -> None:
    def best(text: str) -> str:
        return show(evaluator.best_five(parse_cards(text)))

    assert best("Kc 2d Kh 7s 7c 9d 3s") == "Kh Kc 7s 7c 9d"
    assert best("Ac 2d 3h 4s 5c Kd Qd") == "5c 4s 3h 2d Ac"
    assert best("Ah 2h 3h 4h 5h 6h Kc") == "6h 5h 4h 3h 2h"
    assert best("9c 9d 9h 4c 4d 4h 2s") == "9h 9d 9c 4h 4d"
    assert best("Ah Th 8h 6h 4h 2h Kc") == "Ah Th 8h 6h 4h"
    assert best("Qs Jd 8c 5h 3c") == "Qs Jd 8c 5h 3c"
    for text in ("Kc 2d Kh 7s 7c 9d 3s", "Ac Ad Ah Kc Kd Qh"):
        cards = parse_cards(text)
        assert evaluator.evaluate(evaluator.best_five(cards)) == evaluator.evaluate(cards)
    with pytest.raises(ValueError):
        evaluator.best_five([1, 2, 3, 4])


def test_twin_and_c_agree_on_random_hands() -> None:
    c = c_extension()
    rng = random.Random(13)
    for n in (5, 6, 7):
        for _ in range(5000):
            cards = rng.sample(range(52), n)
            assert c.evaluate(cards) == _twin.evaluate(cards), cards
