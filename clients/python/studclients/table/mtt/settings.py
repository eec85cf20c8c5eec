"""A multi-table tournament's settings: the sit-and-go's schedule (levels, payouts,
buy-in; tournament.py) plus the table size, the field's limits, late registration,
rebuys, breaks and the add-on. Levels are counted from 1 here, as players read them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from studclients.table import tournament
from studclients.table.errors import SettingsError

#: Seven card stud seats eight at most (eight players times seven cards fits the deck).
MAX_SEATS = 8
MAX_ENTRANTS = 10_000
FIELDS = frozenset(
    {
        "seats", "starting_stack", "min_entrants", "max_entrants", "late_levels",
        "rebuy_levels", "rebuy_price", "rebuy_chips", "breaks", "addon_break",
        "addon_price", "addon_chips", "hand_for_hand_margin", "break_seconds",
    }
)  # fmt: skip


def _int(raw: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = raw.get(name, default)
    if type(value) is not int or not low <= value <= high:
        raise SettingsError(f"tournament.{name}", f"must be an integer from {low} to {high}")
    return value


@dataclass(frozen=True)
class MttSettings:
    """What a multi-table tournament plays by. ``late_levels``: registration stays open
    through that level (0: closes at the first deal); ``rebuy_levels``: rebuys are sold
    through that level (0: none); ``breaks``: the levels after which play pauses;
    ``addon_break``: the break (one of ``breaks``) at which the one add-on is sold;
    ``hand_for_hand_margin``: hand-for-hand starts that many players before the bubble;
    ``break_seconds``: how long each break lasts."""

    schedule: tournament.Schedule
    seats: int
    starting_stack: int
    min_entrants: int
    max_entrants: int
    late_levels: int
    rebuy_levels: int
    rebuy_price: int
    rebuy_chips: int
    breaks: tuple[int, ...]
    addon_break: int | None
    addon_price: int
    addon_chips: int
    hand_for_hand_margin: int
    break_seconds: int = 300

    @property
    def paid_places(self) -> int:
        return len(self.schedule.payouts)

    @classmethod
    def from_dict(cls, raw: Any) -> MttSettings:
        if not isinstance(raw, Mapping):
            raise SettingsError("tournament", "must be an object")
        own = {k: v for k, v in raw.items() if k in FIELDS}
        payouts = raw.get("payouts", [tournament.WHOLE])
        places = len(payouts) if isinstance(payouts, Sequence) else 1
        # The schedule's own checks; the field's size is checked against the payouts below.
        schedule = tournament.Schedule.from_dict(
            {k: v for k, v in raw.items() if k not in FIELDS}, places + 1
        )
        levels = len(schedule.levels)
        seats = _int(own, "seats", MAX_SEATS, 2, MAX_SEATS)
        stack = _int(own, "starting_stack", 1000, 1, 10**12)
        least = _int(own, "min_entrants", 2, 2, MAX_ENTRANTS)
        if least <= places:
            raise SettingsError("tournament.min_entrants", f"must be more than the {places} paid")
        breaks = own.get("breaks", [])
        if not isinstance(breaks, Sequence) or isinstance(breaks, str):
            raise SettingsError("tournament.breaks", "must be a list of level numbers")
        for at in breaks:
            if type(at) is not int or not 1 <= at <= levels:
                raise SettingsError("tournament.breaks", f"each must be a level from 1 to {levels}")
        addon_break = own.get("addon_break")
        if addon_break is not None and addon_break not in breaks:
            raise SettingsError("tournament.addon_break", "must be one of the breaks")
        return cls(
            schedule=schedule,
            seats=seats,
            starting_stack=stack,
            min_entrants=least,
            max_entrants=_int(own, "max_entrants", MAX_ENTRANTS, least, MAX_ENTRANTS),
            late_levels=_int(own, "late_levels", 0, 0, levels),
            rebuy_levels=_int(own, "rebuy_levels", 0, 0, levels),
            rebuy_price=_int(own, "rebuy_price", schedule.buy_in, 0, 10**15),
            rebuy_chips=_int(own, "rebuy_chips", stack, 1, 10**12),
            breaks=tuple(sorted(set(breaks))),
            addon_break=addon_break,
            addon_price=_int(own, "addon_price", schedule.buy_in, 0, 10**15),
            addon_chips=_int(own, "addon_chips", stack, 1, 10**12),
            hand_for_hand_margin=_int(own, "hand_for_hand_margin", 0, 0, MAX_ENTRANTS),
            break_seconds=_int(own, "break_seconds", 300, 0, 86_400),
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.schedule.as_dict(),
            "seats": self.seats,
            "starting_stack": self.starting_stack,
            "min_entrants": self.min_entrants,
            "max_entrants": self.max_entrants,
            "late_levels": self.late_levels,
            "rebuy_levels": self.rebuy_levels,
            "rebuy_price": self.rebuy_price,
            "rebuy_chips": self.rebuy_chips,
            "breaks": list(self.breaks),
            "addon_break": self.addon_break,
            "addon_price": self.addon_price,
            "addon_chips": self.addon_chips,
            "hand_for_hand_margin": self.hand_for_hand_margin,
            "break_seconds": self.break_seconds,
        }

    def hand_for_hand(self, alive: int, tables: int) -> bool:
        """Whether every table is to finish its hand before the next is dealt: on the
        bubble (``hand_for_hand_margin`` players before it), while more than one table
        plays (at the final table it is hand-for-hand by itself)."""
        paid = self.paid_places
        return tables > 1 and paid < alive <= paid + 1 + self.hand_for_hand_margin
