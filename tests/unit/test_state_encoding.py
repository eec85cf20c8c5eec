"""The state's hand-assembled bytes (``state.encoding``, issue 22) against the message
built field by field through protobuf as the encoder did before (``support.state_reference``):
byte for byte the same, at every point of random hands of the four games, and decoded
back to the same record."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator

import pytest
from studengine import compiled
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import ActionType, Move, MoveLog, Variant
from studengine.rules.variants import VARIANTS
from studengine.state.codec import DealEntropy, HandRecord, StateInvalid, decode
from studengine.state.encoding import encode, pack_moves
from support.state_reference import reference_state
from support.stud_helpers import table_for

PASSIVE = (ActionType.CHECK, ActionType.BRING_IN, ActionType.CALL)
BIG = 2**21  # a total from here on takes four bytes or more as a varint


def reference_bytes(record: HandRecord) -> bytes:
    return reference_state(record).SerializeToString(deterministic=True)


def every_step(rng: random.Random, variant: Variant) -> Iterator[Hand]:
    """One random hand of ``variant`` after its start and after every action: stakes
    small or past 2**21 (and past 2**32), short and deep stacks, rake and all_in_face_up
    (R-RAKE, R-ALL-IN-FACE-UP) half the time, the clock's choice now and then; played at
    random or passively (everyone calling down, so that eight players of Seven Card Stud
    run the deck out and share a community card, R-COMMUNITY-CARD)."""
    spec = VARIANTS[variant]
    players = rng.randint(spec.min_players, spec.max_players)
    passive = rng.random() < 0.4
    if passive and variant is not Variant.FIVE_CARD_STUD:
        players = spec.max_players
    small = rng.choice([20, 20, BIG, 2**33])
    table = table_for(
        variant,
        small,
        rake_percent_bp=rng.choice([0, 500, 10_000]),
        rake_cap=rng.choice([0, 0, small // 2]),
        all_in_face_up=rng.random() < 0.5,
        uncapped_heads_up=rng.random() < 0.5,
        max_bets=rng.choice([2, 4]),
    )
    stacks = [rng.choice([rng.randint(1, 3 * small), 50 * small]) for _ in range(players)]
    deck = list(range(52))
    rng.shuffle(deck)
    hand, _ = start_hand(variant, table, stacks, rng.randrange(players), deck)
    yield hand
    while not hand.over:
        seat = hand.to_act
        assert seat is not None
        legal = hand.legal_actions()
        calm = [a for a in legal if a.type in PASSIVE]
        if rng.random() < 0.05:
            hand.timeout(seat)
            yield hand
            continue
        action = rng.choice(calm if passive and calm else legal)
        hand.act(seat, action.type, action.to)
        yield hand


def record_of(rng: random.Random, hand: Hand) -> HandRecord:
    """A record of ``hand``: dealt with a deal ticket (issue 32) a third of the time."""
    deal = None
    if rng.random() < 0.3:
        sizes = [rng.randint(16, 64) for _ in range(hand.players)]
        deal = DealEntropy(rng.randbytes(32), tuple(rng.randbytes(n) for n in sizes))
    return HandRecord(
        hand_id=rng.randbytes(16),
        seq=rng.choice([0, 1, rng.randrange(2**64)]),
        test_deck=rng.random() < 0.5,
        salt=rng.randbytes(32),
        player_ids=[
            rng.choice([f"player-{i}", f"joueur-{i}-é", "ü" * 64]) for i in range(hand.players)
        ],
        hand=hand,
        deal=deal,
    )


def what_is_in(hand: Hand) -> set[str]:
    """The cases of the encoding this hand exercises (for the coverage check)."""
    betting = hand.round
    seen = {f"street {hand.street}", hand.variant.name}
    optional = {
        "to_act": hand.to_act,
        "first_actor": betting.first_actor,
        "last_aggressor": betting.last_aggressor,
        "community": hand.community,
    }
    seen |= {f"{name} set" for name, value in optional.items() if value is not None}
    seen |= {f"{name} 0" for name, value in optional.items() if value == 0}
    flags = ("uncapped", "open_pair", "big_made", "bring_in_due", "opener_may_fold", "held")
    seen |= {name for name in flags if getattr(betting, name)}
    amounts = [*hand.stacks, *hand.committed, *betting.bets, betting.level, betting.full_level]
    amounts += [m.to for m in hand.moves if m.to is not None]
    if max(amounts) >= BIG:
        seen.add("big totals")
    if hand.result is not None:
        seen.add("result")
        seen |= {"rake"} if hand.result.rake else set()
        seen |= {"shown"} if hand.result.shown else set()
        seen |= {"low"} if any(p.low_winners for p in hand.result.pots) else set()
        seen |= {"side pots"} if len(hand.result.pots) > 1 else set()
    seen |= {"tabled"} if hand.tabled else set()
    seen |= {"timeout"} if any(m.timeout for m in hand.moves) else set()
    seen |= {"button 0"} if hand.button == 0 else set()
    return seen


@pytest.mark.parametrize("variant", list(Variant))
def test_the_bytes_are_the_reference_messages_at_every_step(variant: Variant) -> None:
    rng = random.Random(f"i22e-{variant.name}")
    seen: Counter[str] = Counter()
    for _ in range(120):
        for hand in every_step(rng, variant):
            record = record_of(rng, hand)
            data = encode(record)
            assert data == reference_bytes(record)
            assert decode(data) == record
            seen.update(what_is_in(hand))
    expected = {
        "result", "rake", "shown", "side pots", "tabled", "timeout", "big totals", "button 0",
        "to_act 0", "first_actor 0", "last_aggressor 0", "bring_in_due", "held", "uncapped",
    }  # fmt: skip
    expected |= {f"street {n}" for n in range(len(VARIANTS[variant].streets))}
    if variant is Variant.SEVEN_CARD_STUD_HI_LO:
        expected.add("low")
    if variant is not Variant.FIVE_CARD_STUD:  # eight players run the deck out
        expected |= {"community set", "opener_may_fold"}
    if VARIANTS[variant].has_open_pair:
        expected |= {"open_pair", "big_made"}
    missing = {case for case in expected if seen[case] == 0}
    assert not missing, seen


@pytest.mark.parametrize("variant", list(Variant))
def test_a_decoded_hand_played_on_writes_the_reference_bytes(variant: Variant) -> None:
    """As an Act does: each step decodes the last state, acts, encodes. The packed moves
    it was decoded with are written back as they came, unread (no Move made for them),
    then the new one: the bytes are the reference message's, whose log is packed from
    every move, and the hand is the one played without a state in between."""
    rng = random.Random(f"i22-log-{variant.name}")
    for _ in range(40):
        for plain in every_step(rng, variant):  # the hand played straight through
            if not plain.moves:
                record = record_of(rng, plain.copy())
                continue
            record = decode(encode(record))
            last = plain.moves[-1]
            hand = record.hand
            if last.timeout:
                hand.timeout(last.seat)
            else:
                hand.act(last.seat, last.type, last.to)
            data = encode(record)
            assert hand.moves.stored == pack_moves(list(plain.moves)[:-1])  # still unread
            assert hand.moves.after == [last]
            assert data == reference_bytes(record)
            assert hand == plain and decode(data) == record


def _edited(change: Callable[[Hand], None]) -> Hand:
    hand, _ = start_hand(
        Variant.SEVEN_CARD_STUD, table_for(Variant.SEVEN_CARD_STUD), [500] * 8, 3, list(range(52))
    )
    hand.act(4, ActionType.BRING_IN)
    change(hand)
    return hand


def _all_zero(hand: Hand) -> None:
    """Every optional value set at 0 (written: it is set), every plain one at 0 (not)."""
    hand.community = hand.to_act = hand.round.first_actor = hand.round.last_aggressor = 0
    hand.button = hand.dealt = hand.street = 0
    hand.round.level = hand.round.full_level = hand.round.full_bets = 0


def _all_set(hand: Hand) -> None:
    """Every flag True and every number at its type's largest."""
    betting = hand.round
    for name in ("uncapped", "open_pair", "big_made", "bring_in_due", "opener_may_fold", "held"):
        setattr(betting, name, True)
    hand.over = True
    hand.button = hand.dealt = betting.full_bets = 2**32 - 1
    betting.level = betting.full_level = 2**63 - 1
    hand.stacks[0] = hand.committed[1] = betting.bets[2] = 2**63 - 1
    hand.tabled = [0, 7]
    hand.moves.append(Move(7, ActionType.RAISE, 2**63 - 1, True))


def _all_empty(hand: Hand) -> None:
    """Empty lists and seats holding no cards: a repeated field is left out when empty,
    but each seat's (empty) bytes are written."""
    hand.deck, hand.moves, hand.tabled = [], MoveLog(), []
    hand.cards = [[] for _ in hand.cards]


EDITS = {"zero": _all_zero, "largest": _all_set, "empty": _all_empty}


@pytest.mark.parametrize("edit", EDITS)
def test_edge_values_are_written_as_protobuf_writes_them(edit: str) -> None:
    """Values no random hand reaches (the encoder checks nothing: ``decode`` does)."""
    hand = _edited(EDITS[edit])
    for record in (
        HandRecord(b"", 0, False, b"", [], hand),  # every field of the state left out
        HandRecord(bytes(16), 2**64 - 1, True, bytes(32), ["", "é"] + ["p"] * 6, hand),
    ):
        assert encode(record) == reference_bytes(record)


def test_a_negative_amount_is_written_as_protobuf_writes_it_and_refused_on_reading() -> None:
    """The engine never makes one: the generated writer writes an int64 as the schema says
    (two's complement, as protobuf does) and ``decode`` refuses the state."""
    hand = _edited(lambda h: h.stacks.__setitem__(0, -1))
    record = HandRecord(bytes(16), 1, False, bytes(32), ["p"] * 8, hand)
    assert encode(record) == reference_bytes(record)
    with pytest.raises(StateInvalid, match="negative"):
        decode(encode(record))


# as if librt were not installed (an import of it fails), then this module's tests
WITHOUT_LIBRT = """
import sys
sys.modules["librt"] = None
import pytest
from studengine import compiled
from studengine.state import bytewriter, wire
assert compiled.BUILD == "python" and wire.BytesWriter is bytewriter.BytesWriter
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:xdist", sys.argv[1]]))
"""


@pytest.mark.skipif("librt" in os.environ.get("STUDENGINE_TEST_WITHOUT", ""), reason="nested")
def test_without_librt_the_sources_write_the_same_bytes() -> None:
    """Without librt a compiled build runs its sources (``compiled.choose`` says why),
    whose encoder writes into the bytearray writer: these tests pass there too."""
    env = {**os.environ, "STUDENGINE_TEST_WITHOUT": "librt"}
    env.pop(compiled.PURE_SWITCH, None)
    proc = subprocess.run(
        [sys.executable, "-c", WITHOUT_LIBRT, __file__],
        env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    if compiled.recorded()[1]:  # a compiled build: its warning names what is missing
        assert "librt (>=" in proc.stderr and "pure-Python sources" in proc.stderr
