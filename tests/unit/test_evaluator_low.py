"""Lows: ace-to-five (R-LOW-A5) and the eight-or-better qualifier (R-HILO-QUALIFY) on both
backends: the rulebook's orderings, best of six and seven against an independent
reference, names, best five, batch = single, bad input, and PokerKit's low hands."""

from __future__ import annotations

import array
import random
from collections.abc import Sequence
from itertools import combinations, pairwise
from typing import Any

import pytest
from studengine import evaluator
from studengine.cards import format_cards, parse_cards
from studengine.evaluator import NO_LOW, _twin
from support.evaluator_cases import BAD_BATCHES, BAD_HANDS, c_extension, reference_key, stable_id


@pytest.fixture(params=["c", "python"])
def backend(request: pytest.FixtureRequest) -> Any:
    return c_extension() if request.param == "c" else _twin


def low(backend: Any, text: str) -> int:
    value: int = backend.evaluate_low(parse_cards(text))
    return value


def low8(backend: Any, text: str) -> int:
    value: int = backend.evaluate_low8(parse_cards(text))
    return value


def reference_best(cards: Sequence[int]) -> tuple[int, ...]:
    """The five of the cards with the best reference key."""
    return min(combinations(cards, 5), key=reference_key)


def test_rulebook_orderings(backend: Any) -> None:
    """R-LOW-A5: 6-4-3-2-A beats 6-5-3-2-A; 5-4-3-2-A is the best low; no pair beats one
    pair beats two pair beats trips (then full house, quads); straights and flushes do
    not count; suits never break a tie."""
    assert low(backend, "6c 4d 3h 2s Ac") > low(backend, "6c 5d 3h 2s Ac")
    wheel = low(backend, "5c 4d 3h 2s Ac")
    assert wheel == max(_twin.valid_low_values())
    assert wheel == low(backend, "5h 4h 3h 2h Ah")  # a straight flush is just 5-4-3-2-A
    assert low(backend, "8c 7d 6h 5s 4c") > low(backend, "8c 7d 6h 5s 5c")  # a straight
    king_high = low(backend, "Kc Qd Jh Ts 8c")
    pair = low(backend, "Ac Ad 2h 3s 4c")
    two_pair = low(backend, "Ac Ad 2h 2s 3c")
    trips = low(backend, "Ac Ad Ah 2s 3c")
    full_house = low(backend, "Ac Ad Ah 2s 2c")
    quads = low(backend, "Ac Ad Ah As 2c")
    assert king_high > pair > two_pair > trips > full_house > quads > 0
    assert low(backend, "Kc Kd Qh Js Tc") < pair  # lower pairs beat higher ones
    assert low(backend, "2c 2d 7h 6s 5c") > low(backend, "3c 3d 4h 2s Ac")
    assert low(backend, "3c 3d 2h 2s 4c") > low(backend, "4c 4d 2h 2s Ac")  # higher pair first
    assert low(backend, "7c 6d 4h 3s 2c") == low(backend, "7s 6h 4d 3c 2d")  # suits
    assert low(backend, "8c 6d 4h 3s 2c") < low(backend, "8d 5d 4d 3d 2d")  # flush ignored
    assert low(backend, "Ts 9s 8s 7s 6s") == low(backend, "Tc 9d 8h 7s 6c")


def test_best_five_of_six_and_seven(backend: Any) -> None:
    """R-LOW-A5: from six or seven cards the best five count."""
    assert low(backend, "Kc Kd 5h 4s 3c 2d Ac") == low(backend, "5h 4s 3c 2d Ac")
    assert low(backend, "Ac Ad 2h 2s 3c 3d 4h") == low(backend, "Ac Ad 2h 3c 4h")
    assert low(backend, "Ac Ad Ah 2s 2c 2d") == low(backend, "Ac Ad Ah 2s 2c")  # full house
    assert low(backend, "Ac Ad Ah As 2c 2d 2h") == low(backend, "Ac Ad Ah 2s 2c")
    assert low(backend, "Ac Ad Ah As Kc Kd") == low(backend, "Ac Ad Ah Kc Kd")  # not quads
    rng = random.Random(21)
    for n in (6, 7):
        for _ in range(1500):
            cards = rng.sample(range(52), n)
            assert backend.evaluate_low(cards) == backend.evaluate_low(reference_best(cards))


def test_values_follow_the_reference_order(backend: Any) -> None:
    """Over random five-card hands, a larger value is exactly a better reference key."""
    rng = random.Random(22)
    ranks = list(range(52))
    hands = [rng.sample(ranks, 5) for _ in range(2000)]
    hands += [rng.sample(ranks[:28], 5) for _ in range(2000)]  # 2..8 only: many pairs
    by_key = {reference_key(h): backend.evaluate_low(h) for h in hands}
    values = [by_key[k] for k in sorted(by_key)]
    assert all(a > b for a, b in pairwise(values))


def test_eight_or_better_qualifier(backend: Any) -> None:
    """R-HILO-QUALIFY: five different ranks, all 8 or lower, the ace low; ranked by
    R-LOW-A5, with the value evaluate_low gives; NO_LOW (0) when none qualifies."""
    assert low8(backend, "8c 7d 6h 5s 4c") == low(backend, "8c 7d 6h 5s 4c") > NO_LOW
    assert low8(backend, "5c 4d 3h 2s Ac") == low(backend, "5c 4d 3h 2s Ac")
    assert low8(backend, "9c 4d 3h 2s Ac") == NO_LOW
    assert low8(backend, "8c 8d 3h 2s Ac") == NO_LOW  # a pair: four ranks only
    assert low8(backend, "Kc 8d 7h 6s 5c 4c Kd") == low(backend, "8d 7h 6s 5c 4c")
    assert low8(backend, "Ac Ad 2h 2s 3c 3d 4h") == NO_LOW  # seven cards, four ranks
    assert low8(backend, "Ac Ad 2h 2s 3c 4d 5h") == low(backend, "Ac 2h 3c 4d 5h")
    assert low8(backend, "Ac 2h 3c 4d 5h 6s 7s") == low(backend, "Ac 2h 3c 4d 5h")
    assert low8(backend, "Kc Qd 8h 7s 6c 5d 4h") > low8(backend, "Kc Qd 8h 7s 6c 5d 9h")
    assert low8(backend, "8c 6d 4h 3s 2c") > low8(backend, "8c 6d 5h 3s 2c")
    rng = random.Random(23)
    for _ in range(2000):
        cards = rng.sample(range(52), rng.choice((5, 6, 7)))
        best = reference_best(cards)
        shape, ranks = reference_key(best)
        qualifies = shape == (1, 1, 1, 1, 1) and ranks[0] <= 8
        value = backend.evaluate_low8(cards)
        assert value == (backend.evaluate_low(cards) if qualifies else NO_LOW), cards


def test_batch_equals_single(backend: Any) -> None:
    rng = random.Random(24)
    for n in (5, 6, 7):
        hands = [rng.sample(range(52), n) for _ in range(2000)]
        flat = [c for hand in hands for c in hand]
        lows = [backend.evaluate_low(hand) for hand in hands]
        eights = [backend.evaluate_low8(hand) for hand in hands]
        assert any(eights) and NO_LOW in eights
        for buffer in (
            bytes(flat),
            bytearray(flat),
            array.array("B", flat),
            memoryview(bytes(flat)),
        ):
            result = backend.evaluate_low_many(buffer, n)
            assert isinstance(result, array.array) and result.tolist() == lows
            assert backend.evaluate_low8_many(buffer, n).tolist() == eights
    assert backend.evaluate_low_many(b"", 5).tolist() == []
    assert backend.evaluate_low8_many(b"", 7).tolist() == []


def test_c_and_twin_agree_on_random_hands() -> None:
    c = c_extension()
    rng = random.Random(25)
    for n in (5, 6, 7):
        for _ in range(5000):
            cards = rng.sample(range(52), n)
            assert c.evaluate_low(cards) == _twin.evaluate_low(cards), cards
            assert c.evaluate_low8(cards) == _twin.evaluate_low8(cards), cards


@pytest.mark.parametrize("name", ["evaluate_low", "evaluate_low8"])
@pytest.mark.parametrize("hand", BAD_HANDS, ids=stable_id)
def test_single_calls_reject_bad_hands(backend: Any, name: str, hand: object) -> None:
    with pytest.raises(ValueError):
        getattr(backend, name)(hand)


@pytest.mark.parametrize("name", ["evaluate_low_many", "evaluate_low8_many"])
@pytest.mark.parametrize(("buffer", "hand_size"), BAD_BATCHES, ids=stable_id)
def test_batches_reject_bad_input(
    backend: Any, name: str, buffer: object, hand_size: object
) -> None:
    with pytest.raises(ValueError):
        getattr(backend, name)(buffer, hand_size)


def test_batches_name_the_bad_hand(backend: Any) -> None:
    for name in ("evaluate_low_many", "evaluate_low8_many"):
        with pytest.raises(ValueError, match="hand 1"):
            getattr(backend, name)(bytes([0, 1, 2, 3, 4, 0, 1, 2, 3, 3]), 5)


def test_public_api_uses_the_c_extension() -> None:
    c = c_extension()
    assert evaluator.evaluate_low is c.evaluate_low
    assert evaluator.evaluate_low8 is c.evaluate_low8
    assert evaluator.evaluate_low_many is c.evaluate_low_many
    assert evaluator.evaluate_low8_many is c.evaluate_low8_many


def test_describe_low() -> None:
    def name(text: str) -> str:
        return evaluator.describe_low(evaluator.evaluate_low(parse_cards(text)))

    assert name("8s 5d 4h 3s 2c Kd Kh") == "8-5-4-3-2 low"
    assert name("7s 6d 4h 3s Ac") == "7-6-4-3-A low"
    assert name("5c 4d 3h 2s Ac") == "5-4-3-2-A low"
    assert name("Kc Qd Jh Ts 9c") == "K-Q-J-T-9 low"
    assert name("8s 6d 6h 4s Ac") == "One Pair, 8-6-6-4-A low"
    assert name("Kc Kd 7s 7h 2c") == "Two Pair, K-K-7-7-2 low"
    assert name("9c 9d 9s 5h Ac") == "Three of a Kind, 9-9-9-5-A low"
    assert name("9c 9d 9s 5h 5c 5d") == "Full House, 9-9-5-5-5 low"
    assert name("4c 4d 4s 4h Kc") == "Four of a Kind, K-4-4-4-4 low"
    assert evaluator.describe_low(NO_LOW) == "No qualifying low"
    eight = evaluator.evaluate_low8(parse_cards("Kc 8d 7h 6s 5c 4c Kd"))
    assert evaluator.describe_low(eight) == "8-7-6-5-4 low"


def test_low_category_name_is_the_pairing_of_every_low() -> None:
    """HandValue.category of a low: "Low" unpaired, its pairing as the description
    leads with it, "No Low" for no qualifying low."""
    for value in _twin.valid_low_values():
        head, comma, _ = evaluator.describe_low(value).partition(", ")
        assert evaluator.low_category_name(value) == (head if comma else "Low")
    assert evaluator.low_category_name(NO_LOW) == "No Low"
    assert evaluator.low_category_name(evaluator.evaluate_low(parse_cards("8s 6d 6h 4s Ac"))) == (
        "One Pair"
    )


@pytest.mark.parametrize(
    "value",
    [-1, 1, 0x5FFFFF, 0x5BCDEF + 1, evaluator.evaluate(parse_cards("As Ks Qs Js Ts")), "x", None],
    ids=stable_id,
)
def test_describe_low_rejects_non_lows(value: object) -> None:
    with pytest.raises(ValueError):
        evaluator.describe_low(value)  # type: ignore[arg-type]
    if value is not None:  # None is no low to name, but not NO_LOW either
        with pytest.raises(ValueError):
            evaluator.low_category_name(value)  # type: ignore[arg-type]


def test_best_five_low() -> None:
    def best(text: str) -> str:
        return format_cards(evaluator.best_five_low(parse_cards(text)))

    assert best("Kc 5d 4h 3s 2c Ad Kh") == "5d 4h 3s 2c Ad"
    assert best("Ac Ad 2h 2s 3c 3d 4h") == "4h 3c 2h Ad Ac"
    assert best("8s 8d 7h 7c 6s 6d Kc") == "Kc 8d 7c 6s 6d"
    for text in ("Kc 2d Kh 7s 7c 9d 3s", "Ac Ad Ah Kc Kd Qh"):
        cards = parse_cards(text)
        assert evaluator.evaluate_low(evaluator.best_five_low(cards)) == evaluator.evaluate_low(
            cards
        )
    with pytest.raises(ValueError):
        evaluator.best_five_low([1, 2, 3, 4])


def test_pokerkit_low_hands_agree() -> None:
    """PokerKit's RegularLowHand (ace-to-five) and EightOrBetterLowHand order random hands
    as we do, and find no eight-or-better low exactly when we give NO_LOW."""
    pokerkit = pytest.importorskip("pokerkit", reason="pip install -e '.[bench]'")
    rng = random.Random(26)
    deck = list(range(52))

    def pk(cls: Any, cards: Sequence[int]) -> Any:
        try:
            return cls.from_game(pokerkit.Card.parse(format_cards(cards).replace(" ", "")))
        except ValueError:
            return None

    for _ in range(1500):
        size = rng.choice((5, 6, 7))
        pool = deck if rng.random() < 0.5 else deck[:32]  # 2..9 only: pairs and trips
        a, b = rng.sample(pool, size), rng.sample(pool, size)
        ours = evaluator.evaluate_low(a), evaluator.evaluate_low(b)
        theirs = pk(pokerkit.RegularLowHand, a), pk(pokerkit.RegularLowHand, b)
        assert (ours[0] > ours[1], ours[0] == ours[1]) == (
            theirs[0] > theirs[1],
            theirs[0] == theirs[1],
        ), (format_cards(a), format_cards(b))
        ours8 = evaluator.evaluate_low8(a), evaluator.evaluate_low8(b)
        theirs8 = pk(pokerkit.EightOrBetterLowHand, a), pk(pokerkit.EightOrBetterLowHand, b)
        assert [v == NO_LOW for v in ours8] == [h is None for h in theirs8]
        if theirs8[0] is not None and theirs8[1] is not None:
            assert (ours8[0] > ours8[1], ours8[0] == ours8[1]) == (
                theirs8[0] > theirs8[1],
                theirs8[0] == theirs8[1],
            )
