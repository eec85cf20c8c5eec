"""The one bounded cache of the hot path: what is made once and found again on many calls
(a table read and decoded, a game's serialized fields, a seat's card fields), held in a
dict of at most ``limit`` entries that starts over (is emptied) when full. The few
distinct values a process serves fill it again at once; a stream of new ones (every
table different) costs one miss each and never more memory than ``limit`` entries. No
LRU order to keep up on every hit: a hit is one lookup in ``found``, a plain dict, with
no call of ours around it (the pure build pays for each Python call)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

#: the default bound: a few hundred distinct tables or games (a card room runs a handful)
DEFAULT_LIMIT: Final = 256


class BoundedCache(Generic[K, V]):
    """A dict of at most ``limit`` entries: ``found.get(key)`` finds one (None: not held),
    ``put`` holds one (emptying the cache first when it is full)."""

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        if limit < 1:
            raise ValueError(f"a cache of {limit} entries")
        self.limit = limit
        self.found: dict[K, V] = {}

    def put(self, key: K, value: V) -> V:
        """Hold ``value`` under ``key``; ``value``."""
        found = self.found
        if len(found) >= self.limit:
            found.clear()
        found[key] = value
        return value

    def __len__(self) -> int:
        return len(self.found)


class GameFields(Generic[V]):
    """What ``make`` makes of a game (its variant and table: their fields, serialized or as
    a record), once per distinct game, found again by identity: hashing a Table (or an enum
    member) runs Python code for each of its fields, and a decoded hand's table is the one
    object its decoding made (``codec._decode_table`` keeps one per distinct table)."""

    def __init__(self, make: Callable[[Any, Any], V], limit: int = DEFAULT_LIMIT) -> None:
        self.make = make
        # (id(variant), id(table)): (the table, held so that its id stays its own; made)
        self.cache: BoundedCache[tuple[int, int], tuple[object, V]] = BoundedCache(limit)

    def get(self, variant: object, table: object) -> V:
        key = (id(variant), id(table))
        found = self.cache.found.get(key)
        if found is None or found[0] is not table:
            found = self.cache.put(key, (table, self.make(variant, table)))
        return found[1]
