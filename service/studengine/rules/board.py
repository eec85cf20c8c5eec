"""Who opens: the bring-in by the lowest up card (Razz: the highest), then the best
board, high or (Razz) low (R-BRING-IN-WHO, R-RAZZ-BRING-IN, R-FIRST-TO-ACT,
R-RAZZ-FIRST-TO-ACT, R-SHOWDOWN-ORDER).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache


def board_strength(up_cards: Sequence[int]) -> tuple[int, ...]:
    """A sortable strength of up cards alone (R-FIRST-TO-ACT).

    Only pairs, two pair, trips, quads and high cards count; straights and flushes do
    not, and suits never matter. Larger tuples are better boards.
    """
    return _strength_of_ranks(tuple(sorted([card >> 2 for card in up_cards])))


@cache
def _strength_of_ranks(ranks: tuple[int, ...]) -> tuple[int, ...]:
    """Board strength by rank multiset (a few thousand of them): memoised."""
    counts: dict[int, int] = {}
    for rank in ranks:
        counts[rank] = counts.get(rank, 0) + 1
    groups = sorted(((n, rank) for rank, n in counts.items()), reverse=True)
    shape = tuple(n for n, _ in groups)
    if shape[:1] == (4,):
        category = 4
    elif shape[:1] == (3,):
        category = 3
    elif shape[:2] == (2, 2):
        category = 2
    elif shape[:1] == (2,):
        category = 1
    else:
        category = 0
    return (category, *(rank for _, rank in groups))


def low_board_strength(up_cards: Sequence[int]) -> tuple[int, ...]:
    """A sortable strength of up cards as an ace-to-five low (R-RAZZ-FIRST-TO-ACT,
    R-LOW-A5 on the up cards alone): larger tuples are better (lower) boards.

    Fewer and lower pairs are better, then the highest card is compared, then the next;
    aces are low, straights, flushes and suits do not count."""
    return _low_strength_of_ranks(tuple(sorted([low_rank(card) for card in up_cards])))


def low_rank(card: int) -> int:
    """A card's ace-to-five rank: ace 0, two 1, ..., king 12 (R-LOW-A5)."""
    return ((card >> 2) + 1) % 13


def high_card_order(card: int) -> int:
    """A card's place by rank, ace highest, then suit, spades highest (R-ODD-CHIP,
    R-SUITS): larger is higher, the ace of spades the largest."""
    return card


def low_card_order(card: int) -> int:
    """A card's place as a low card (R-ODD-CHIP-LOW): the ace lowest, then 2 ... K, and
    between equal ranks clubs lowest; larger is lower, the ace of clubs the largest."""
    return -(low_rank(card) * 4 + (card & 3))


@cache
def _low_strength_of_ranks(ranks: tuple[int, ...]) -> tuple[int, ...]:
    """Low board strength by ace-to-five rank multiset: the negated high-board strength
    of the same ranks (more, bigger groups and higher cards are worse)."""
    return tuple(-value for value in _strength_of_ranks(ranks))


def has_open_pair(up_cards: Sequence[int]) -> bool:
    """True when the up cards show at least a pair (R-OPEN-PAIR)."""
    ranks = [card >> 2 for card in up_cards]
    return len(set(ranks)) < len(ranks)


def clockwise_from(start: int, players: int) -> list[int]:
    """Seats starting at ``start`` and going clockwise round the table."""
    start %= players
    return [*range(start, players), *range(start)]


def lowest_up_card(up_card_by_seat: Mapping[int, int]) -> int:
    """The seat showing the lowest up card, rank then suit (R-BRING-IN-WHO, R-SUITS)."""
    return min(up_card_by_seat, key=up_card_by_seat.__getitem__)


def highest_up_card_ace_low(up_card_by_seat: Mapping[int, int]) -> int:
    """The seat showing the highest up card, the ace lowest and the king highest; between
    equal ranks the higher suit (R-RAZZ-BRING-IN: the king of spades always brings in)."""

    def badness(seat: int) -> tuple[int, int]:
        card = up_card_by_seat[seat]
        return low_rank(card), card & 3

    return max(up_card_by_seat, key=badness)


def best_board(
    seats_from_dealers_left: Sequence[int],
    board_of: Callable[[int], Sequence[int]],
    strength: Callable[[Sequence[int]], tuple[int, ...]] = board_strength,
) -> int:
    """The seat with the best board (``board_of(seat)``, its up cards, by ``strength``);
    ties go to the one nearest the dealer's left."""
    # max() keeps the first of equal boards: the one nearest the dealer's left
    return max(seats_from_dealers_left, key=lambda seat: strength(board_of(seat)))
