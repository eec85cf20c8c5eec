"""Checks on a new hand's settings: each failure names its field (R-SEATS, R-STAKES,
R-OPEN-PAIR in the games that have it, R-RAKE, R-DECK)."""

from __future__ import annotations

from collections.abc import Sequence

from studengine.cards import DECK_SIZE, complete_deck
from studengine.rules.types import InvalidHand, Table
from studengine.rules.variants import VariantSpec

MAX_RAKE_BP = 10_000  # R-RAKE: basis points, 100 %


def validate_table(table: Table) -> None:
    if table.ante < 0:
        raise InvalidHand("table.ante", f"must be 0 or more, got {table.ante}")
    if table.bring_in <= 0:
        raise InvalidHand("table.bring_in", f"must be more than 0, got {table.bring_in}")
    if table.small_bet <= 0:
        raise InvalidHand("table.small_bet", f"must be more than 0, got {table.small_bet}")
    if table.big_bet < table.small_bet:
        raise InvalidHand(
            "table.big_bet",
            f"must be at least the small bet ({table.small_bet}), got {table.big_bet}",
        )
    if table.bring_in >= table.small_bet:
        raise InvalidHand(
            "table.bring_in",
            f"must be less than the small bet ({table.small_bet}), got {table.bring_in}",
        )
    if table.max_bets < 1:
        raise InvalidHand("table.max_bets", f"must be at least 1, got {table.max_bets}")
    if not 0 <= table.rake_percent_bp <= MAX_RAKE_BP:
        raise InvalidHand(
            "table.rake_percent_bp",
            f"must be 0 to {MAX_RAKE_BP} basis points, got {table.rake_percent_bp}",
        )
    if table.rake_cap < 0:
        raise InvalidHand("table.rake_cap", f"must be 0 (no cap) or more, got {table.rake_cap}")


def validate_game(spec: VariantSpec, table: Table) -> None:
    """The table's options exist in the game: no open-pair option in Razz or Stud Hi-Lo
    (section 7 of the rulebook)."""
    if table.open_pair_big_bet and spec.open_pair_street is None:
        raise InvalidHand(
            "table.open_pair_big_bet",
            f"{spec.variant.value} has no open-pair option; it must be off",
        )


def validate_players(spec: VariantSpec, stacks: Sequence[int], button: int) -> None:
    count = len(stacks)
    if not spec.min_players <= count <= spec.max_players:
        raise InvalidHand(
            "players",
            f"{spec.variant.value} takes {spec.min_players} to {spec.max_players} players, "
            f"got {count}",
        )
    for seat, stack in enumerate(stacks):
        if stack <= 0:
            raise InvalidHand(f"players[{seat}].stack", f"must be more than 0, got {stack}")
    if not 0 <= button < count:
        raise InvalidHand("button", f"must be a seat from 0 to {count - 1}, got {button}")


def validate_deck(deck: Sequence[int]) -> list[int]:
    """The full 52-card dealing order from ``deck`` (a full order or a prefix of one)."""
    if len(deck) > DECK_SIZE:
        raise InvalidHand("deck", f"has {len(deck)} cards, a deck has {DECK_SIZE}")
    try:
        return complete_deck(deck)
    except ValueError as error:
        text = str(error)
        field, _, reason = text.partition(": ")
        raise InvalidHand(field, reason) from None
