"""Cards as small integers, their text form, and the deck shuffle.

A card is ``rank * 4 + suit``: ranks 2..A are 0..12, suits clubs, diamonds, hearts,
spades are 0..3, so comparing two ints compares rank first and suit second, which is
exactly the bring-in order of R-BRING-IN-WHO and R-SUITS.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK_SIZE = 52
FULL_DECK: tuple[int, ...] = tuple(range(DECK_SIZE))

_FULL_SET = frozenset(FULL_DECK)

Card = int


def card_rank(card: Card) -> int:
    """The rank index, 0 (deuce) to 12 (ace)."""
    return card >> 2


def card_suit(card: Card) -> int:
    """The suit index, 0 (clubs) to 3 (spades)."""
    return card & 3


def make_card(rank: int, suit: int) -> Card:
    return rank * 4 + suit


def parse_card(text: str) -> Card:
    """``"As"`` -> 51. Raises ValueError naming the bad text."""
    if len(text) != 2:
        raise ValueError(f"not a card: {text!r} (expected rank and suit, like 'As' or 'Td')")
    rank = RANKS.find(text[0].upper())
    suit = SUITS.find(text[1].lower())
    if rank < 0 or suit < 0:
        raise ValueError(f"not a card: {text!r} (ranks {RANKS}, suits {SUITS})")
    return make_card(rank, suit)


def parse_cards(texts: Iterable[str] | str) -> list[Card]:
    """Parse a list of card texts, or one string of them separated by spaces."""
    if isinstance(texts, str):
        texts = texts.split()
    return [parse_card(t) for t in texts]


def format_card(card: Card) -> str:
    if not 0 <= card < DECK_SIZE:
        raise ValueError(f"card out of range: {card}")
    return RANKS[card >> 2] + SUITS[card & 3]


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(format_card(c) for c in cards)


def shuffled_deck() -> list[Card]:
    """A fresh deck in random order: Fisher-Yates driven by the OS CSPRNG (R-DECK)."""
    deck = list(FULL_DECK)
    for i in range(DECK_SIZE - 1, 0, -1):
        j = secrets.randbelow(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def complete_deck(prefix: Sequence[Card]) -> list[Card]:
    """A chosen deck order for tests: ``prefix`` first, then the unused cards in order.

    Raises ValueError on a duplicate or out-of-range card.
    """
    if len(prefix) == DECK_SIZE and set(prefix) == _FULL_SET:
        return list(prefix)  # already a whole deck: the common case, checked in C
    seen: set[int] = set()
    for position, card in enumerate(prefix):
        if not 0 <= card < DECK_SIZE:
            raise ValueError(f"deck[{position}]: card out of range: {card}")
        if card in seen:
            raise ValueError(f"deck[{position}]: duplicate card {format_card(card)}")
        seen.add(card)
    return list(prefix) + [c for c in FULL_DECK if c not in seen]
