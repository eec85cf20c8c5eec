"""Mixed games, as pure logic: a table that rotates its games every N hands, as card rooms
run the stud games of H.O.R.S.E. (Razz, Seven Card Stud, Seven Card Stud Hi-Lo; Five Card
Stud may join). The game of a hand follows from its number alone, so every replica and a
restarted one agree on it without storing anything but the rotation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from studclients.client import MAX_PLAYERS, VARIANTS
from studclients.table.errors import SettingsError

#: The card-room order of H.O.R.S.E.'s stud games: R, S, E.
HORSE_STUD: tuple[int, ...] = (VARIANTS["razz"], VARIANTS["seven"], VARIANTS["hilo"])


@dataclass(frozen=True)
class Rotation:
    """``games`` in turn, ``every`` hands each; a single game never changes."""

    games: tuple[int, ...]
    every: int

    @classmethod
    def make(cls, games: Sequence[int], every: int) -> Rotation:
        if not games:
            raise SettingsError("games", "name at least one game")
        unknown = [g for g in games if g not in MAX_PLAYERS]
        if unknown:
            raise SettingsError("games", f"unknown game {unknown[0]}")
        if type(every) is not int or not 1 <= every <= 10_000:
            raise SettingsError("rotate_every", "must be an integer from 1 to 10,000")
        return cls(tuple(games), every)

    @property
    def max_seats(self) -> int:
        """The most players every game of the rotation seats (R-SEATS)."""
        return min(MAX_PLAYERS[g] for g in self.games)

    def game_of(self, number: int) -> int:
        """The game of the table's hand ``number`` (the first hand is 1)."""
        return self.games[((max(number, 1) - 1) // self.every) % len(self.games)]

    def next_change(self, number: int) -> tuple[int, int] | None:
        """After hand ``number``: (the next game, the number of its first hand), or None
        when the table plays one game only."""
        if len(set(self.games)) == 1:
            return None
        first = ((max(number, 1) - 1) // self.every + 1) * self.every + 1
        while self.game_of(first) == self.game_of(number):
            first += self.every
        return self.game_of(first), first
