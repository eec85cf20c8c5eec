"""SeatInfo's card fields (8 to 10) for a seat's cards, as bytes: hidden from the other
viewers (its down cards "" in field 8, none in field 10) and shown. ``views`` takes the
one ``visibility`` gives a viewer; nothing here decides who sees what.
"""

from __future__ import annotations

from typing import Final

from studengine.api._gen.stud.v1 import stud_engine_keys as keys
from studengine.api.conversions import card_fields
from studengine.rules.variants import VariantSpec
from studengine.state.bounded import BoundedCache
from studengine.state.wire import BytesWriter, record


class HeldCards:
    """SeatInfo's fields 8 to 10 for a seat's cards: hidden from others (its down cards
    "" in field 8, none in field 10) and shown. A seat's cards stay the same for every
    call of a street while every call shows them: each distinct hand of a variant is
    made once and found again by its number (``held_key``); at most ``limit`` are kept
    (then it starts over). What is found depends on the number alone: no viewer, no table."""

    def __init__(self, limit: int = 4096) -> None:
        # held_key: (hidden, shown); about 4,096 hands of some 60 bytes each at most
        self.cache: BoundedCache[int, tuple[bytes, bytes]] = BoundedCache(limit)

    def get(self, spec: VariantSpec, pattern: int, cards: list[int]) -> tuple[bytes, bytes]:
        """``cards``' fields, hidden and shown; ``pattern``: the spec's ``card_pattern``."""
        key = held_key(pattern, cards)
        found = self.cache.found.get(key)
        if found is None:
            found = self.cache.put(key, _held_cards(spec, cards))
        return found


def held_key(pattern: int, cards: list[int]) -> int:
    """One number for a variant's ``pattern`` (``card_pattern``) and a seat's cards:
    the pattern, 6 bits a card, 4 bits of their count; two hands have one number only if
    their fields are the same."""
    key = pattern
    for card in cards:
        key = key << 6 | card
    return key << 4 | len(cards)


def card_pattern(spec: VariantSpec) -> int:
    """Which of a variant's cards are dealt face up, as a number: a 1, then a bit each."""
    pattern = 1
    for up in spec.face_up:
        pattern = pattern << 1 | up
    return pattern


def _held_cards(spec: VariantSpec, cards: list[int]) -> tuple[bytes, bytes]:
    """Fields 8 to 10 of ``cards``: the down cards hidden, and shown."""
    count, up = len(cards), spec.face_up
    hidden, shown = BytesWriter(), BytesWriter()
    for i in range(count):
        hidden.write(_CARDS[cards[i]] if up[i] else _HIDDEN_CARD)
        shown.write(_CARDS[cards[i]])
    for i in spec.up_positions_of[count]:
        hidden.write(_UP_CARDS[cards[i]])
        shown.write(_UP_CARDS[cards[i]])
    for i in spec.down_positions_of[count]:
        shown.write(_DOWN_CARDS[cards[i]])
    return hidden.getvalue(), shown.getvalue()


# each card's text as one element of SeatInfo's repeated strings; a hidden card is ""
_CARDS: Final = card_fields(keys.SEAT_INFO_CARDS)
_UP_CARDS: Final = card_fields(keys.SEAT_INFO_UP_CARDS)
_DOWN_CARDS: Final = card_fields(keys.SEAT_INFO_DOWN_CARDS)
_HIDDEN_CARD: Final = record(keys.SEAT_INFO_CARDS, b"")

HELD_CARDS: Final = HeldCards()  # the process's: what it holds is the same for every call
