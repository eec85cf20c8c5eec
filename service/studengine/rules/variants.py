"""The games as data, the one place of the game facts the rules engine, equity and the
API read: the variants, their streets, which cards are face up, bet sizes
(R-5S/R-7S-STREETS), the open-pair street, when a community card is dealt
(R-COMMUNITY-CARD), and the three choices a stud game makes its own way: who brings in,
whose board acts first, and how hands rank at showdown.

The engine has one code path; a variant says how many cards each street deals, face up
or down, whether its betting round uses the small or the big bet, and which of the
functions below it uses for those three choices (a low game brings in by the highest
card and ranks boards and hands low; a split game adds a second ranking).
"""

from __future__ import annotations

import array
import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Final, final

from studengine import evaluator
from studengine.cards import DECK_SIZE
from studengine.rules.board import (
    board_strength,
    high_card_order,
    highest_up_card_ace_low,
    low_board_strength,
    low_card_order,
    lowest_up_card,
)


class Variant(enum.Enum):
    FIVE_CARD_STUD = "FIVE_CARD_STUD"
    SEVEN_CARD_STUD = "SEVEN_CARD_STUD"
    RAZZ = "RAZZ"
    SEVEN_CARD_STUD_HI_LO = "SEVEN_CARD_STUD_HI_LO"


def deals_community_card(cards_left: int, players_in: int) -> bool:
    """R-COMMUNITY-CARD: a dealing round with fewer cards left in the deck than players
    still in the hand deals one card face up to the middle instead."""
    return cards_left < players_in


@final
@dataclass(frozen=True)
class Street:
    name: str
    cards: tuple[bool, ...]  # cards dealt to each player, in order: True = face up
    big_bet: bool  # R-LIMITS-5S / R-LIMITS-7S


@final
@dataclass(frozen=True)
class Ranking:
    """How hands rank at showdown: ``rank`` (larger wins, equal ties), the five cards
    that make it, its words ("Two Pair, Kings and Sevens") and its category ("Two
    Pair"); ``rank_many`` ranks a batch (one byte a card, ``evaluator.evaluate_many``);
    ``card_order`` is a card's place in the order by which odd chips go to tied winners
    with ``HIGH_CARD_BY_SUIT`` (larger first: the high card in a high game, R-ODD-CHIP;
    the low card in a low one, R-ODD-CHIP-LOW)."""

    rank: Callable[[Sequence[int]], int]
    best_five: Callable[[Sequence[int]], tuple[int, ...]]
    describe: Callable[[int], str]
    category: Callable[[int], str]
    rank_many: Callable[[object, int], array.array[int]]
    card_order: Callable[[int], int]


HIGH = Ranking(  # R-HAND-RANK; odd chips by the highest card (R-ODD-CHIP)
    evaluator.evaluate,
    evaluator.best_five,
    evaluator.describe,
    evaluator.category_name,
    evaluator.evaluate_many,
    high_card_order,
)
# R-LOW-A5: every hand has an ace-to-five low (Razz, R-RAZZ-SHOWDOWN); odd chips by the
# lowest card (R-ODD-CHIP-LOW)
LOW_A5 = Ranking(
    evaluator.evaluate_low,
    evaluator.best_five_low,
    evaluator.describe_low,
    evaluator.low_category_name,
    evaluator.evaluate_low_many,
    low_card_order,
)
# R-HILO-QUALIFY: eight or better, else evaluator.NO_LOW (0): no low, no share of the low
# half; the low half's odd chips by the lowest card (R-HILO-SPLIT, R-ODD-CHIP-LOW)
LOW_8 = Ranking(
    evaluator.evaluate_low8,
    evaluator.best_five_low,
    evaluator.describe_low,
    evaluator.low_category_name,
    evaluator.evaluate_low8_many,
    low_card_order,
)


@final
@dataclass(frozen=True)
class VariantSpec:
    variant: Variant
    min_players: int
    max_players: int
    streets: tuple[Street, ...]
    open_pair_street: int | None  # the second betting round (R-OPEN-PAIR); None: no option
    # the seat that brings in, from each seat's first up card (R-BRING-IN-WHO)
    brings_in: Callable[[Mapping[int, int]], int] = lowest_up_card
    # a sortable strength of a board, larger acts first (R-FIRST-TO-ACT, R-SHOWDOWN-ORDER)
    board_strength: Callable[[Sequence[int]], int] = board_strength
    ranking: Ranking = HIGH  # who wins a pot (R-HAND-RANK, R-SPLIT)
    # a split game's low half (R-HILO-SPLIT); None: one winner ranking for the whole pot
    low_ranking: Ranking | None = None

    # the card layout, worked out once from the streets (__post_init__)
    face_up: tuple[bool, ...] = field(init=False, repr=False, compare=False)
    """Face up or down, by a player's card position."""
    up_positions: tuple[int, ...] = field(init=False, repr=False, compare=False)
    down_positions: tuple[int, ...] = field(init=False, repr=False, compare=False)
    up_positions_of: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    """The face-up positions among a player's first ``n`` cards, indexed by ``n``."""
    down_positions_of: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    """The face-down positions among a player's first ``n`` cards, indexed by ``n``."""
    big_bet_streets: tuple[bool, ...] = field(init=False, repr=False, compare=False)
    street_names: tuple[str, ...] = field(init=False, repr=False, compare=False)
    cards_per_player: int = field(init=False, repr=False, compare=False)
    first_street_cards: int = field(init=False, repr=False, compare=False)
    """The cards each player holds once the first street is dealt."""
    may_deal_community_card: bool = field(init=False, repr=False, compare=False)
    """Whether R-COMMUNITY-CARD can happen: a full table would need more cards than a
    deck has (the seven-card games with eight players)."""

    def __post_init__(self) -> None:
        face_up = tuple(up for street in self.streets for up in street.cards)
        up = tuple(i for i, is_up in enumerate(face_up) if is_up)
        down = tuple(i for i, is_up in enumerate(face_up) if not is_up)
        counts = range(len(face_up) + 1)
        derived = {
            "face_up": face_up,
            "up_positions": up,
            "down_positions": down,
            "up_positions_of": tuple(tuple(i for i in up if i < n) for n in counts),
            "down_positions_of": tuple(tuple(i for i in down if i < n) for n in counts),
            "big_bet_streets": tuple(street.big_bet for street in self.streets),
            "street_names": tuple(street.name for street in self.streets),
            "cards_per_player": len(face_up),
            "first_street_cards": len(self.streets[0].cards),
            "may_deal_community_card": self.max_players * len(face_up) > DECK_SIZE,
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)  # frozen: set once, here

    def up_cards(self, cards: Sequence[int]) -> list[int]:
        """The face-up ones among a player's ``cards`` (in the order dealt)."""
        return [cards[i] for i in self.up_positions_of[len(cards)]]

    @property
    def has_open_pair(self) -> bool:
        """Whether the game has the open-pair option at all (R-OPEN-PAIR; not in Razz
        and Hi-Lo): a table's ``open_pair_big_bet`` is on by default only where it does."""
        return self.open_pair_street is not None


DOWN, UP = False, True

FIVE_CARD_STUD = VariantSpec(
    variant=Variant.FIVE_CARD_STUD,
    min_players=2,
    max_players=10,
    streets=(
        Street("second card", (DOWN, UP), big_bet=False),
        Street("third card", (UP,), big_bet=False),
        Street("fourth card", (UP,), big_bet=True),
        Street("fifth card", (UP,), big_bet=True),
    ),
    open_pair_street=1,
)

SEVEN_CARD_STUD = VariantSpec(
    variant=Variant.SEVEN_CARD_STUD,
    min_players=2,
    max_players=8,
    streets=(
        Street("third street", (DOWN, DOWN, UP), big_bet=False),
        Street("fourth street", (UP,), big_bet=False),
        Street("fifth street", (UP,), big_bet=True),
        Street("sixth street", (UP,), big_bet=True),
        Street("seventh street", (DOWN,), big_bet=True),
    ),
    open_pair_street=1,
)

# Razz and Stud Hi-Lo deal and bet as Seven Card Stud (its seats and streets), without
# the open-pair option
RAZZ = replace(
    SEVEN_CARD_STUD,
    variant=Variant.RAZZ,
    open_pair_street=None,
    brings_in=highest_up_card_ace_low,  # R-RAZZ-BRING-IN
    board_strength=low_board_strength,  # R-RAZZ-FIRST-TO-ACT
    ranking=LOW_A5,  # R-RAZZ-SHOWDOWN
)
# R-HILO-BRING-IN: bring-in and first to act as in high stud
SEVEN_CARD_STUD_HI_LO = replace(
    SEVEN_CARD_STUD,
    variant=Variant.SEVEN_CARD_STUD_HI_LO,
    open_pair_street=None,
    low_ranking=LOW_8,  # R-HILO-QUALIFY, R-HILO-SPLIT
)

VARIANTS: dict[Variant, VariantSpec] = {
    Variant.FIVE_CARD_STUD: FIVE_CARD_STUD,
    Variant.SEVEN_CARD_STUD: SEVEN_CARD_STUD,
    Variant.RAZZ: RAZZ,
    Variant.SEVEN_CARD_STUD_HI_LO: SEVEN_CARD_STUD_HI_LO,
}
_SPECS: Final = (FIVE_CARD_STUD, SEVEN_CARD_STUD, RAZZ, SEVEN_CARD_STUD_HI_LO)


def spec_of(variant: Variant) -> VariantSpec:
    """``VARIANTS[variant]``, found by identity: a dict lookup hashes the member by
    ``Enum.__hash__``, Python code even in the compiled build (every Hand made looks it up)."""
    for spec in _SPECS:
        if spec.variant is variant:
            return spec
    raise KeyError(variant)
