"""Checks on a new hand's settings: each failure names its field (R-SEATS, R-STAKES,
R-OPEN-PAIR in the games that have it, R-RAKE, R-DECK).

``table_problems``, ``game_problems`` and ``players_problems`` list every failure (the API
reports them all); ``validate_*`` raise the first.
"""

from __future__ import annotations

from collections.abc import Sequence

from studengine.cards import DECK_SIZE, complete_deck
from studengine.rules.types import InvalidHand, Table
from studengine.rules.variants import VariantSpec

MAX_RAKE_BP = 10_000  # R-RAKE: basis points, 100 %


def table_problems(table: Table) -> list[InvalidHand]:
    found = []
    if table.ante < 0:
        found.append(InvalidHand("table.ante", f"must be 0 or more, got {table.ante}"))
    if table.bring_in <= 0:
        found.append(InvalidHand("table.bring_in", f"must be more than 0, got {table.bring_in}"))
    if table.small_bet <= 0:
        found.append(InvalidHand("table.small_bet", f"must be more than 0, got {table.small_bet}"))
    if table.big_bet < table.small_bet:
        found.append(
            InvalidHand(
                "table.big_bet",
                f"must be at least the small bet ({table.small_bet}), got {table.big_bet}",
            )
        )
    if 0 < table.small_bet <= table.bring_in:
        found.append(
            InvalidHand(
                "table.bring_in",
                f"must be less than the small bet ({table.small_bet}), got {table.bring_in}",
            )
        )
    if table.max_bets < 1:
        found.append(InvalidHand("table.max_bets", f"must be at least 1, got {table.max_bets}"))
    if not 0 <= table.rake_percent_bp <= MAX_RAKE_BP:
        found.append(
            InvalidHand(
                "table.rake_percent_bp",
                f"must be 0 to {MAX_RAKE_BP} basis points, got {table.rake_percent_bp}",
            )
        )
    if table.rake_cap < 0:
        found.append(
            InvalidHand("table.rake_cap", f"must be 0 (no cap) or more, got {table.rake_cap}")
        )
    return found


def game_problems(spec: VariantSpec, table: Table) -> list[InvalidHand]:
    """The table's options exist in the game: no open-pair option in Razz or Stud Hi-Lo
    (section 7 of the rulebook)."""
    if table.open_pair_big_bet and not spec.has_open_pair:
        return [
            InvalidHand(
                "table.open_pair_big_bet",
                f"{spec.variant.value} has no open-pair option; it must be off",
            )
        ]
    return []


def players_problems(spec: VariantSpec, stacks: Sequence[int], button: int) -> list[InvalidHand]:
    found = []
    count = len(stacks)
    if not spec.min_players <= count <= spec.max_players:
        found.append(
            InvalidHand(
                "players",
                f"{spec.variant.value} takes {spec.min_players} to {spec.max_players} players, "
                f"got {count}",
            )
        )
    for seat, stack in enumerate(stacks):
        if stack <= 0:
            found.append(InvalidHand(f"players[{seat}].stack", f"must be more than 0, got {stack}"))
    if not 0 <= button < count:
        found.append(InvalidHand("button", f"must be a seat from 0 to {count - 1}, got {button}"))
    return found


def validate_table(table: Table) -> None:
    for problem in table_problems(table):
        raise problem


def validate_game(spec: VariantSpec, table: Table) -> None:
    for problem in game_problems(spec, table):
        raise problem


def validate_players(spec: VariantSpec, stacks: Sequence[int], button: int) -> None:
    for problem in players_problems(spec, stacks, button):
        raise problem


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
