"""Sit-and-go tournaments, as pure logic: the level schedule (ante, bring-in and bets that
rise every N hands or every N minutes), eliminations and finishing places, and the payouts
of a stated schedule. No clock and no I/O here: the caller passes the hands dealt and the
seconds elapsed, and stores what comes back.

Players are identified by their table seat. Places follow the usual rule (TDA): players
who bust on the same hand finish in order of the chips they started that hand with, more
chips finishing higher; equal starting stacks tie for the higher place and share the
prizes of the places they span."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from studclients.table.errors import SettingsError

UNITS = ("hands", "minutes")
#: Payouts are stated in basis points of the prize pool (10,000 = all of it).
WHOLE = 10_000


@dataclass(frozen=True)
class Level:
    """One level's stakes; the big bet is twice the small bet unless stated."""

    ante: int
    bring_in: int
    small_bet: int
    big_bet: int

    def as_dict(self) -> dict[str, int]:
        return {
            "ante": self.ante,
            "bring_in": self.bring_in,
            "small_bet": self.small_bet,
            "big_bet": self.big_bet,
        }


LEVEL_FIELDS = frozenset({"ante", "bring_in", "small_bet", "big_bet"})
SCHEDULE_FIELDS = frozenset({"levels", "every", "unit", "payouts", "buy_in"})


def _known(raw: Mapping[str, Any], fields: frozenset[str], field: str) -> None:
    unknown = sorted(str(key) for key in raw if key not in fields)
    if unknown:
        raise SettingsError(f"{field}.{unknown[0]}", "is not a field of it")


def _int(value: Any, field: str, low: int = 0) -> int:
    if type(value) is not int or value < low or value > 10**15:
        raise SettingsError(field, f"must be an integer from {low} to 10^15")
    return value


def make_level(raw: Any, field: str) -> Level:
    """A level from ``{"ante", "bring_in", "small_bet"[, "big_bet"]}``."""
    if not isinstance(raw, Mapping):
        raise SettingsError(field, "must be an object with ante, bring_in and small_bet")
    _known(raw, LEVEL_FIELDS, field)
    ante = _int(raw.get("ante", 0), f"{field}.ante")
    bring_in = _int(raw.get("bring_in"), f"{field}.bring_in", 1)
    small = _int(raw.get("small_bet"), f"{field}.small_bet", 1)
    big = _int(raw.get("big_bet", 2 * small), f"{field}.big_bet", 1)
    if bring_in > small:
        raise SettingsError(f"{field}.bring_in", "must be at most the small bet")
    if big < small:
        raise SettingsError(f"{field}.big_bet", "must be at least the small bet")
    return Level(ante, bring_in, small, big)


def parse_levels(text: str) -> list[dict[str, int]]:
    """``"5/10/20,10/15/30"`` (ante/bring-in/small bet per level) as level objects."""
    levels = []
    for number, part in enumerate(p for p in text.split(",") if p.strip()):
        pieces = part.strip().split("/")
        if len(pieces) != 3 or not all(p.strip().isdigit() for p in pieces):
            raise SettingsError(f"levels[{number}]", f"{part.strip()!r} is not ANTE/BRING/BET")
        ante, bring_in, small = (int(p) for p in pieces)
        levels.append({"ante": ante, "bring_in": bring_in, "small_bet": small})
    return levels


@dataclass(frozen=True)
class Schedule:
    """The levels, how long each lasts (``every`` hands or minutes), the payouts by place
    (basis points of the prize pool, first place first) and the buy-in that makes the
    pool (tournament chips are separate: every player starts with the table's stack)."""

    levels: tuple[Level, ...]
    every: int
    unit: str
    payouts: tuple[int, ...]
    buy_in: int

    @classmethod
    def from_dict(cls, raw: Any, entrants: int) -> Schedule:
        if not isinstance(raw, Mapping):
            raise SettingsError("tournament", "must be an object")
        _known(raw, SCHEDULE_FIELDS, "tournament")
        levels = raw.get("levels")
        if not isinstance(levels, Sequence) or isinstance(levels, str) or not levels:
            raise SettingsError("tournament.levels", "must be a non-empty list of levels")
        if len(levels) > 100:
            raise SettingsError("tournament.levels", "at most 100 levels")
        unit = raw.get("unit", "hands")
        if unit not in UNITS:
            raise SettingsError("tournament.unit", f"must be one of {', '.join(UNITS)}")
        payouts = raw.get("payouts", [WHOLE])
        if not isinstance(payouts, Sequence) or isinstance(payouts, str) or not payouts:
            raise SettingsError("tournament.payouts", "must be a non-empty list")
        schedule = cls(
            levels=tuple(make_level(lv, f"tournament.levels[{i}]") for i, lv in enumerate(levels)),
            every=_int(raw.get("every", 10), "tournament.every", 1),
            unit=str(unit),
            payouts=tuple(_int(p, f"tournament.payouts[{i}]") for i, p in enumerate(payouts)),
            buy_in=_int(raw.get("buy_in", 0), "tournament.buy_in"),
        )
        if sum(schedule.payouts) != WHOLE:
            raise SettingsError("tournament.payouts", f"must add up to {WHOLE} basis points")
        if list(schedule.payouts) != sorted(schedule.payouts, reverse=True):
            raise SettingsError("tournament.payouts", "a place may not pay more than one above")
        if len(schedule.payouts) >= entrants:
            raise SettingsError(
                "tournament.payouts",
                f"{entrants} entrants: pay at most {entrants - 1} place"
                + ("s" if entrants != 2 else ""),
            )
        return schedule

    def as_dict(self) -> dict[str, Any]:
        return {
            "levels": [level.as_dict() for level in self.levels],
            "every": self.every,
            "unit": self.unit,
            "payouts": list(self.payouts),
            "buy_in": self.buy_in,
        }

    # ---- levels -------------------------------------------------------------------------
    def level_index(self, hands_dealt: int, elapsed: float) -> int:
        """The level of the next hand, 0-based, after ``hands_dealt`` hands of the
        tournament and ``elapsed`` seconds since its first deal. A level that runs out
        in the middle of a hand starts with the next hand; the last level lasts."""
        if self.unit == "hands":
            index = hands_dealt // self.every
        else:
            index = int(max(elapsed, 0.0) // (self.every * 60))
        return min(index, len(self.levels) - 1)

    def next_level(self, hands_dealt: int, elapsed: float) -> dict[str, Any] | None:
        """When the level after the next hand's starts: ``{"level", "in_hands"}`` or
        ``{"level", "in_seconds"}``; None on the last level."""
        index = self.level_index(hands_dealt, elapsed)
        if index + 1 >= len(self.levels):
            return None
        if self.unit == "hands":
            return {"level": index + 1, "in_hands": (index + 1) * self.every - hands_dealt}
        return {"level": index + 1, "in_seconds": (index + 1) * self.every * 60 - elapsed}

    # ---- prizes -------------------------------------------------------------------------
    def prize_pool(self, entrants: int) -> int:
        return self.buy_in * entrants

    def prizes(self, entrants: int) -> list[int]:
        """The prize of each paid place, first place first, summing exactly to the pool:
        each place gets its share rounded down, and the chips left over go to the winner."""
        return split_pool(self.prize_pool(entrants), self.payouts)


def split_pool(pool: int, payouts: Sequence[int]) -> list[int]:
    """``pool`` split by ``payouts`` (basis points, first place first), summing exactly:
    each place gets its share rounded down, and the chips left over go to the winner."""
    prizes = [pool * share // WHOLE for share in payouts]
    prizes[0] += pool - sum(prizes)
    return prizes


@dataclass(frozen=True)
class Standings:
    """Who is out and where they finished: ``places[seat] = place`` (1 is the winner)."""

    entrants: int
    places: Mapping[int, int]

    @property
    def alive(self) -> int:
        return self.entrants - len(self.places)

    @property
    def finished(self) -> bool:
        """Everyone has a place: the winner's is set when the last opponent busts."""
        return len(self.places) == self.entrants


def eliminate(
    standings: Standings, start: Mapping[int, int], final: Mapping[int, int]
) -> Standings:
    """The standings after a hand that each seat began with ``start[seat]`` chips and
    ended with ``final[seat]``. Busted players take the lowest places still open, the one
    who began the hand with fewer chips finishing lower; equal stacks tie for the higher
    place. When one player is left, they take first place."""
    busted = [s for s, chips in final.items() if chips == 0 and s not in standings.places]
    survivors = [s for s, chips in final.items() if chips > 0]
    places = dict(standings.places)
    worst = standings.alive  # the place the first one out of the field takes
    for stack in sorted({start[s] for s in busted}):
        group = [s for s in busted if start[s] == stack]
        for seat in group:
            places[seat] = worst - len(group) + 1
        worst -= len(group)
    if len(survivors) == 1 and worst == 1:
        places[survivors[0]] = 1
    return Standings(standings.entrants, places)


def awards(schedule: Schedule, standings: Standings, pool: int | None = None) -> dict[int, int]:
    """Each finished player's prize (0 when unpaid): tied players share the prizes of the
    places they span, the odd chips one each to the lower seat numbers first. ``pool``
    overrides the buy-ins' pool (a multi-table tournament's counts rebuys and add-ons)."""
    if pool is None:
        paid = schedule.prizes(standings.entrants)
    else:
        paid = split_pool(pool, schedule.payouts)
    prize_of = dict.fromkeys(standings.places, 0)
    tied: dict[int, list[int]] = {}
    for seat, place in standings.places.items():
        tied.setdefault(place, []).append(seat)
    for place, seats in tied.items():
        spanned = paid[place - 1 : place - 1 + len(seats)]
        total = sum(spanned)
        share, odd = divmod(total, len(seats))
        for rank, seat in enumerate(sorted(seats)):
            prize_of[seat] = share + (1 if rank < odd else 0)
    return prize_of


def ordered(standings: Standings, stacks: Mapping[int, int]) -> list[int]:
    """Seats from first to last: finished places first by place, then the players still
    in by their chips (most first), each group by seat number."""
    alive = sorted((s for s in stacks if s not in standings.places), key=lambda s: (-stacks[s], s))
    out = sorted(standings.places, key=lambda s: (standings.places[s], s))
    return alive + out if alive else out
