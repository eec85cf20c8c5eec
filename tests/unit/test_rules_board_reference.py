"""Reference test of ``rules.board`` (issue 22): the board strengths as ints, who brings
in, the seat order and the best board give exactly what the earlier, plainer forms gave
(kept here as the reference), over every board of up to four up cards.

R-FIRST-TO-ACT, R-RAZZ-FIRST-TO-ACT, R-BRING-IN-WHO, R-RAZZ-BRING-IN, R-SHOWDOWN-ORDER.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from itertools import combinations_with_replacement, pairwise

from studengine.rules.board import (
    best_board,
    board_strength,
    clockwise_from,
    highest_up_card_ace_low,
    low_board_strength,
    low_rank,
    lowest_up_card,
)

# ---- the reference: the forms before issue 22 -------------------------------------


def reference_strength_of_ranks(ranks: tuple[int, ...]) -> tuple[int, ...]:
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


def reference_board_strength(up_cards: Sequence[int]) -> tuple[int, ...]:
    return reference_strength_of_ranks(tuple(sorted(card >> 2 for card in up_cards)))


def reference_low_board_strength(up_cards: Sequence[int]) -> tuple[int, ...]:
    ranks = tuple(sorted(low_rank(card) for card in up_cards))
    return tuple(-value for value in reference_strength_of_ranks(ranks))


def reference_clockwise_from(start: int, players: int) -> list[int]:
    start %= players
    return [*range(start, players), *range(start)]


def reference_lowest_up_card(up_card_by_seat: Mapping[int, int]) -> int:
    return min(up_card_by_seat, key=up_card_by_seat.__getitem__)


def reference_highest_up_card_ace_low(up_card_by_seat: Mapping[int, int]) -> int:
    def badness(seat: int) -> tuple[int, int]:
        card = up_card_by_seat[seat]
        return low_rank(card), card & 3

    return max(up_card_by_seat, key=badness)


def reference_best_board(
    seats: Sequence[int],
    board_of: Callable[[int], Sequence[int]],
    strength: Callable[[Sequence[int]], object],
) -> int:
    return max(seats, key=lambda seat: strength(board_of(seat)))  # type: ignore[arg-type,return-value]


# ---- every board of up to four up cards ---------------------------------------------


def every_board() -> list[list[int]]:
    """One board per multiset of 0 to 4 ranks, its suits varied."""
    rng = random.Random(22)
    boards: list[list[int]] = []
    for size in range(5):
        for ranks in combinations_with_replacement(range(13), size):
            suits = rng.sample(range(4), 4)
            seen: dict[int, int] = {}
            board = []
            for rank in ranks:
                board.append(rank * 4 + suits[seen.get(rank, 0)])
                seen[rank] = seen.get(rank, 0) + 1
            boards.append(board)
    return boards


BOARDS = every_board()


def assert_same_order(
    new: Callable[[Sequence[int]], int], reference: Callable[[Sequence[int]], tuple[int, ...]]
) -> None:
    """``new`` orders every board as ``reference`` does: sorted by the reference, each
    neighbour is less, or equal, by both (so by transitivity every pair agrees)."""
    ranked = sorted(BOARDS, key=reference)
    for lower, higher in pairwise(ranked):
        if reference(lower) == reference(higher):
            assert new(lower) == new(higher), (lower, higher)
        else:
            assert new(lower) < new(higher), (lower, higher)


def test_board_strength_orders_every_board_as_the_reference_r_first_to_act() -> None:
    assert len(BOARDS) == 2380  # 1 + 13 + 91 + 455 + 1820 multisets of 0 to 4 ranks
    assert_same_order(board_strength, reference_board_strength)
    assert all(board_strength(board) > 0 for board in BOARDS)


def test_low_board_strength_orders_every_board_as_the_reference_r_razz_first_to_act() -> None:
    assert_same_order(low_board_strength, reference_low_board_strength)
    assert all(low_board_strength(board) > 0 for board in BOARDS)


def test_seat_orders_and_bring_ins_are_the_references_r_bring_in_who_r_razz_bring_in() -> None:
    rng = random.Random(7)
    for players in range(2, 11):
        for start in range(-players, 2 * players):
            assert clockwise_from(start, players) == reference_clockwise_from(start, players)
        for _ in range(200):
            seats = rng.sample(range(players), rng.randint(1, players))
            cards = rng.sample(range(52), len(seats))
            up = dict(zip(seats, cards, strict=True))
            assert lowest_up_card(up) == reference_lowest_up_card(up)
            assert highest_up_card_ace_low(up) == reference_highest_up_card_ace_low(up)


def test_best_board_is_the_references_ties_to_the_dealers_left_r_first_to_act() -> None:
    rng = random.Random(8)
    for _ in range(3000):
        players = rng.randint(2, 8)
        up_count = rng.randint(1, 4)
        deck = rng.sample(range(52), players * up_count)
        boards = [deck[i * up_count : (i + 1) * up_count] for i in range(players)]
        if rng.random() < 0.3:  # equal boards in rank: the tie to the dealer's left
            boards[-1] = [(card & ~3) | ((card + 1) & 3) for card in boards[0]]
        from_left = clockwise_from(rng.randrange(players), players)
        for new, reference in (
            (board_strength, reference_board_strength),
            (low_board_strength, reference_low_board_strength),
        ):
            assert best_board(from_left, boards.__getitem__, new) == reference_best_board(
                from_left, boards.__getitem__, reference
            )
