"""The state codec's cheaper parts against the ones they replaced (issue 22): the deck and
dealt checks (``bytes.translate``) give the sort-based ones' verdict, and the set-based
ones' verdict and reason, on random decks and dealings, valid and broken alike; the
one-pass chip checks give the reasons of the min() and sum() ones, the seat lists' check
those of the dict one; the action log packs to the same bytes, and reads (native ints)
as the obvious reader reads it, refusals and all; the refusals whose reasons carry values
(raised in place, not formatted on every call) give the reasons they gave; a decoded
Hand's variant rules (``spec_of``, by identity) are ``VARIANTS``'."""

from __future__ import annotations

import random
from collections.abc import Callable
from operator import le

import pytest
from studengine.cards import DECK_SIZE
from studengine.rules.types import ActionType, Move, Pot, Variant
from studengine.rules.variants import VARIANTS, VariantSpec, spec_of
from studengine.state.checks import (
    check_cards_dealt,
    check_chip_amounts,
    check_chips_conserved,
    check_deck,
    check_rake,
    check_round,
    check_seat_count,
    check_seat_lists,
    check_to_act,
)
from studengine.state.codec import (
    ACTION_KINDS,
    StateInvalid,
    _cards,
    _chips,
    _seat,
    check_moves,
    unpack_moves,
)
from studengine.state.encoding import pack_moves
from support.state_reference import put_varint, read_varint, reference_pack_moves


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


def verdict(check: Callable[..., object], *args: object) -> bool:
    return outcome(check, *args) is None


def outcome(check: Callable[..., object], *args: object) -> str | None:
    """The reason ``check`` refuses its arguments with, or None when it passes them."""
    try:
        check(*args)
    except StateInvalid as refused:
        return str(refused)
    return None


def _refuse_unless(ok: bool, why: str) -> None:
    if not ok:
        raise StateInvalid(why)


def reference_check_deck(raw_deck: bytes, dealt: int) -> None:
    """check_deck as it was before the one pass: a set of the deck."""
    _refuse_unless(
        len(raw_deck) == DECK_SIZE and set(raw_deck) == set(range(DECK_SIZE)),
        "the deck is not the 52 cards once each",
    )
    if dealt > DECK_SIZE:
        raise StateInvalid(f"{dealt} cards dealt from a deck of {DECK_SIZE}")


def reference_check_cards_dealt(
    spec: VariantSpec, raw_cards: list[bytes], community: int | None, raw_deck: bytes, dealt: int
) -> None:
    """check_cards_dealt as it was before the one pass: sets of the cards and the deal."""
    most = max(map(len, raw_cards))
    if most > spec.cards_per_player:
        raise StateInvalid(f"a seat holds {most} cards, at most {spec.cards_per_player}")
    held = b"".join(raw_cards)
    in_play = set(held)
    count = len(held)
    if community is not None:
        in_play.add(community)
        count += 1
    _refuse_unless(
        count == dealt and in_play == set(raw_deck[:dealt]),
        "the cards in play are not the ones dealt",
    )


def reference_check_chip_amounts(
    starting: list[int], stacks: list[int], committed: list[int], round_bets: list[int]
) -> None:
    """check_chip_amounts as it was before the one pass: four min() and a map."""
    _refuse_unless(min(starting) > 0, "a starting stack is not positive")
    _refuse_unless(min(stacks) >= 0, "a stack is negative")
    _refuse_unless(min(committed) >= 0, "a committed amount is negative")
    _refuse_unless(min(round_bets) >= 0, "a round bet is negative")
    _refuse_unless(
        all(map(le, round_bets, committed)), "a round bet is above the seat's committed chips"
    )


def reference_check_chips_conserved(
    starting: list[int], stacks: list[int], committed: list[int], rake: int
) -> None:
    """check_chips_conserved as it was before the one pass: three sum()."""
    have, had = sum(stacks) + sum(committed) + rake, sum(starting)
    if have != had:
        raise StateInvalid(f"chips not conserved: {have} in play and raked, {had} at the start")


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
        deck_reason = outcome(reference_check_deck, deck, dealt)
        assert outcome(check_deck, deck, dealt) == deck_reason, (deck, dealt)
        assert (deck_reason is None) == deck_ok
        if not deck_ok:  # decode refuses before it looks at the cards
            continue
        expected = reference_cards_ok(spec, cards, community, deck, dealt)
        reason = outcome(reference_check_cards_dealt, spec, cards, community, deck, dealt)
        assert outcome(check_cards_dealt, spec, cards, community, deck, dealt) == reason, (
            cards,
            community,
            deck,
            dealt,
        )
        assert (reason is None) == expected
        seen[expected] += 1
    assert min(seen.values()) > 300, seen  # both verdicts well exercised


def random_amounts(rng: random.Random, players: int) -> list[int]:
    """A seat list of chip amounts, now and then one of them zero or negative."""
    amounts = [rng.choice((rng.randrange(1, 50), rng.randrange(1, 10**6))) for _ in range(players)]
    if rng.random() < 0.3:
        amounts[rng.randrange(players)] = rng.randrange(-3, 1)
    return amounts


def test_the_chip_checks_give_the_reasons_of_the_min_and_sum_ones() -> None:
    """Random seat lists, broken in none, one or several ways at once: the same reason
    (the first broken rule in the same order) or the same pass."""
    rng = random.Random("i22-chips")
    reasons: set[str | None] = set()
    for _ in range(4000):
        players = rng.randint(2, 10)
        starting, stacks, committed = (random_amounts(rng, players) for _ in range(3))
        round_bets = [rng.randint(-1, max(c, -1) + (rng.random() < 0.1)) for c in committed]
        reason = outcome(reference_check_chip_amounts, starting, stacks, committed, round_bets)
        assert outcome(check_chip_amounts, starting, stacks, committed, round_bets) == reason
        reasons.add(reason)
        rake = rng.randrange(3)
        if rng.random() < 0.5:  # conserved: the starting stacks are what is in play
            starting[0] = sum(stacks) + sum(committed) + rake - sum(starting[1:])
        conserved = outcome(reference_check_chips_conserved, starting, stacks, committed, rake)
        assert outcome(check_chips_conserved, starting, stacks, committed, rake) == conserved
        reasons.add(conserved and conserved.split(":")[0])
    assert len(reasons) == 7, reasons  # each kind of reason given, and passes


def reference_check_seat_lists(lists: dict[str, list[int]], players: int) -> None:
    """check_seat_lists as it was before the tuples: a dict of the lists by name."""
    for name, values in lists.items():
        if len(values) != players:
            raise StateInvalid(f"{name} has {len(values)} entries for {players} players")


SEAT_LISTS = ("stacks", "committed", "round_bets", "cards", "folded", "acted")


def test_the_seat_lists_check_gives_the_reasons_of_the_dict_one() -> None:
    """Seat lists of random sizes, none, one or several of them off: the same reason (the
    first list off, in the fields' order) or the same pass."""
    rng = random.Random("i22-seat-lists")
    reasons: set[str | None] = set()
    for _ in range(2000):
        players = rng.randint(2, 8)
        sizes = [players if rng.random() < 0.85 else rng.randint(0, 9) for _ in SEAT_LISTS]
        lists = {name: [0] * size for name, size in zip(SEAT_LISTS, sizes, strict=True)}
        reason = outcome(reference_check_seat_lists, lists, players)
        assert outcome(check_seat_lists, SEAT_LISTS, tuple(lists.values()), players) == reason
        reasons.add(reason and reason.split()[0])
    assert reasons == {None, *SEAT_LISTS}, reasons


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


def reference_unpack_moves(raw: bytes, players: int) -> list[Move] | str:
    """unpack_moves the obvious way (each total by read_varint): the moves, or the reason
    the first malformed action is refused with."""
    moves: list[Move] = []
    at = 0
    while at < len(raw):
        index, head = len(moves), raw[at]
        at += 1
        seat, code = head >> 4, head >> 1 & 7
        if seat >= players:
            return f"moves[{index}]: seat {seat} is not a seat (0 to {players - 1})"
        if code >= len(ACTION_KINDS):
            return f"moves[{index}]: unknown action kind {code}"
        kind, to = ACTION_KINDS[code], None
        if kind not in (ActionType.FOLD, ActionType.CHECK):
            try:
                to, at = read_varint(raw, at)
            except ValueError:
                return f"moves[{index}]: a truncated amount"
        moves.append(Move(seat, kind, to, bool(head & 1)))
    return moves


def random_log(rng: random.Random) -> bytes:
    """Any bytes of heads, each maybe followed by a total of one to eleven bytes (up to
    70 bits: past an i64), maybe cut short."""
    out = bytearray()
    for _ in range(rng.randint(0, 20)):
        out.append(rng.randrange(256))
        if rng.random() < 0.6:
            put_varint(out, rng.choice((rng.randrange(0x80), rng.randrange(1 << 70))))
    return bytes(out[: rng.randint(0, len(out))] if rng.random() < 0.3 else out)


def test_the_action_log_is_read_and_checked_as_the_obvious_reader_does() -> None:
    rng = random.Random("i22d-moves")
    verdicts = {True: 0, False: 0}
    for _ in range(3000):
        raw, players = random_log(rng), rng.randint(2, 16)
        expected = reference_unpack_moves(raw, players)
        assert outcome(unpack_moves, raw, players) == (
            expected if isinstance(expected, str) else None
        ), raw.hex()
        assert outcome(check_moves, raw, players) == outcome(unpack_moves, raw, players)
        if not isinstance(expected, str):
            assert unpack_moves(raw, players) == expected
        verdicts[not isinstance(expected, str)] += 1
    assert min(verdicts.values()) > 300, verdicts


STUD, FIVE = VARIANTS[Variant.SEVEN_CARD_STUD], VARIANTS[Variant.FIVE_CARD_STUD]
#: a refusal whose reason is formatted from values, and that reason in full
REFUSALS: dict[str, tuple[Callable[..., object], tuple[object, ...], str]] = {
    "seat": (_seat, (3, 3, "button"), "button 3 is not a seat (0 to 2)"),
    "chips": (_chips, ([1, -1], "result stacks"), "result stacks: a negative amount"),
    "cards": (_cards, (b"\x01\x34", "shown cards"), "shown cards: a card out of range"),
    "seat count": (check_seat_count, (STUD, 9), "9 players: SEVEN_CARD_STUD takes 2 to 8"),
    "seat lists": (
        check_seat_lists,
        (("stacks", "folded"), ([1, 2, 3], [False]), 3),
        "folded has 1 entries for 3 players",
    ),
    "conserved": (
        check_chips_conserved,
        ([10, 10], [5, 5], [0, 4], 0),
        "chips not conserved: 14 in play and raked, 20 at the start",
    ),
    "rake": (
        check_rake,
        (3, [Pot(amount=10, eligible=(0,), winners=(0,), shares=(8,), rake=2)]),
        "result: rake 3, the pots gave up 2",
    ),
    "dealt": (check_deck, (bytes(range(52)), 53), "53 cards dealt from a deck of 52"),
    "seat cards": (
        check_cards_dealt,
        (FIVE, [bytes(range(6)), b""], None, bytes(range(52)), 6),
        "a seat holds 6 cards, at most 5",
    ),
    "street": (
        check_round,
        (FIVE, 4, 0, 0, False, False),
        "street 4 is not one of the variant's",
    ),
    "folded": (check_to_act, (1, False, [False, True], [5, 5]), "seat 1 to act has folded"),
    "no chips": (check_to_act, (0, False, [False, False], [0, 5]), "seat 0 to act has no chips"),
}


@pytest.mark.parametrize("name", REFUSALS)
def test_the_formatted_refusals_give_their_reasons(name: str) -> None:
    check, args, reason = REFUSALS[name]
    with pytest.raises(StateInvalid) as refused:
        check(*args)
    assert str(refused.value) == reason


def test_each_variant_finds_its_rules_by_identity_as_by_the_dict() -> None:
    for variant in Variant:
        assert spec_of(variant) is VARIANTS[variant]
