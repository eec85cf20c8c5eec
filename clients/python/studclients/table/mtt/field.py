"""A multi-table tournament's field: entries (late registration to a stated level),
rebuys (while a player has at most the starting stack, to a stated level), the one add-on
at a stated break, the prize pool they make, exact refunds when it is cancelled, and
places. Places follow the sit-and-go's rule (tournament.eliminate): players who bust in
the same hand, or in the same hand-for-hand round, finish by the stacks they began it
with. A player who busts while rebuys are sold waits out of the field's count until they
rebuy or decline (``settle_waiting``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from studclients.table import tournament
from studclients.table.mtt.settings import MttSettings

STATUSES = ("registering", "running", "finished", "cancelled")


class FieldError(Exception):
    """A refused entry, rebuy or add-on: a machine-readable ``reason`` and a message."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass
class Entry:
    """One player's entry: what they paid (buy-in, rebuys, add-on) and the chips it bought."""

    player: int
    name: str
    paid: int
    chips: int
    rebuys: int = 0
    addon: bool = False


@dataclass
class Field:
    """Everyone who entered, what the field paid, who is out and where they finished.
    ``level`` is the level of the next hand (1 is the first); ``at_break`` the level after
    which play is paused for a break, if it is."""

    settings: MttSettings
    status: str = "registering"
    level: int = 1
    at_break: int | None = None
    break_until: float = 0.0  # when the break ends (epoch seconds, passed in)
    entries: dict[int, Entry] = field(default_factory=dict)
    places: dict[int, int] = field(default_factory=dict)
    waiting: dict[int, int] = field(default_factory=dict)  # busted, may rebuy: start stack

    def as_dict(self) -> dict[str, Any]:
        """The field as stored (JSON; the settings are stored on their own)."""
        return {
            "status": self.status,
            "level": self.level,
            "at_break": self.at_break,
            "break_until": self.break_until,
            "entries": [dict(vars(entry)) for entry in self.entries.values()],
            "places": {str(p): place for p, place in self.places.items()},
            "waiting": {str(p): stack for p, stack in self.waiting.items()},
        }

    @classmethod
    def from_dict(cls, settings: MttSettings, raw: Mapping[str, Any]) -> Field:
        entries = {int(e["player"]): Entry(**e) for e in raw["entries"]}
        return cls(
            settings,
            status=str(raw["status"]),
            level=int(raw["level"]),
            at_break=raw["at_break"],
            break_until=float(raw.get("break_until", 0.0)),
            entries=entries,
            places={int(p): int(place) for p, place in raw["places"].items()},
            waiting={int(p): int(stack) for p, stack in raw["waiting"].items()},
        )

    # ---- money and chips ------------------------------------------------------------------
    @property
    def prize_pool(self) -> int:
        return sum(entry.paid for entry in self.entries.values())

    @property
    def chips_in_play(self) -> int:
        """The chips the field bought: every stack at every table adds up to this."""
        return sum(entry.chips for entry in self.entries.values())

    def standings(self) -> tournament.Standings:
        return tournament.Standings(len(self.entries), dict(self.places))

    @property
    def alive(self) -> int:
        return len(self.entries) - len(self.places) - len(self.waiting)

    def prizes(self) -> dict[int, int]:
        """Each placed player's prize (tied places share), from the pool the field paid."""
        return tournament.awards(self.settings.schedule, self.standings(), self.prize_pool)

    # ---- registration ---------------------------------------------------------------------
    def registration_open(self) -> bool:
        if self.status == "registering":
            return True
        return self.status == "running" and self.level <= self.settings.late_levels

    def register(self, name: str) -> Entry:
        """A new entry at the full buy-in and starting stack. Players already out drop a
        place each: the newcomer is still in, so finishes above them."""
        if not self.registration_open():
            raise FieldError("registration_closed", "registration is closed")
        if len(self.entries) >= self.settings.max_entrants:
            raise FieldError("tournament_full", f"the field is full at {len(self.entries)}")
        player = max(self.entries, default=0) + 1
        entry = Entry(player, name, self.settings.schedule.buy_in, self.settings.starting_stack)
        self.entries[player] = entry
        self.places = {p: place + 1 for p, place in self.places.items()}
        return entry

    def start(self) -> None:
        if self.status != "registering":
            raise FieldError("not_registering", f"the tournament is {self.status}")
        if len(self.entries) < self.settings.min_entrants:
            raise FieldError(
                "too_few_entrants",
                f"{len(self.entries)} entered; {self.settings.min_entrants} needed",
            )
        self.status = "running"

    def rebuy(self, player: int, stack: int) -> Entry:
        """One more stack for ``player`` (who has ``stack`` chips, or is waiting busted)."""
        entry = self._in_play(player)
        limit = self.settings.rebuy_levels
        if self.level > limit:
            raise FieldError("rebuys_closed", f"rebuys are sold through level {limit}")
        if stack > self.settings.starting_stack:
            raise FieldError("stack_too_big", "rebuys: at most the starting stack in front")
        entry.paid += self.settings.rebuy_price
        entry.chips += self.settings.rebuy_chips
        entry.rebuys += 1
        self.waiting.pop(player, None)
        return entry

    def addon(self, player: int) -> Entry:
        """The one add-on, at the stated break."""
        entry = self._in_play(player)
        if self.at_break is None or self.at_break != self.settings.addon_break:
            raise FieldError("addon_closed", "the add-on is sold at its break only")
        if entry.addon:
            raise FieldError("addon_taken", "one add-on per player")
        entry.paid += self.settings.addon_price
        entry.chips += self.settings.addon_chips
        entry.addon = True
        return entry

    def _in_play(self, player: int) -> Entry:
        if self.status != "running":
            raise FieldError("not_running", f"the tournament is {self.status}")
        entry = self.entries.get(player)
        if entry is None or player in self.places:
            raise FieldError("not_in_play", "that player is not in the tournament")
        return entry

    def cancel(self) -> dict[int, int]:
        """Cancel: every player gets back what they paid (the refunds add up to the pool)."""
        if self.status in ("finished", "cancelled"):
            raise FieldError("already_over", f"the tournament is {self.status}")
        refunds = {player: entry.paid for player, entry in self.entries.items()}
        self.status = "cancelled"
        return refunds

    # ---- places ---------------------------------------------------------------------------
    def settle(self, start: Mapping[int, int], final: Mapping[int, int]) -> list[int]:
        """The places after one hand at one table, or one hand-for-hand round at every
        table: ``start``/``final`` are the stacks each player dealt in began and ended it
        with. Returns the players placed. While rebuys are sold, the busted wait instead."""
        busted = {p: start[p] for p, chips in final.items() if chips == 0 and p not in self.places}
        if self.level <= self.settings.rebuy_levels:
            self.waiting.update(busted)
            return []
        return self._eliminate(busted)

    def settle_waiting(self, players: list[int]) -> list[int]:
        """Busted players who did not rebuy are out, by the stacks they began their last
        hand with (the same rule)."""
        busted = {p: self.waiting.pop(p) for p in players if p in self.waiting}
        return self._eliminate(busted)

    def _eliminate(self, busted: Mapping[int, int]) -> list[int]:
        """Places for ``busted`` (player: the stack they began the hand with). Waiting
        players may still rebuy, so they count as still in: no one wins while they wait."""
        if not busted:
            return []
        standings = self.standings()
        final = {p: 1 for p in self.entries if p not in self.places and p not in self.waiting}
        final.update(dict.fromkeys(busted, 0))
        after = tournament.eliminate(standings, busted, final)
        self.places = dict(after.places)
        if after.finished:
            self.status = "finished"
        return [p for p in after.places if p not in standings.places]
