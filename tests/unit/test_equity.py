"""Stud equity: exact = brute force, Monte Carlo within 3 standard errors, seeds, the
C loops = the Python twin, limits and the time budget."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

import pytest
from studengine import equity
from studengine.cards import parse_cards
from studengine.equity import (
    BACKEND,
    MAX_EXACT_DEALS,
    MAX_SAMPLES,
    MC_CHUNK,
    EquityResult,
    exact_deal_count,
    stud_equity,
)
from studengine.evaluator import _twin
from studengine.rules.types import Variant
from support.evaluator_cases import c_extension


def brute_force(
    players: Sequence[Sequence[int]], final: int, dead: Sequence[int], community: bool
) -> tuple[list[float], list[float], list[float], int]:
    """Win, tie and share by walking every deal with itertools (independent of the
    module's enumeration), evaluating with the twin."""
    seen = {c for cards in players for c in cards} | set(dead)
    unseen = [c for c in range(52) if c not in seen]
    own = final - (1 if community else 0)
    needs = [own - len(cards) for cards in players]
    wins = [0.0] * len(players)
    ties = [0.0] * len(players)
    shares = [0.0] * len(players)
    deals = 0

    def walk(p: int, left: list[int], hands: list[list[int]]) -> None:
        nonlocal deals
        if p == len(players):
            boards: Sequence[Sequence[int]] = [()]
            if community:
                boards = [(c,) for c in left]
            for board in boards:
                values = [_twin.evaluate([*h, *board]) for h in hands]
                best = max(values)
                winners = [i for i, v in enumerate(values) if v == best]
                for i in winners:
                    if len(winners) == 1:
                        wins[i] += 1
                    else:
                        ties[i] += 1
                    shares[i] += 1 / len(winners)
                deals += 1
            return
        for chosen in combinations(left, needs[p]):
            rest = [c for c in left if c not in chosen]
            walk(p + 1, rest, [*hands, [*players[p], *chosen]])

    walk(0, unseen, [])
    return [w / deals for w in wins], [t / deals for t in ties], [s / deals for s in shares], deals


CASES: list[dict[str, Any]] = [
    # Five Card Stud, heads-up on fifth street: the opponent's down card is unknown
    {"players": ["As Ah Kd 2c 9s", "Kh 9d 9h Qc"], "variant": "FIVE_CARD_STUD", "street": 5},
    # Five Card Stud, three players on fifth street, with dead cards
    {
        "players": ["5s 5h Kd 2c 9s", "Kh Jd Jh Qc", "Ac 7d 3h 4h"],
        "variant": "FIVE_CARD_STUD",
        "street": 5,
        "dead": ["Js", "5d"],
    },
    # Five Card Stud, heads-up on fourth street (42,570 deals): equal straights tie
    {"players": ["Ts 9h 8d 7c", "Th 9d 8c"], "variant": "FIVE_CARD_STUD", "street": 4},
    # Seven Card Stud, seventh street: hero knows all seven, the opponent shows four
    {
        "players": ["As Ah Kd Kc 2c 3s 9s", "Qh Qd Jh Tc"],
        "variant": "SEVEN_CARD_STUD",
        "street": 7,
        "dead": ["Ks", "4d", "4h"],
    },
    # Seven Card Stud with the community card still to come
    {
        "players": ["As Ah Kd Kc 2c 3s", "Qh Qd Jh Tc 9h 8s"],
        "variant": "SEVEN_CARD_STUD",
        "street": 6,
        "community": True,
    },
]


def run(case: dict[str, Any], **kwargs: Any) -> EquityResult:
    players = [parse_cards(text) for text in case["players"]]
    dead = parse_cards(case.get("dead", []))
    return stud_equity(
        players,
        variant=case["variant"],
        street=case["street"],
        dead=dead,
        community=case.get("community"),
        **kwargs,
    )


@pytest.mark.parametrize("case", CASES, ids=lambda c: " | ".join(c["players"]))
def test_exact_matches_brute_force(case: dict[str, Any]) -> None:
    players = [parse_cards(text) for text in case["players"]]
    final = 5 if case["variant"] == "FIVE_CARD_STUD" else 7
    win, tie, share, deals = brute_force(
        players, final, parse_cards(case.get("dead", [])), bool(case.get("community"))
    )
    result = run(case, method="exact")
    assert result.method == "exact" and result.complete
    assert result.samples == deals
    assert result.win == pytest.approx(win, abs=1e-12)
    assert result.tie == pytest.approx(tie, abs=1e-12)
    assert result.equity == pytest.approx(share, abs=1e-12)
    assert sum(result.equity) == pytest.approx(1.0)
    assert result.stderr == (0.0,) * len(players)
    assert run(case).method == "exact"  # few deals: auto enumerates


def test_ties_are_counted_and_shared() -> None:
    # both play the board-like straight unless a card improves one of them
    case = CASES[2]
    result = run(case, method="exact")
    assert all(t > 0 for t in result.tie)
    assert sum(result.equity) == pytest.approx(1.0)


@pytest.mark.parametrize("case", CASES[:4], ids=lambda c: " | ".join(c["players"]))
def test_monte_carlo_within_three_standard_errors(case: dict[str, Any]) -> None:
    exact = run(case, method="exact")
    estimate = run(case, method="monte_carlo", samples=40_000, seed=99)
    assert estimate.method == "monte_carlo" and estimate.samples == 40_000
    assert estimate.complete
    for p, share in enumerate(exact.equity):
        assert estimate.stderr[p] > 0 or share in (0.0, 1.0)
        assert abs(estimate.equity[p] - share) <= 3 * estimate.stderr[p] + 1e-12


def test_monte_carlo_is_reproducible_with_a_seed() -> None:
    case = CASES[1]
    first = run(case, method="monte_carlo", samples=20_000, seed=5)
    assert run(case, method="monte_carlo", samples=20_000, seed=5) == first
    assert run(case, method="monte_carlo", samples=20_000, seed=6) != first
    unseeded = run(case, method="monte_carlo", samples=1000)
    assert unseeded.seed is not None
    assert run(case, method="monte_carlo", samples=1000, seed=unseeded.seed) == unseeded


def test_c_loops_and_python_twin_give_identical_counts() -> None:
    c_extension()
    for case in (CASES[0], CASES[4]):
        assert run(case, method="exact", backend="c") == run(case, method="exact", backend="python")
    for case in CASES[:3]:
        kwargs: dict[str, Any] = {"method": "monte_carlo", "samples": 700, "seed": 17}
        assert run(case, backend="c", **kwargs) == run(case, backend="python", **kwargs)


def test_answers_do_not_depend_on_chunk_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES[1]
    mc: dict[str, Any] = {"method": "monte_carlo", "samples": 5000, "seed": 8}
    exact, sampled = run(case, method="exact"), run(case, **mc)
    monkeypatch.setitem(equity.MC_CHUNK, BACKEND, 333)
    monkeypatch.setitem(equity.EXACT_CHUNK_DEALS, BACKEND, 7)
    assert run(case, method="exact") == exact
    assert run(case, **mc) == sampled


def test_eight_players_seven_stud_uses_a_community_card() -> None:
    """R-COMMUNITY-CARD: eight players cannot all get a seventh card of their own."""
    players = [parse_cards(t) for t in ("As Ah Kd", "Ks", "2c", "9d", "Tc", "Jh", "Qs", "8s")]
    result = stud_equity(players, variant=Variant.SEVEN_CARD_STUD, street=3, samples=20_000, seed=3)
    assert result.method == "monte_carlo"
    assert sum(result.equity) == pytest.approx(1.0)
    assert max(result.equity) == result.equity[0]  # aces are the favourite
    # without the community card there are not enough cards for eight players
    with pytest.raises(ValueError, match="unseen"):
        stud_equity(players, variant="SEVEN_CARD_STUD", street=3, community=False)


def test_known_community_card() -> None:
    players = [parse_cards("As Ah Kd Kc 2c 3s"), parse_cards("Qh Qd Jh Tc")]
    queen = parse_cards("Qs")[0]
    result = stud_equity(players, variant="SEVEN_CARD_STUD", street=7, community_card=queen)
    win, _, share, deals = brute_force(
        [[*players[0], queen], [*players[1], queen]], 7, [], community=False
    )
    assert result.samples == deals
    assert result.equity == pytest.approx(share)
    assert result.win == pytest.approx(win)


def test_exact_deal_count() -> None:
    players = [parse_cards("As Ah Kd 2c"), parse_cards("Kh 9d 9h")]
    assert exact_deal_count(players, variant="FIVE_CARD_STUD", street=4) == 45 * 946


GOOD: dict[str, Any] = {"variant": "FIVE_CARD_STUD", "street": 4}
HERO, VILLAIN = parse_cards("As Ah Kd 2c"), parse_cards("Kh 9d 9h")


@pytest.mark.parametrize(
    ("players", "kwargs", "message"),
    [
        ([HERO], {}, "2 to 8 players"),
        ([HERO] + [[c] for c in range(20, 28)], {}, "2 to 8 players"),
        ([HERO, VILLAIN], {"variant": "HOLDEM"}, "variant"),
        ([HERO, VILLAIN], {"street": 6}, "street"),
        ([HERO, VILLAIN], {"street": 1}, "street"),
        ([HERO, VILLAIN], {"street": 3}, "known cards"),
        ([HERO, [*VILLAIN, 51]], {}, "twice"),
        ([HERO, [*VILLAIN, 52]], {}, "not a card"),
        ([HERO, [*VILLAIN, -1]], {}, "not a card"),
        ([HERO, VILLAIN], {"dead": [0, 0]}, "twice"),
        ([HERO, VILLAIN], {"dead": 7}, "dead cards"),
        ([HERO, 7], {}, "player 1"),
        ([HERO, "Kh 9d"], {}, "player 1"),
        ([HERO, VILLAIN], {"dead": [51]}, "twice"),
        ([HERO, VILLAIN], {"community": True}, "community"),
        ([HERO, VILLAIN], {"method": "guess"}, "method"),
        ([HERO, VILLAIN], {"method": "monte_carlo", "samples": 0}, "samples"),
        ([HERO, VILLAIN], {"method": "monte_carlo", "samples": MAX_SAMPLES + 1}, "samples"),
        ([HERO, VILLAIN], {"method": "monte_carlo", "seed": -1}, "seed"),
        ([HERO, VILLAIN], {"method": "monte_carlo", "seed": 2**64}, "seed"),
        ([HERO, VILLAIN], {"deadline": 0}, "deadline"),
        ([HERO, VILLAIN], {"deadline": -1.0}, "deadline"),
        ([HERO, VILLAIN], {"exact_threshold": MAX_EXACT_DEALS + 1}, "exact_threshold"),
        ([HERO, VILLAIN], {"backend": "fortran"}, "backend"),
        ([parse_cards("As"), parse_cards("Ks"), parse_cards("Qs")], {"method": "exact"}, "limit"),
    ],
)
def test_bad_requests_raise_value_error(
    players: list[list[int]], kwargs: dict[str, Any], message: str
) -> None:
    arguments = {**GOOD, **kwargs}
    with pytest.raises(ValueError, match=message):
        stud_equity(players, **arguments)


@pytest.mark.parametrize("backend", ["c", "python"])
def test_time_budget_stops_monte_carlo_early(backend: str) -> None:
    if backend == "c":
        c_extension()
    players = [parse_cards("As Ah Kd"), parse_cards("Ks"), parse_cards("2c")]
    result = stud_equity(
        players,
        variant="SEVEN_CARD_STUD",
        street=3,
        samples=MAX_SAMPLES,
        seed=1,
        deadline=1e-9,
        backend=backend,
    )
    assert not result.complete
    assert result.samples == MC_CHUNK[backend]  # one chunk always runs, then the clock
    assert sum(result.equity) == pytest.approx(1.0)


def test_time_budget_stops_exact_enumeration() -> None:
    players = [parse_cards("As Ah Kd Kc 2c 3s"), parse_cards("Qh Qd Jh Tc")]
    kwargs: dict[str, Any] = {"variant": "SEVEN_CARD_STUD", "street": 6, "method": "exact"}
    assert exact_deal_count(players, **{k: kwargs[k] for k in ("variant", "street")}) > 100_000
    with pytest.raises(TimeoutError):
        stud_equity(players, deadline=1e-9, **kwargs)
    assert stud_equity(players, **kwargs).complete


@pytest.mark.parametrize("variant", list(Variant), ids=lambda v: v.value)
def test_community_card_default_follows_r_community_card(variant: Variant) -> None:
    """R-COMMUNITY-CARD, read from the game facts (``rules.variants``): with no say, a
    community card comes exactly when the deck, less every card dealt before the last
    street and the dead cards, has fewer cards than players; never in Five Card Stud."""
    seven = variant is not Variant.FIVE_CARD_STUD
    final = 7 if seven else 5

    def deals(hands: list[list[int]], dead: list[int], community: bool | None) -> int | None:
        args: dict[str, Any] = {"variant": variant, "street": final - 1, "dead": dead}
        try:
            return exact_deal_count(hands, community=community, **args)
        except ValueError:  # no such deal (too few cards, or no community card here)
            return None

    communities = 0
    for players in range(2, 9):  # equity takes at most 8
        hands = [[card] for card in range(players)]
        for dead_count in (0, 1, 3, 8):
            dead = list(range(52 - dead_count, 52))
            expected = seven and 52 - dead_count - 6 * players < players
            communities += expected
            assert deals(hands, dead, None) == deals(hands, dead, expected)
    assert communities == (5 if seven else 0)  # eight players, or seven with 8 dead
