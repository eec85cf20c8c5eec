"""stud-table's multi-table tournament logic, pure: the settings, the seeded seating
draw, balancing and breaking (the TDA's stud rule: move by position), hand-for-hand
places, late registration, rebuy and add-on limits, the prize pool and exact refunds."""

from __future__ import annotations

import random
from typing import Any

import pytest
from studclients.table.errors import SettingsError
from studclients.table.mtt.field import Field, FieldError
from studclients.table.mtt.seating import Move, draw, plan_moves, seat_late
from studclients.table.mtt.settings import MttSettings
from studclients.table.tournament import parse_levels

LEVELS = parse_levels("0/5/10, 2/10/20, 5/15/30, 10/25/50")


def settings(**overrides: Any) -> MttSettings:
    raw: dict[str, Any] = {"levels": LEVELS, "every": 5, "payouts": [5000, 3000, 2000],
                           "buy_in": 100, "seats": 8, "starting_stack": 1000,
                           "min_entrants": 4}  # fmt: skip
    raw.update(overrides)
    return MttSettings.from_dict(raw)


def field_of(count: int, **overrides: Any) -> Field:
    field = Field(settings(**overrides))
    for number in range(count):
        field.register(f"p{number}")
    field.start()
    return field


# ---- settings -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("change", "name"),
    [
        ({"seats": 9}, "tournament.seats"),
        ({"min_entrants": 3}, "tournament.min_entrants"),
        ({"breaks": [7]}, "tournament.breaks"),
        ({"breaks": [2], "addon_break": 3}, "tournament.addon_break"),
        ({"late_levels": 5}, "tournament.late_levels"),
        ({"payouts": [6000, 3000]}, "tournament.payouts"),
        ({"rebuy_price": -1}, "tournament.rebuy_price"),
    ],
)
def test_settings_that_cannot_be_played_are_refused_naming_the_field(
    change: dict[str, Any], name: str
) -> None:
    with pytest.raises(SettingsError) as raised:
        settings(**change)
    assert raised.value.field == name


def test_settings_round_trip_through_their_dict() -> None:
    made = settings(breaks=[2], addon_break=2, rebuy_levels=2, late_levels=1)
    assert MttSettings.from_dict(made.as_dict()) == made


# ---- seating ------------------------------------------------------------------------------
def test_the_opening_draw_comes_from_the_seed_and_balances_the_tables() -> None:
    players = list(range(1, 42))
    tables = draw(players, 8, "seed-1")
    assert tables == draw(players, 8, "seed-1")  # shown again from the stored seed
    assert tables != draw(players, 8, "seed-2")
    assert sorted(len(chairs) for chairs in tables.values()) == [6, 7, 7, 7, 7, 7]
    assert sorted(p for chairs in tables.values() for p in chairs.values()) == players
    assert all(1 <= seat <= 8 for chairs in tables.values() for seat in chairs)


def test_a_late_entrant_is_drawn_to_a_short_table_or_opens_a_new_one() -> None:
    tables = {1: {1: 1, 2: 2, 3: 3}, 2: {1: 4, 5: 5}, 3: {4: 6, 6: 7}}
    table, seat = seat_late(tables, 3 + 5, 99, "s")
    assert table in (2, 3) and seat not in tables[table]
    assert seat_late(tables, 3 + 5, 99, "s") == (table, seat)
    full = {1: {1: 1, 2: 2}, 2: {1: 3, 2: 4}}
    assert seat_late(full, 2, 5, "s")[0] == 3


def test_balancing_moves_the_player_in_the_seat_of_the_last_seat_opened_r_tda_stud() -> None:
    """Table 2 is two short of table 1: its seat 6 opened last, so the player in seat 6
    of the fullest table moves into it, with nothing else drawn."""
    tables = {1: {s: 10 + s for s in range(1, 9)}, 2: {1: 21, 2: 22, 3: 23, 4: 24, 5: 25, 8: 28}}
    moves = plan_moves(tables, 8, {1, 2}, {2: [7, 6]}, "s", 1)
    assert moves == [Move(16, 1, 6, 2, 6, "balance")]


def test_balancing_takes_the_next_occupied_seat_and_the_highest_numbered_fullest_table() -> None:
    tables = {1: {1: 1, 2: 2, 3: 3, 4: 4}, 2: {1: 5, 2: 6, 3: 7, 4: 8}, 3: {1: 9, 2: 10}}
    # seat 3 opened last at table 3; table 2 (highest of the fullest) has seat 3 taken
    assert plan_moves(tables, 4, {1, 2, 3}, {3: [3]}, "s", 1) == [Move(7, 2, 3, 3, 3, "balance")]
    # no opening order known: the lowest empty seat; table 1 seat 3 is empty: seat 4 moves
    tables = {1: {1: 1, 2: 2, 4: 4, 5: 5}, 2: {1: 5, 2: 6}}
    assert plan_moves(tables, 5, {1, 2}, {}, "s", 1) == [Move(4, 1, 4, 2, 3, "balance")]


def test_one_short_is_balanced_enough_and_a_table_in_a_hand_gives_no_one() -> None:
    tables = {1: {1: 1, 2: 2, 3: 3}, 2: {1: 4, 2: 5}}
    assert plan_moves(tables, 3, {1, 2}, {}, "s", 1) == []
    tables = {1: {1: 1, 2: 2, 3: 3, 4: 4}, 2: {1: 5, 2: 6}}
    assert plan_moves(tables, 4, {2}, {}, "s", 1) == []
    assert len(plan_moves(tables, 4, {1}, {}, "s", 1)) == 1


def test_a_table_breaks_when_the_field_fits_on_fewer_and_its_players_are_drawn() -> None:
    tables = {1: {1: 1, 2: 2, 3: 3}, 2: {1: 4, 2: 5}, 3: {4: 6, 6: 7}}
    moves = plan_moves(tables, 4, {1, 2, 3}, {}, "s", 4)
    assert moves == plan_moves(tables, 4, {1, 2, 3}, {}, "s", 4)  # the stored seed shows it
    broken = [m for m in moves if m.why == "break"]
    assert sorted(m.player for m in broken) == [6, 7] and {m.from_table for m in broken} == {3}
    assert all(m.to_table in (1, 2) for m in moves)
    assert plan_moves(tables, 4, {1, 2}, {}, "s", 4) == []  # table 3 is in a hand: it waits


def test_several_tables_break_at_once_when_the_field_fits_on_two_fewer() -> None:
    tables = {1: {1: 1, 2: 2, 3: 3}, 2: {1: 4}, 3: {2: 5}, 4: {3: 6}}
    moves = plan_moves(tables, 4, {1, 2, 3, 4}, {}, "s", 9)
    assert {m.from_table for m in moves if m.why == "break"} == {3, 4}
    after = {t: dict(c) for t, c in tables.items()}
    _apply(after, moves)
    assert sorted(len(c) for c in after.values()) == [3, 3]


def _apply(tables: dict[int, dict[int, int]], moves: list[Move]) -> None:
    for move in moves:
        assert tables[move.from_table].pop(move.from_seat) == move.player
        assert move.to_seat not in tables[move.to_table]
        tables[move.to_table][move.to_seat] = move.player
    for number in [t for t, chairs in tables.items() if not chairs]:
        del tables[number]


def test_a_field_busting_out_stays_balanced_down_to_the_final_table() -> None:
    rng = random.Random(7)
    tables = draw(list(range(1, 201)), 8, "field")
    step = 0
    while sum(len(c) for c in tables.values()) > 1:
        table = rng.choice(sorted(tables))
        if len(tables[table]) > 0:
            del tables[table][rng.choice(sorted(tables[table]))]
        step += 1
        _apply(tables, plan_moves(tables, 8, set(tables), {}, "field", step))
        sizes = [len(c) for c in tables.values()]
        players = sum(sizes)
        assert max(sizes) - min(sizes) <= 1
        assert len(tables) == max(1, -(-players // 8))  # as few tables as hold them
    assert len(tables) == 1  # the final table


# ---- the field ----------------------------------------------------------------------------
def test_hand_for_hand_players_busting_in_one_round_share_places_by_starting_stacks() -> None:
    """Six left, three paid: hand-for-hand (two tables). In one round a player busts at
    each table; the one who began with more chips finishes higher; two who began equal
    tie and share the prizes of the places they span."""
    field = field_of(6)
    assert field.settings.hand_for_hand(alive=4, tables=2)
    assert not field.settings.hand_for_hand(alive=5, tables=2)
    assert not field.settings.hand_for_hand(alive=4, tables=1)
    field.settle({1: 500, 2: 1500}, {1: 0, 2: 2000})
    field.settle({3: 200, 4: 1800}, {3: 0, 4: 2000})
    assert field.places == {1: 6, 3: 5}
    # the bubble round: table A's player began with 300, table B's two with 400 each
    placed = field.settle({2: 300, 5: 400, 6: 400, 4: 2000}, {2: 0, 5: 0, 6: 0, 4: 3100})
    assert sorted(placed) == [2, 4, 5, 6]
    assert field.places == {1: 6, 3: 5, 2: 4, 5: 2, 6: 2, 4: 1}
    assert field.status == "finished"
    prizes = field.prizes()
    assert (prizes[4], prizes[5], prizes[6], prizes[2]) == (300, 150, 150, 0)
    assert sum(prizes.values()) == field.prize_pool == 600


def test_late_registration_closes_after_its_level_and_late_entrants_rank_above_the_out() -> None:
    field = field_of(4, late_levels=2)
    field.settle({1: 100, 2: 1900}, {1: 0, 2: 2000})
    assert field.places == {1: 4}
    field.level = 2
    late = field.register("late")
    assert late.player == 5 and field.places == {1: 5}
    assert field.prize_pool == 500 and field.chips_in_play == 5000
    field.level = 3
    with pytest.raises(FieldError) as raised:
        field.register("too late")
    assert raised.value.reason == "registration_closed"


def test_the_field_has_a_limit_and_starts_with_enough_entrants() -> None:
    field = Field(settings(max_entrants=5))
    for number in range(3):
        field.register(f"p{number}")
    with pytest.raises(FieldError) as raised:
        field.start()
    assert raised.value.reason == "too_few_entrants"
    field.register("p3")
    field.register("p4")
    with pytest.raises(FieldError) as raised:
        field.register("p5")
    assert raised.value.reason == "tournament_full"


def test_rebuys_only_at_most_the_starting_stack_and_through_their_level() -> None:
    field = field_of(4, rebuy_levels=2, rebuy_price=50, rebuy_chips=800)
    with pytest.raises(FieldError) as raised:
        field.rebuy(1, 1001)
    assert raised.value.reason == "stack_too_big"
    field.rebuy(1, 1000)
    assert field.prize_pool == 450 and field.chips_in_play == 4800
    # a bust while rebuys are sold: the player waits, rebuys and is back in
    assert field.settle({2: 900, 3: 900}, {2: 0, 3: 1800}) == []
    assert field.waiting == {2: 900} and field.alive == 3
    field.rebuy(2, 0)
    assert field.waiting == {} and field.entries[2].rebuys == 1
    # a waiting player who declines is out, by the stack they began the hand with
    field.settle({3: 100, 4: 2000}, {3: 0, 4: 2100})
    assert field.settle_waiting([3]) == [3] and field.places == {3: 4}
    field.level = 3
    with pytest.raises(FieldError) as raised:
        field.rebuy(1, 0)
    assert raised.value.reason == "rebuys_closed"
    with pytest.raises(FieldError) as raised:
        field.rebuy(3, 0)
    assert raised.value.reason in ("rebuys_closed", "not_in_play")


def test_one_add_on_at_its_break_and_the_pool_grows_with_it() -> None:
    field = field_of(4, breaks=[1, 2], addon_break=2, addon_price=70, addon_chips=1500)
    with pytest.raises(FieldError) as raised:
        field.addon(1)
    assert raised.value.reason == "addon_closed"
    field.at_break = 1
    with pytest.raises(FieldError):
        field.addon(1)
    field.at_break = 2
    field.addon(1)
    with pytest.raises(FieldError) as raised:
        field.addon(1)
    assert raised.value.reason == "addon_taken"
    assert field.prize_pool == 470 and field.chips_in_play == 5500
    assert field.settings.schedule.payouts  # paid by the schedule's basis points


def test_payouts_add_up_exactly_to_a_pool_of_buy_ins_rebuys_and_add_ons() -> None:
    field = field_of(7, payouts=[4700, 3100, 2200], rebuy_levels=1, rebuy_price=33,
                     breaks=[1], addon_break=1, addon_price=17)  # fmt: skip
    field.rebuy(2, 10)
    field.at_break = 1
    field.addon(3)
    field.at_break = None
    field.level = 2
    stacks = {p: 1000 for p in range(1, 8)}
    for loser in range(7, 1, -1):
        field.settle({loser: stacks[loser], 1: 1}, {loser: 0, 1: 1})
    assert field.status == "finished" and field.places[1] == 1
    prizes = field.prizes()
    assert field.prize_pool == 750 and sum(prizes.values()) == 750
    # 4,700, 3,100 and 2,200 basis points of 750: 352.5, 232.5, 165 rounded down; the
    # chip left over goes to the winner
    assert [prizes[p] for p in (1, 2, 3)] == [353, 232, 165]


def test_a_cancelled_tournament_refunds_exactly_what_each_player_paid() -> None:
    field = field_of(5, rebuy_levels=1, rebuy_price=60, breaks=[1], addon_break=1, addon_price=25)
    field.rebuy(1, 0)
    field.rebuy(1, 0)
    field.at_break = 1
    field.addon(2)
    refunds = field.cancel()
    assert refunds == {1: 220, 2: 125, 3: 100, 4: 100, 5: 100}
    assert sum(refunds.values()) == 645
    assert field.status == "cancelled"
    with pytest.raises(FieldError) as raised:
        field.cancel()
    assert raised.value.reason == "already_over"
    with pytest.raises(FieldError):
        field.register("after")
