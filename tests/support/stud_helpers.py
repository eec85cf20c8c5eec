"""Building test hands: decks laid out by seat, tables by variant, quick play."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from studengine.cards import parse_cards
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import ActionType, Event, OddChip, Table, Variant
from studengine.rules.variants import VARIANTS

FIVE = Variant.FIVE_CARD_STUD
SEVEN = Variant.SEVEN_CARD_STUD
RAZZ = Variant.RAZZ
HILO = Variant.SEVEN_CARD_STUD_HI_LO
TABLE_7S = Table(ante=5, bring_in=10, small_bet=20, big_bet=40)
TABLE_5S = Table(ante=50, bring_in=50, small_bet=100, big_bet=200)
# Razz and Hi-Lo have no open-pair option (section 7): their tables have it off
TABLE_7R = Table.for_game(Variant.RAZZ, ante=5, bring_in=10, small_bet=20, big_bet=40)


def table_for(variant: Variant, small: int = 20, **options: object) -> Table:
    """A 1/2-shaped table for ``variant`` (ante small/4, bring-in small/2, big 2 x small),
    the open-pair option on only in the games that have it; ``options`` override."""
    return Table.for_game(variant, small // 4, small // 2, small, 2 * small, **options)


def deck_for(variant: Variant, button: int, hands: Sequence[str]) -> list[int]:
    """The dealing order that gives each seat its cards (in dealt order), assuming
    nobody folds before the last card they are given here."""
    cards = [parse_cards(h) for h in hands]
    players = len(cards)
    order = [(button + 1 + i) % players for i in range(players)]
    deck: list[int] = []
    for position in range(VARIANTS[variant].cards_per_player):
        for seat in order:
            if position < len(cards[seat]):
                deck.append(cards[seat][position])
    return deck


def new_hand(
    variant: Variant,
    hands: Sequence[str],
    *,
    stacks: Sequence[int] | None = None,
    button: int = 0,
    table: Table | None = None,
) -> tuple[Hand, list[Event]]:
    table = table or (TABLE_5S if variant is FIVE else TABLE_7S if variant is SEVEN else TABLE_7R)
    stacks = stacks or [1000] * len(hands)
    return start_hand(variant, table, stacks, button, deck_for(variant, button, hands))


def play(hand: Hand, moves: Iterable[str]) -> list[Event]:
    """Apply moves like ``"2 CALL"`` or ``"0 RAISE 60"``; returns all their events."""
    events: list[Event] = []
    for move in moves:
        seat, action, *to = move.split()
        events += hand.act(int(seat), ActionType(action), int(to[0]) if to else None)
    return events


def legal(hand: Hand) -> list[str]:
    return [str(a) for a in hand.legal_actions()]


def check_down(hand: Hand) -> list[Event]:
    """Check (or call) every remaining decision: plays the hand out passively."""
    events: list[Event] = []
    while hand.to_act is not None:
        options = {a.type for a in hand.legal_actions()}
        for passive in (ActionType.CHECK, ActionType.BRING_IN, ActionType.CALL):
            if passive in options:
                events += hand.act(hand.to_act, passive)
                break
    return events


def conserved(hand: Hand) -> bool:
    """R-CONSERVATION: stacks plus chips put in equal the starting stacks."""
    return sum(hand.stacks) + sum(hand.committed) == sum(hand.starting_stacks)


def random_table(
    rng: random.Random, variant: Variant, rake: bool = True, face_up: float = 0.0
) -> Table:
    """A valid table for ``variant`` with random stakes and options: the open-pair big
    bet only where the game has it (R-OPEN-PAIR; not Razz or Stud Hi-Lo), a rake (R-RAKE,
    with or without a cap) about half the time when ``rake``, ``all_in_face_up``
    (R-ALL-IN-FACE-UP) with the chance ``face_up`` (0: off, and no draw is made)."""
    raked = rake and rng.random() < 0.5
    return Table(
        ante=rng.choice([0, 1, 5]),
        bring_in=rng.choice([2, 5]),
        small_bet=10,
        big_bet=rng.choice([10, 20]),
        max_bets=rng.choice([3, 4, 5]),
        uncapped_heads_up=rng.random() < 0.5,
        open_pair_big_bet=VARIANTS[variant].has_open_pair and rng.random() < 0.5,
        odd_chip=rng.choice(list(OddChip)),
        rake_percent_bp=rng.choice([250, 500, 1000, 10_000]) if raked else 0,
        rake_cap=rng.choice([0, 0, 3, 15]) if raked else 0,
        all_in_face_up=face_up > 0 and rng.random() < face_up,
    )
