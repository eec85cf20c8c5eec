"""stud-table's sit-and-go logic and mixed-game rotation, pure: levels by hands and by
minutes, eliminations (several on one hand: places by the stacks they began it with, equal
stacks tie), payouts that add up exactly to the prize pool, and the game of each hand."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest
from studclients.client import VARIANTS
from studclients.table.errors import SettingsError
from studclients.table.mixed import HORSE_STUD, Rotation
from studclients.table.schedule import game_part, plan_hand, tournament_part
from studclients.table.tournament import (
    Schedule,
    Standings,
    awards,
    eliminate,
    ordered,
    parse_levels,
)

LEVELS = parse_levels("0/5/10, 2/10/20, 5/15/30")
FIRST = "tournament.levels[0]"


def schedule(entrants: int = 6, **overrides: Any) -> Schedule:
    raw: dict[str, Any] = {"levels": LEVELS, "every": 4, "unit": "hands",
                           "payouts": [5000, 3000, 2000], "buy_in": 100}  # fmt: skip
    raw.update(overrides)
    return Schedule.from_dict(raw, entrants)


def test_levels_rise_every_n_hands_and_the_last_level_lasts() -> None:
    plan = schedule()
    assert [plan.level_index(h, 0.0) for h in range(14)] == [0] * 4 + [1] * 4 + [2] * 6
    assert plan.levels[1].as_dict() == {"ante": 2, "bring_in": 10, "small_bet": 20, "big_bet": 40}
    assert plan.next_level(0, 0.0) == {"level": 1, "in_hands": 4}
    assert plan.next_level(7, 0.0) == {"level": 2, "in_hands": 1}
    assert plan.next_level(8, 0.0) is None


def test_levels_by_minutes_follow_the_elapsed_time_passed_in() -> None:
    plan = schedule(unit="minutes", every=2)
    assert plan.level_index(50, 119.9) == 0
    assert plan.level_index(0, 120.0) == 1
    assert plan.level_index(0, 10_000.0) == 2
    assert plan.next_level(3, 60.0) == {"level": 1, "in_seconds": 60.0}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"levels": []}, "tournament.levels"),
        ({"levels": [{"ante": 1, "bring_in": 30, "small_bet": 20}]}, f"{FIRST}.bring_in"),
        ({"levels": [{"bring_in": 5, "small_bet": 10, "big_bet": 5}]}, f"{FIRST}.big_bet"),
        ({"levels": [{"bring_in": True, "small_bet": 10}]}, f"{FIRST}.bring_in"),
        ({"unit": "orbits"}, "tournament.unit"),
        ({"every": 0}, "tournament.every"),
        ({"payouts": [6000, 3000]}, "tournament.payouts"),
        ({"payouts": [3000, 7000]}, "tournament.payouts"),
        ({"payouts": [4000, 3000, 2000, 1000]}, "tournament.payouts"),  # 4 paid of 4
        ({"buy_in": -1}, "tournament.buy_in"),
        ({"evry": 3}, "tournament.evry"),
        ({"levels": [{"bring_in": 5, "small_bet": 10, "bigbet": 20}]}, f"{FIRST}.bigbet"),
    ],
)
def test_a_schedule_that_cannot_be_played_is_refused_naming_the_field(
    change: dict[str, Any], field: str
) -> None:
    with pytest.raises(SettingsError) as raised:
        schedule(entrants=4, **change)
    assert raised.value.field == field


def test_parse_levels_reads_ante_bring_in_and_bet() -> None:
    assert parse_levels("1/2/4") == [{"ante": 1, "bring_in": 2, "small_bet": 4}]
    with pytest.raises(SettingsError, match="levels"):
        parse_levels("1/2")


def test_one_bust_takes_the_lowest_open_place() -> None:
    field = Standings(4, {})
    after = eliminate(field, {0: 500, 1: 300, 2: 200, 3: 1000}, {0: 800, 1: 0, 2: 200, 3: 1000})
    assert after.places == {1: 4} and after.alive == 3 and not after.finished


def test_several_busting_on_one_hand_finish_by_the_stacks_they_began_it_with() -> None:
    field = Standings(5, {4: 5})
    start = {0: 400, 1: 100, 2: 300, 3: 700}
    final = {0: 0, 1: 0, 2: 0, 3: 1500}
    after = eliminate(field, start, final)
    # 4 left: the smallest starting stack is 4th, then 3rd, then 2nd; the survivor wins
    assert after.places == {4: 5, 1: 4, 2: 3, 0: 2, 3: 1}
    assert after.finished


def test_equal_starting_stacks_tie_for_the_higher_place_and_share_its_prizes() -> None:
    plan = schedule(entrants=4, payouts=[5000, 3000, 2000])  # pool 400: 200/120/80
    after = eliminate(Standings(4, {}), {0: 300, 1: 300, 2: 900}, {0: 0, 1: 0, 2: 1500})
    assert after.places == {0: 3, 1: 3}
    done = eliminate(after, {2: 1500, 3: 100}, {2: 1600, 3: 0})
    assert done.places == {0: 3, 1: 3, 3: 2, 2: 1} and done.finished
    # places 3 and 4 (80 + 0) shared by seats 0 and 1
    assert awards(plan, done) == {0: 40, 1: 40, 3: 120, 2: 200}


def test_tied_prizes_give_the_odd_chip_to_the_lower_seat() -> None:
    plan = schedule(entrants=3, payouts=[7000, 3000], buy_in=101)  # pool 303: 213/90
    after = eliminate(Standings(3, {}), {0: 100, 1: 100, 2: 100}, {0: 0, 1: 300, 2: 0})
    assert after.places == {0: 2, 2: 2, 1: 1}
    prizes = awards(plan, after)
    assert prizes == {0: 45, 2: 45, 1: 213}
    assert sum(prizes.values()) == plan.prize_pool(3)


def test_payouts_add_up_exactly_to_the_prize_pool_for_any_schedule() -> None:
    rng = random.Random(20)
    for _ in range(500):
        entrants = rng.randint(2, 10)
        places = rng.randint(1, entrants - 1)
        cuts = sorted(rng.sample(range(1, 10_000), places - 1))
        shares = sorted((b - a for a, b in zip([0, *cuts], [*cuts, 10_000], strict=True)),
                        reverse=True)  # fmt: skip
        plan = schedule(entrants=entrants, payouts=shares, buy_in=rng.randint(0, 10**6))
        assert sum(plan.prizes(entrants)) == plan.prize_pool(entrants)
        # a random tournament: everyone but one busts, several at a time
        field, stacks = Standings(entrants, {}), dict.fromkeys(range(entrants), 1000)
        while not field.finished:
            alive = [s for s in stacks if stacks[s] > 0]
            out = rng.sample(alive, rng.randint(1, len(alive) - 1))
            start = {s: stacks[s] for s in alive}
            winner = rng.choice([s for s in alive if s not in out])
            for s in out:
                stacks[winner] += stacks[s]
                stacks[s] = 0
            field = eliminate(field, start, {s: stacks[s] for s in alive})
        assert sorted(field.places.values())[0] == 1
        assert sum(awards(plan, field).values()) == plan.prize_pool(entrants)


def test_standings_list_players_still_in_by_chips_then_the_finished_by_place() -> None:
    field = Standings(4, {3: 4, 1: 3})
    assert ordered(field, {0: 500, 1: 0, 2: 900, 3: 0}) == [2, 0, 1, 3]


def test_a_rotation_deals_each_game_every_n_hands_in_turn() -> None:
    rotation = Rotation.make(HORSE_STUD, 3)
    games = [rotation.game_of(n) for n in range(1, 11)]
    razz, seven, hilo = HORSE_STUD
    assert games == [razz] * 3 + [seven] * 3 + [hilo] * 3 + [razz]
    assert rotation.next_change(1) == (seven, 4)
    assert rotation.next_change(6) == (hilo, 7)
    assert rotation.next_change(9) == (razz, 10)
    assert rotation.max_seats == 8
    assert Rotation.make([VARIANTS["five"]], 5).next_change(3) is None


def test_a_rotation_seats_only_as_many_as_its_smallest_game() -> None:
    assert Rotation.make([VARIANTS["five"], VARIANTS["seven"]], 2).max_seats == 8
    assert Rotation.make([VARIANTS["five"]], 2).max_seats == 10


@pytest.mark.parametrize(
    ("games", "every", "field"),
    [([], 2, "games"), ([99], 2, "games"), (list(HORSE_STUD), 0, "rotate_every")],
)
def test_a_bad_rotation_is_refused(games: list[int], every: int, field: str) -> None:
    with pytest.raises(SettingsError) as raised:
        Rotation.make(games, every)
    assert raised.value.field == field


def row(**values: Any) -> SimpleNamespace:
    return SimpleNamespace(**values)


TABLE = {"variant": VARIANTS["seven"], "ante": 5, "bring_in": 10, "small_bet": 20, "big_bet": 40,
         "games": None, "rotate_every": None}  # fmt: skip


PAID = [7000, 3000]


def event(**values: Any) -> SimpleNamespace:
    base = {"schedule": schedule(3, unit="minutes", every=5, payouts=PAID).as_dict(), "entrants": 3,
            "status": "registering", "started_at": None, "first_hand": None, "level": 0,
            "places": {}, "names": {}}  # fmt: skip
    return row(**{**base, **values})


def test_a_hand_plan_waits_for_every_seat_then_starts_the_clock_it_is_given() -> None:
    seats = [row(seat_no=n, name=f"P{n}", stack=500) for n in range(3)]
    table = row(hand_no=4, **TABLE)
    assert plan_hand(table, event(), seats[:2], now=100.0) is None
    plan = plan_hand(table, event(), seats, now=100.0)
    assert plan is not None and plan.tournament
    names = {"0": "P0", "1": "P1", "2": "P2"}
    assert plan.tournament_values == {"status": "running", "started_at": 100.0, "first_hand": 4,
                                      "names": names, "level": 0}  # fmt: skip
    assert plan.stakes.as_dict() == LEVELS[0] | {"big_bet": 20}
    running = event(status="running", started_at=100.0, first_hand=4)
    later = plan_hand(row(hand_no=9, **TABLE), running, seats, now=100.0 + 5 * 60)
    assert later is not None and later.tournament_values["level"] == 1
    assert later.table_values == {"variant": VARIANTS["seven"], **schedule().levels[1].as_dict()}
    assert plan_hand(table, event(status="finished"), seats, now=0.0) is None
    cash = plan_hand(table, None, seats[:2], now=0.0)
    assert cash is not None and not cash.tournament and cash.stakes.small_bet == 20


def test_the_page_says_when_the_next_level_starts() -> None:
    seats = {n: row(seat_no=n, name=f"P{n}", stack=500) for n in range(3)}
    running = event(status="running", started_at=1000.0, first_hand=0, level=0)
    part = tournament_part(row(hand_no=3, **TABLE), running, seats, now=1060.0)
    assert part["next_level"] == {"level": 2, "stakes": LEVELS[1] | {"big_bet": 40},
                                  "at": (1000 + 300) * 1000}  # fmt: skip
    due = tournament_part(row(hand_no=3, **TABLE), running, seats, now=1301.0)
    assert due["next_level"]["after_hands"] == 0  # from the next hand
    by_hands = event(schedule=schedule(3, payouts=PAID).as_dict(), status="running", started_at=0.0,
                     first_hand=0, level=0)  # fmt: skip
    assert (
        tournament_part(row(hand_no=1, **TABLE), by_hands, seats, 0.0)["next_level"]["after_hands"]
        == 3
    )
    assert [r["name"] for r in part["standings"]] == ["P0", "P1", "P2"]
    assert part["prize_pool"] == 300 and part["prizes"] == [210, 90]


def test_the_page_names_a_mixed_tables_game_and_the_next_change() -> None:
    table = row(hand_no=2, **{**TABLE, "games": list(HORSE_STUD), "rotate_every": 3})
    part = game_part(table, 2)
    assert part["name"] == "Razz" and part["every"] == 3
    assert part["next"] == {"name": "Seven Card Stud", "hand": 4, "after_hands": 1}
    assert game_part(row(hand_no=0, **TABLE), None) == {"name": "Seven Card Stud", "next": None}
