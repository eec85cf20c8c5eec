"""Who opens: the bring-in by the lowest up card (Razz: the highest), then the best
board, high or (Razz) low (R-BRING-IN-WHO, R-RAZZ-BRING-IN, R-FIRST-TO-ACT,
R-RAZZ-FIRST-TO-ACT, R-SHOWDOWN-ORDER).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final

# a board strength's digits, most significant first: its category, then the ranks of its
# groups; 4 bits each, 0 where a board has no more groups (so that, all else equal, a
# board of fewer ranks is the lower one)
DIGIT_BITS: Final = 4
RANK_DIGITS: Final = 13  # a board has at most 13 distinct ranks
TOP_CATEGORY: Final = 4  # quads
TOP_RANK: Final = 12  # the ace (high) or the king (ace-to-five)
GROUP: Final = 16  # a group of equal ranks as one int: its size * GROUP + its rank


def board_strength(up_cards: Sequence[int]) -> int:
    """A sortable strength of up cards alone (R-FIRST-TO-ACT): a larger int is a better
    board, equal ints tie.

    Only pairs, two pair, trips, quads and high cards count; straights and flushes do
    not, and suits never matter. The category (quads 4, trips 3, two pair 2, a pair 1,
    else 0) is compared first, then the ranks of the groups, the largest groups first
    and the higher rank first among equal ones.
    """
    return _strength([card >> 2 for card in up_cards], True)


def low_board_strength(up_cards: Sequence[int]) -> int:
    """A sortable strength of up cards as an ace-to-five low (R-RAZZ-FIRST-TO-ACT,
    R-LOW-A5 on the up cards alone): a larger int is a better (lower) board.

    Fewer and lower pairs are better, then the highest card is compared, then the next;
    aces are low, straights, flushes and suits do not count: the high board's order of
    the same ranks turned round, category and every rank compared the other way."""
    return _strength([low_rank(card) for card in up_cards], False)


def _strength(ranks: list[int], high: bool) -> int:
    """The board of these ranks (0..12) as one int: its category and its groups' ranks
    as digits, each the value plus one (``high``) or its complement, the top value plus
    one less the value (a low board: smaller values are better)."""
    groups: list[int] = []  # each run of equal ranks as its size * GROUP + its rank
    for rank in sorted(ranks):
        if groups and groups[-1] % GROUP == rank:
            groups[-1] += GROUP
        else:
            groups.append(GROUP + rank)
    groups.sort()  # by size, then rank: the best group last
    category = _category([group // GROUP for group in reversed(groups)])
    strength = category + 1 if high else TOP_CATEGORY + 1 - category
    for group in reversed(groups):  # the largest groups first, the higher rank first
        rank = group % GROUP
        strength = strength << DIGIT_BITS | (rank + 1 if high else TOP_RANK + 1 - rank)
    return strength << DIGIT_BITS * (RANK_DIGITS - len(groups))


def _category(sizes: list[int]) -> int:
    """A board's category from the sizes of its groups, largest first: quads 4, trips 3,
    two pair 2, a pair 1, else 0."""
    if not sizes or sizes[0] == 1:
        return 0
    if sizes[0] == 2:
        return 2 if len(sizes) > 1 and sizes[1] == 2 else 1
    return sizes[0]


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


def has_open_pair(up_cards: Sequence[int]) -> bool:
    """True when the up cards show at least a pair (R-OPEN-PAIR)."""
    ranks = [card >> 2 for card in up_cards]
    return len(set(ranks)) < len(ranks)


def clockwise_from(start: int, players: int) -> list[int]:
    """Seats starting at ``start`` and going clockwise round the table."""
    return [(start + step) % players for step in range(players)]


def lowest_up_card(up_card_by_seat: Mapping[int, int]) -> int:
    """The seat showing the lowest up card, rank then suit (R-BRING-IN-WHO, R-SUITS)."""
    seat_of = {card: seat for seat, card in up_card_by_seat.items()}  # cards are distinct
    return seat_of[min(seat_of)]


def highest_up_card_ace_low(up_card_by_seat: Mapping[int, int]) -> int:
    """The seat showing the highest up card, the ace lowest and the king highest; between
    equal ranks the higher suit (R-RAZZ-BRING-IN: the king of spades always brings in)."""
    seat_of = {low_rank(card) * 4 + (card & 3): seat for seat, card in up_card_by_seat.items()}
    return seat_of[max(seat_of)]


def best_board(
    seats_from_dealers_left: Sequence[int],
    board_of: Callable[[int], Sequence[int]],
    strength: Callable[[Sequence[int]], int] = board_strength,
) -> int:
    """The seat with the best board (``board_of(seat)``, its up cards, by ``strength``);
    ties go to the one nearest the dealer's left."""
    best_seat, best = -1, -1  # every strength is positive
    for seat in seats_from_dealers_left:
        value = strength(board_of(seat))
        if value > best:  # a later equal board does not replace the first
            best_seat, best = seat, value
    return best_seat
