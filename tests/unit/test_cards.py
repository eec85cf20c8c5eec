"""Cards as integers, their text form, the shuffle and chosen decks."""

from __future__ import annotations

import pytest
from studengine.cards import (
    complete_deck,
    format_card,
    format_cards,
    parse_card,
    parse_cards,
    shuffled_deck,
)


def test_card_ints_order_rank_then_suit_r_suits() -> None:
    """R-SUITS: clubs < diamonds < hearts < spades, inside a rank."""
    assert parse_card("2c") == 0 and parse_card("As") == 51
    assert parse_card("2c") < parse_card("2d") < parse_card("2h") < parse_card("2s")
    assert parse_card("2s") < parse_card("3c")
    assert parse_card("Td") == 8 * 4 + 1


def test_round_trip_every_card() -> None:
    for card in range(52):
        assert parse_card(format_card(card)) == card
    assert format_cards(parse_cards("As Kd 2c")) == "As Kd 2c"


@pytest.mark.parametrize("bad", ["", "A", "1s", "Ax", "Asd", "10s"])
def test_bad_text_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="not a card"):
        parse_card(bad)


def test_complete_deck_appends_the_rest_and_refuses_duplicates() -> None:
    deck = complete_deck(parse_cards("As Kd"))
    assert deck[:2] == parse_cards("As Kd") and sorted(deck) == list(range(52))
    with pytest.raises(ValueError, match=r"deck\[1\]: duplicate card As"):
        complete_deck(parse_cards("As As"))
    with pytest.raises(ValueError, match="out of range"):
        complete_deck([52])


def test_shuffle_uses_every_position() -> None:
    positions = {shuffled_deck().index(0) for _ in range(2000)}
    assert len(positions) > 45
