"""What the next hand at a table is: its game (a mixed table's rotation) and stakes (a
tournament's level), whether it may be dealt at all (a sit-and-go waits for every seat and
stops at its winner), and the page's account of both. Pure: the stored rows and the time
are passed in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from studclients.client import VARIANT_NAMES
from studclients.table import tournament
from studclients.table.mixed import Rotation


@dataclass(frozen=True)
class HandPlan:
    """The next hand's game and stakes, and what its deal writes to the table's and the
    tournament's rows (in the deal's transaction)."""

    variant: int
    stakes: tournament.Level
    tournament: bool = False
    table_values: dict[str, Any] = field(default_factory=dict)
    tournament_values: dict[str, Any] = field(default_factory=dict)


def rotation_of(table: Any) -> Rotation | None:
    if not table.games:
        return None
    return Rotation(tuple(table.games), int(table.rotate_every))


def schedule_of(row: Any) -> tournament.Schedule:
    return tournament.Schedule.from_dict(row.schedule, row.entrants)


def standings_of(row: Any) -> tournament.Standings:
    return tournament.Standings(row.entrants, {int(s): p for s, p in row.places.items()})


def plan_hand(table: Any, event: Any | None, seated: Sequence[Any], now: float) -> HandPlan | None:
    """The plan of hand ``table.hand_no + 1`` with ``seated`` (the seats with chips), or
    None when it is not to be dealt: fewer than two players, a sit-and-go still filling
    its seats or already won."""
    if len(seated) < 2:
        return None
    number = table.hand_no + 1
    rotation = rotation_of(table)
    variant = rotation.game_of(number) if rotation else table.variant
    stakes = tournament.Level(table.ante, table.bring_in, table.small_bet, table.big_bet)
    values: dict[str, Any] = {"variant": variant}
    if event is None:
        return HandPlan(variant, stakes, table_values=values)
    if event.status == "finished":
        return None
    started = {"status": "running", "started_at": now, "first_hand": table.hand_no}
    if event.status == "registering":
        if len(seated) < event.entrants:
            return None
        started["names"] = {str(s.seat_no): s.name for s in seated}
    else:
        started = {"started_at": event.started_at, "first_hand": event.first_hand}
    plan = schedule_of(event)
    level = plan.level_index(table.hand_no - started["first_hand"], now - started["started_at"])
    stakes = plan.levels[level]
    values.update(stakes.as_dict())
    return HandPlan(variant, stakes, True, values, {**started, "level": level})


def game_part(table: Any, hand_number: int | None) -> dict[str, Any]:
    """The game of hand ``hand_number`` (the newest one, or the first) and, at a mixed
    table, the next change: ``{"name", "next": {"name", "hand", "after_hands"}}``, where
    ``after_hands`` counts the hands still to come in this game after that one."""
    now = hand_number or table.hand_no or 1
    part: dict[str, Any] = {"name": VARIANT_NAMES[table.variant], "next": None}
    rotation = rotation_of(table)
    if rotation is None:
        return part
    part["name"] = VARIANT_NAMES[rotation.game_of(now)]
    part["every"] = rotation.every
    part["games"] = [VARIANT_NAMES[g] for g in rotation.games]
    change = rotation.next_change(now)
    if change is not None:
        game, first = change
        part["next"] = {"name": VARIANT_NAMES[game], "hand": first, "after_hands": first - now - 1}
    return part


def tournament_part(table: Any, event: Any, seats: Mapping[int, Any], now: float) -> dict[str, Any]:
    """A sit-and-go as the page shows it: status, level and the next one, the prizes and
    the standings (finished places first-to-last, players still in by their chips)."""
    plan = schedule_of(event)
    standings = standings_of(event)
    names = {int(s): n for s, n in event.names.items()} or {n: s.name for n, s in seats.items()}
    stacks = {n: (seats[n].stack if n in seats else 0) for n in names}
    prizes = tournament.awards(plan, standings)
    paid = plan.prizes(event.entrants)
    rows = []
    for seat in tournament.ordered(standings, stacks):
        place = standings.places.get(seat)
        rows.append(
            {
                "seat": seat,
                "name": names[seat],
                "place": place,
                "chips": stacks[seat],
                "prize": prizes.get(seat, 0) if place is not None else None,
            }
        )
    part: dict[str, Any] = {
        "status": event.status,
        "entrants": event.entrants,
        "registered": len(seats),
        "level": event.level + 1,
        "levels": len(plan.levels),
        "stakes": plan.levels[event.level].as_dict(),
        "unit": plan.unit,
        "every": plan.every,
        "next_level": None,
        "buy_in": plan.buy_in,
        "prize_pool": plan.prize_pool(event.entrants),
        "prizes": paid,
        "standings": rows,
    }
    if event.status == "running":
        part["next_level"] = _next_level(plan, table, event, now)
    return part


def _next_level(
    plan: tournament.Schedule, table: Any, event: Any, now: float
) -> dict[str, Any] | None:
    """``{"level", "stakes"}`` and when: ``after_hands`` (hands still to come at this
    level, 0: from the next hand) or ``at`` (epoch ms; it starts with the first hand
    dealt from then)."""
    dealt, elapsed = table.hand_no - event.first_hand, now - event.started_at
    coming = plan.level_index(dealt, elapsed)
    if coming > event.level:
        when: dict[str, Any] = {"after_hands": 0}
    else:
        upcoming = plan.next_level(dealt, elapsed)
        if upcoming is None:
            return None
        coming = upcoming["level"]
        if "in_hands" in upcoming:
            when = {"after_hands": upcoming["in_hands"]}
        else:
            when = {"at": int((now + upcoming["in_seconds"]) * 1000)}
    return {"level": coming + 1, "stakes": plan.levels[coming].as_dict(), **when}
