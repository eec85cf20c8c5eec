"""Equity of Razz (R-RAZZ-SHOWDOWN: the best ace-to-five low wins) and Seven Card Stud
Hi-Lo (R-HILO-SPLIT, R-HILO-QUALIFY: high and eight-or-better low halves, scoops): exact
= an independent brute force, scoops and halves counted, Monte Carlo within 3 standard
errors, the C loops = the Python twin, the showdown parameter and bad input."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations
from typing import Any

import pytest
from studengine.cards import parse_cards
from studengine.equity import EquityResult, Showdown, stud_equity
from studengine.equity import _twin as equity_twin
from studengine.evaluator import _twin
from support.evaluator_cases import c_extension


def qualifying_low(cards: Sequence[int]) -> int | None:
    """R-HILO-QUALIFY read literally: five different ranks, all 8 or lower (ace low),
    ranked by R-LOW-A5 (then the best low is made of them); None otherwise."""
    ranks = {(c >> 2) + 2 if c >> 2 != 12 else 1 for c in cards}
    if len({r for r in ranks if r <= 8}) < 5:
        return None
    return _twin.evaluate_low(cards)


def brute_force(
    players: Sequence[Sequence[int]], showdown: str, dead: Sequence[int] = ()
) -> dict[str, list[float]]:
    """Seven-card deals walked with itertools (no community card); each player's part of
    every pot as an exact fraction: win = the whole pot alone, tie = a part of it."""
    seen = {c for cards in players for c in cards} | set(dead)
    unseen = [c for c in range(52) if c not in seen]
    n = len(players)
    totals: dict[str, list[Fraction]] = {
        key: [Fraction(0)] * n for key in ("win", "tie", "equity", "high", "low")
    }
    deals = 0

    def share(values: Sequence[int | None], amount: Fraction, got: list[Fraction]) -> list[int]:
        best = max(v for v in values if v is not None)
        winners = [p for p, v in enumerate(values) if v == best]
        for p in winners:
            got[p] += amount / len(winners)
        return winners

    def showdown_of(hands: list[list[int]]) -> None:
        nonlocal deals
        got = [Fraction(0)] * n
        if showdown == "low":
            share([_twin.evaluate_low(h) for h in hands], Fraction(1), got)
        else:
            highs = [_twin.evaluate(h) for h in hands]
            lows = [qualifying_low(h) for h in hands]
            if all(v is None for v in lows):
                for p in share(highs, Fraction(1), got):
                    totals["high"][p] += 1
            else:
                for p in share(highs, Fraction(1, 2), got):
                    totals["high"][p] += 1
                for p in share(lows, Fraction(1, 2), got):
                    totals["low"][p] += 1
        for p, part in enumerate(got):
            totals["equity"][p] += part
            if part == 1:
                totals["win"][p] += 1
            elif part:
                totals["tie"][p] += 1
        deals += 1

    def walk(p: int, left: list[int], hands: list[list[int]]) -> None:
        if p == n:
            showdown_of(hands)
            return
        for chosen in combinations(left, 7 - len(players[p])):
            rest = [c for c in left if c not in chosen]
            walk(p + 1, rest, [*hands, [*players[p], *chosen]])

    walk(0, unseen, [])
    return {key: [float(v / deals) for v in values] for key, values in totals.items()}


CASES: list[dict[str, Any]] = [
    # Razz, seventh street: the hero's 8-6 low against four low up cards (9,139 deals)
    {"players": ["8s 6d 4h 3c Ac Kd Kh", "7h 5c 2d 2h"], "variant": "RAZZ", "dead": ["9c"]},
    # Razz, seventh street, three players who can tie (two share 5-4-3-2-A draws)
    {
        "players": ["5s 4d 3h 2c Qc Qd Kh", "5h 4c 3s 2d Ad Js", "Ts 9h 7c 6d As Qs"],
        "variant": "RAZZ",
    },
    # Hi-Lo, seventh street: the hero's made low and two pair against a four-card draw
    {"players": ["8s 6d 4h 3c Ac Ad 8h", "7h 5c 2d 2h"], "variant": "SEVEN_CARD_STUD_HI_LO"},
    # Hi-Lo, three players: scoops, halves, quarters and deals with no qualifying low
    {
        "players": ["5s 4d 3h 2c Qc Qd", "5h 4c 3s 2d Ad Js", "Ts Th 7c 7d As Qs"],
        "variant": "SEVEN_CARD_STUD_HI_LO",
    },
]


def run(case: dict[str, Any], **kwargs: Any) -> EquityResult:
    return stud_equity(
        [parse_cards(text) for text in case["players"]],
        variant=case["variant"],
        street=7,
        dead=parse_cards(case.get("dead", [])),
        community=False,
        **kwargs,
    )


def case_id(case: dict[str, Any]) -> str:
    return f"{case['variant']}: " + " | ".join(case["players"])


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_exact_matches_brute_force(case: dict[str, Any]) -> None:
    """R-RAZZ-SHOWDOWN, R-HILO-SPLIT: every deal walked independently, exact shares."""
    showdown = "low" if case["variant"] == "RAZZ" else "high_low_8"
    players = [parse_cards(text) for text in case["players"]]
    expected = brute_force(players, showdown, parse_cards(case.get("dead", [])))
    result = run(case, method="exact")
    assert result.method == "exact" and result.complete
    assert result.showdown is Showdown(showdown)
    assert result.win == pytest.approx(expected["win"], abs=1e-12)
    assert result.tie == pytest.approx(expected["tie"], abs=1e-12)
    assert result.equity == pytest.approx(expected["equity"], abs=1e-12)
    assert sum(result.equity) == pytest.approx(1.0)
    assert result.stderr == (0.0,) * len(players)
    if showdown == "low":
        assert result.high == result.low == ()
    else:
        assert result.high == pytest.approx(expected["high"], abs=1e-12)
        assert result.low == pytest.approx(expected["low"], abs=1e-12)
        assert sum(result.low) > 0 and all(0 < h < 1 for h in result.high)


def known(*hands: str) -> EquityResult:
    """Hi-Lo with every card known: one deal."""
    result = stud_equity(
        [parse_cards(h) for h in hands], variant="SEVEN_CARD_STUD_HI_LO", street=7, community=False
    )
    assert result.samples == 1
    return result


def test_scoops_halves_and_no_low() -> None:
    """R-HILO-SPLIT: one player can take both halves; without a qualifying low the high
    hand takes the whole pot; ties within a half share that half."""
    wheel = "As 2d 3h 4c 5s Kd Qh"  # a straight to the five and the best low
    scoop = known(wheel, "Kc Ks 9h 9d 7c 7s 2c")
    assert scoop.win == (1.0, 0.0) and scoop.equity == (1.0, 0.0) and scoop.tie == (0.0, 0.0)
    assert scoop.high == (1.0, 0.0) and scoop.low == (1.0, 0.0)
    halves = known("As 2d 3h 4c 6s Kd Qh", "Kc Ks Kh 9d 9c Ts Js")
    assert halves.equity == (0.5, 0.5) and halves.win == (0.0, 0.0) and halves.tie == (1.0, 1.0)
    assert halves.high == (0.0, 1.0) and halves.low == (1.0, 0.0)
    no_low = known("As Ad 3h 4c 9s Kd Qh", "Kc Ks Kh 9d 9c Ts Js")
    assert no_low.equity == (0.0, 1.0) and no_low.win == (0.0, 1.0)
    assert no_low.high == (0.0, 1.0) and no_low.low == (0.0, 0.0)
    quarters = known(
        "As 2d 3h 4c 6s Kd Qh", "Ad 2s 3c 4h 6d Kc Ks", "Qc Qs Jh Td 9c 7s 2h"
    )  # the two lows tie; the third player's queens lose to kings
    assert quarters.equity == (0.25, 0.75, 0.0)
    assert quarters.win == (0.0, 0.0, 0.0) and quarters.tie == (1.0, 1.0, 0.0)
    assert quarters.high == (0.0, 1.0, 0.0) and quarters.low == (1.0, 1.0, 0.0)
    same = known("As 2d 3h 4c 5s Kd Qh", "Ad 2s 3c 4h 5d Kc Qs")  # identical: halves tie
    assert same.equity == (0.5, 0.5) and same.tie == (1.0, 1.0)


def test_razz_ties_share_the_pot() -> None:
    """R-RAZZ-SHOWDOWN: equal lows share; pairs count against (R-LOW-A5)."""
    players = [parse_cards("8s 6d 4h 3c Ac Kd Kh"), parse_cards("8h 6c 4s 3d As Qd Qh")]
    tie = stud_equity(players, variant="RAZZ", street=7, community=False)
    assert tie.equity == (0.5, 0.5) and tie.tie == (1.0, 1.0) and tie.win == (0.0, 0.0)
    players[1] = parse_cards("Kc Ks Qc Qs Jh Jd Js")  # a wheel never plays: kings up
    assert stud_equity(players, variant="RAZZ", street=7, community=False).win == (1.0, 0.0)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_monte_carlo_within_three_standard_errors(case: dict[str, Any]) -> None:
    exact = run(case, method="exact")
    estimate = run(case, method="monte_carlo", samples=40_000, seed=98)
    assert estimate.samples == 40_000 and estimate.complete
    for p, share in enumerate(exact.equity):
        assert estimate.stderr[p] > 0 or share in (0.0, 1.0)
        assert abs(estimate.equity[p] - share) <= 3 * estimate.stderr[p] + 1e-12
    assert sum(estimate.equity) == pytest.approx(1.0)


def test_c_loops_and_python_twin_give_identical_counts() -> None:
    c_extension()
    for case in CASES[1:]:
        assert run(case, method="exact", backend="c") == run(case, method="exact", backend="python")
        kwargs: dict[str, Any] = {"method": "monte_carlo", "samples": 700, "seed": 19}
        assert run(case, backend="c", **kwargs) == run(case, backend="python", **kwargs)


def test_earlier_streets_and_the_community_card() -> None:
    """Razz and Hi-Lo deal as Seven Card Stud: third street on, and R-COMMUNITY-CARD."""
    players = [parse_cards(t) for t in ("As 2d 3h", "Ks", "Qc", "Jd", "Tc", "9h", "8s", "Kc")]
    for variant in ("RAZZ", "SEVEN_CARD_STUD_HI_LO"):
        result = stud_equity(players, variant=variant, street=3, samples=20_000, seed=4)
        assert result.method == "monte_carlo"
        assert sum(result.equity) == pytest.approx(1.0)
        assert max(result.equity) == result.equity[0]  # A-2-3 against one high card each
    heads_up = [parse_cards("As 2d 3h 4c"), parse_cards("Kh 9d 9h")]
    first = stud_equity(heads_up, variant="RAZZ", street=4, samples=5000, seed=1)
    assert first.equity[0] > 0.75


def test_showdown_parameter() -> None:
    """The variant's own showdown by default; ``showdown`` ranks otherwise."""
    players = [parse_cards("8s 6d 4h 3c Ac Ad 8h"), parse_cards("7h 5c 2d 2h")]
    common: dict[str, Any] = {"street": 7, "community": False, "method": "exact"}
    seven = stud_equity(players, variant="SEVEN_CARD_STUD", **common)
    assert seven.showdown is Showdown.HIGH and seven.high == ()
    high_only = stud_equity(players, variant="SEVEN_CARD_STUD_HI_LO", showdown="high", **common)
    assert high_only == seven
    razz = stud_equity(players, variant="RAZZ", **common)
    as_low = stud_equity(players, variant="SEVEN_CARD_STUD", showdown=Showdown.LOW, **common)
    assert as_low == razz
    split = stud_equity(players, variant="SEVEN_CARD_STUD", showdown="high_low_8", **common)
    assert split == stud_equity(players, variant="SEVEN_CARD_STUD_HI_LO", **common)
    five = [parse_cards("As 2d 3h 4c"), parse_cards("Kh 9d 9h")]
    five_low = stud_equity(five, variant="FIVE_CARD_STUD", street=4, showdown="low")
    assert five_low.method == "exact" and five_low.equity[0] > 0.9


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"showdown": "lowball"}, "showdown"),
        ({"showdown": 1}, "showdown"),
        ({"variant": "RAZZ", "street": 2}, "street"),
        ({"variant": "SEVEN_CARD_STUD_HI_LO", "street": 8}, "street"),
        ({"variant": "RAZZ_HI_LO"}, "variant"),
    ],
)
def test_bad_requests_raise_value_error(kwargs: dict[str, Any], message: str) -> None:
    players = [parse_cards("As 2d 3h 4c"), parse_cards("Kh 9d 9h")]
    arguments = {"variant": "RAZZ", "street": 4, **kwargs}
    with pytest.raises(ValueError, match=message):
        stud_equity(players, **arguments)


@pytest.mark.parametrize("backend", ["c", "python"])
@pytest.mark.parametrize("showdown", [-1, 3, 2**70, "low", None])
def test_loops_reject_an_unknown_showdown(backend: str, showdown: object) -> None:
    loops: Any = c_extension() if backend == "c" else equity_twin
    args = ((bytes([0, 4, 8, 12, 16]), bytes([1, 5, 9, 13, 17])), bytes(3), bytes([51]), b"")
    with pytest.raises(ValueError, match="showdown"):
        loops.equity_exact(*args, showdown, 0, 1)
    with pytest.raises(ValueError, match="showdown"):
        loops.equity_mc(*args, showdown, 10, 1)
