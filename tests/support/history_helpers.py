"""Random finished hands and their metadata, for the hand-history tests."""

from __future__ import annotations

import random

from studengine.cards import FULL_DECK
from studengine.history.phh import HandMeta
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import ActionType, Table, Variant
from studengine.rules.variants import VARIANTS


def play_random_hand(
    rng: random.Random,
    variant: Variant,
    table: Table,
    stacks: list[int],
    fold_chance: float = 0.1,
) -> Hand:
    """A hand played to its end by random legal moves (folding seldom, so that most
    hands reach a showdown)."""
    deck = list(FULL_DECK)  # shuffled by ``rng`` alone: a seed replays the hand
    rng.shuffle(deck)
    hand, _ = start_hand(variant, table, stacks, rng.randrange(len(stacks)), deck)
    while not hand.is_over:
        assert hand.to_act is not None
        legal = hand.legal_actions()
        others = [a for a in legal if a.type is not ActionType.FOLD]
        action = rng.choice(legal if not others or rng.random() < fold_chance else others)
        hand.act(hand.to_act, action.type, action.to)
    return hand


def random_players(rng: random.Random, variant: Variant, most: int = 8) -> int:
    spec = VARIANTS[variant]
    return rng.randint(spec.min_players, min(spec.max_players, most))


def meta_for(hand: Hand, index: int) -> HandMeta:
    return HandMeta(
        hand_id=f"{index:032x}",
        player_ids=[f"player-{seat}" for seat in range(hand.players)],
        deck_commitment="ab" * 32,
        salt="cd" * 32,
    )
