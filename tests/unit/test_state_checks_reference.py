"""The state codec's cheaper parts against the ones they replaced (issue 22): the deck and
dealt checks give the sort-based ones' verdict on random decks and dealings, valid and
broken alike; the action log packs to the same bytes."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from studengine.cards import DECK_SIZE
from studengine.rules.types import ActionType, Move, Variant
from studengine.rules.variants import VARIANTS, VariantSpec
from studengine.state.codec import (
    ACTION_KINDS,
    StateInvalid,
    check_cards_dealt,
    check_deck,
    pack_moves,
    unpack_moves,
)
from studengine.state.wire import put_varint


def reference_deck_ok(raw_deck: bytes, dealt: int) -> bool:
    """check_deck as it was: the deck sorted is the full deck."""
    return sorted(raw_deck) == list(range(DECK_SIZE)) and dealt <= DECK_SIZE


def reference_cards_ok(
    spec: VariantSpec, raw_cards: list[bytes], community: int | None, raw_deck: bytes, dealt: int
) -> bool:
    """check_cards_dealt as it was: the cards in play sorted are the dealt ones sorted."""
    if max(map(len, raw_cards)) > spec.cards_per_player:
        return False
    in_play = [*b"".join(raw_cards)]
    if community is not None:
        in_play.append(community)
    return sorted(in_play) == sorted(raw_deck[:dealt])


def verdict(check: Callable[..., None], *args: object) -> bool:
    try:
        check(*args)
    except StateInvalid:
        return False
    return True


def random_deck(rng: random.Random) -> bytes:
    deck = list(range(DECK_SIZE))
    rng.shuffle(deck)
    match rng.randrange(6):
        case 0:  # a card twice, one missing
            deck[rng.randrange(DECK_SIZE)] = deck[rng.randrange(DECK_SIZE)]
        case 1:  # a card out of range
            deck[rng.randrange(DECK_SIZE)] = rng.randrange(DECK_SIZE, 256)
        case 2:  # one card too many or too few
            deck = [*deck, rng.randrange(DECK_SIZE)] if rng.random() < 0.5 else deck[1:]
    return bytes(deck)


def random_dealing(
    rng: random.Random, spec: VariantSpec, deck: bytes
) -> tuple[list[bytes], int | None, int]:
    """Seats' cards dealt from the deck's top, then maybe broken in one way."""
    players = rng.randint(spec.min_players, spec.max_players)
    each = rng.randint(0, spec.cards_per_player)
    cards = [bytearray(deck[seat * each : (seat + 1) * each]) for seat in range(players)]
    dealt = players * each
    community = None
    if rng.random() < 0.3 and dealt < len(deck):
        community, dealt = deck[dealt], dealt + 1
    seat = rng.randrange(players)
    match rng.randrange(8):
        case 0 if cards[seat]:  # a card replaced by another (maybe one in play already)
            cards[seat][rng.randrange(len(cards[seat]))] = rng.randrange(DECK_SIZE)
        case 1:  # a card too many
            cards[seat].append(rng.randrange(DECK_SIZE))
        case 2 if cards[seat]:  # a card missing
            cards[seat].pop()
        case 3:  # dealt miscounted
            dealt = max(0, dealt + rng.choice((-1, 1)))
        case 4 if community is not None:  # the community card out of range or off the deck
            community = rng.choice((rng.randrange(DECK_SIZE), rng.randrange(DECK_SIZE, 300)))
        case 5 if len(cards) > 1 and cards[0] and cards[1]:  # two seats' cards swapped
            cards[0][0], cards[1][0] = cards[1][0], cards[0][0]
    return [bytes(c) for c in cards], community, dealt


@pytest.mark.parametrize("variant", list(Variant))
def test_the_deck_and_dealt_checks_agree_with_the_sorting_ones(variant: Variant) -> None:
    rng = random.Random(f"i22-{variant.value}")
    spec = VARIANTS[variant]
    seen = {True: 0, False: 0}
    for _ in range(3000):
        deck = random_deck(rng)
        cards, community, dealt = random_dealing(rng, spec, deck)
        deck_ok = reference_deck_ok(deck, dealt)
        assert verdict(check_deck, deck, dealt) == deck_ok, (deck, dealt)
        if not deck_ok:  # decode refuses before it looks at the cards
            continue
        expected = reference_cards_ok(spec, cards, community, deck, dealt)
        assert verdict(check_cards_dealt, spec, cards, community, deck, dealt) == expected, (
            cards,
            community,
            deck,
            dealt,
        )
        seen[expected] += 1
    assert min(seen.values()) > 300, seen  # both verdicts well exercised


def reference_pack_moves(moves: list[Move]) -> bytes:
    """pack_moves as it was: into a bytearray, each total a varint."""
    out = bytearray()
    for move in moves:
        out.append(move.seat << 4 | ACTION_KINDS.index(move.type) << 1 | move.timeout)
        if move.to is not None:
            put_varint(out, move.to)
    return bytes(out)


def test_the_action_log_packs_as_it_did() -> None:
    rng = random.Random("i22-moves")
    for _ in range(500):
        moves = []
        for _ in range(rng.randint(0, 60)):
            kind = rng.choice(ACTION_KINDS)
            unsized = kind in (ActionType.FOLD, ActionType.CHECK)
            to = None if unsized else rng.choice((rng.randrange(0x80), rng.randrange(1 << 40)))
            moves.append(Move(rng.randrange(10), kind, to, rng.random() < 0.1))
        packed = pack_moves(moves)
        assert packed == reference_pack_moves(moves)
        assert unpack_moves(packed, 10) == moves
