"""The state codec maps every field of the engine's Hand exactly, and refuses a state
that breaks the engine's invariants."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import random
from collections.abc import Callable

import pytest
from studengine.cards import shuffled_deck
from studengine.rules.betting import BettingRound
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import ActionType, Table, Variant
from studengine.state import wire
from studengine.state._gen.stud.internal.v1 import state_pb2
from studengine.state.codec import (
    FORMAT_VERSION,
    HandRecord,
    StateInvalid,
    decode,
    unpack_moves,
)
from studengine.state.encoding import encode, pack_moves
from support.state_reference import varint
from support.stud_helpers import check_down, new_hand, random_table


def random_hand(rng: random.Random) -> Hand:
    """A random hand after a random number of random legal actions (maybe over)."""
    variant = rng.choice(list(Variant))
    players = rng.randint(2, 10 if variant is Variant.FIVE_CARD_STUD else 8)
    table = random_table(rng, variant, face_up=0.5)
    stacks = [rng.randint(1, 300) for _ in range(players)]
    deck = shuffled_deck()
    rng.shuffle(deck)
    hand, _ = start_hand(variant, table, stacks, rng.randrange(players), deck)
    for _ in range(rng.randint(0, 40)):
        if hand.is_over:
            break
        assert hand.to_act is not None
        action = rng.choice(hand.legal_actions())
        hand.act(hand.to_act, action.type, action.to)
    return hand


def record_of(hand: Hand) -> HandRecord:
    return HandRecord(
        hand_id=os.urandom(16),
        seq=random.randrange(1000),
        test_deck=random.random() < 0.5,
        salt=os.urandom(32),
        player_ids=[f"player-{i}" for i in range(hand.players)],
        hand=hand,
    )


def test_round_trip_random_hands_mid_play() -> None:
    """Every field survives, tables with ``all_in_face_up`` and tabled hands
    (R-ALL-IN-FACE-UP) among them."""
    rng = random.Random(7)
    over = tabled = 0
    for _ in range(400):
        hand = random_hand(rng)
        over += hand.is_over
        tabled += bool(hand.tabled)
        record = record_of(hand)
        back = decode(encode(record))
        assert back == record
        assert back.hand == hand
        # every field, one by one (dataclass equality would hide a field made equal by default)
        for field in dataclasses.fields(Hand):
            assert getattr(back.hand, field.name) == getattr(hand, field.name), field.name
        for field in dataclasses.fields(BettingRound):
            name = field.name
            assert getattr(back.hand.round, name) == getattr(hand.round, name), name
        # the decoded hand plays on exactly like the original
        if not hand.is_over:
            assert back.hand.legal_actions() == hand.legal_actions()
    assert 20 < over < 380  # both finished and unfinished hands were covered
    assert tabled > 10


# the betting round's fields under their proto names; its table and bet size are the hand's
ROUND_PROTO_NAMES = {"bets": "round_bets", "held": "round_held", "full_bets": "bets"}
ROUND_DERIVED = {"table", "big_street"}


def test_every_hand_field_has_a_proto_field() -> None:
    proto_fields = set(state_pb2.EngineHand.DESCRIPTOR.fields_by_name)
    # the fields a hand is made from (not those worked out from them, like its spec)
    hand_fields = {f.name for f in dataclasses.fields(Hand) if f.init} - {"round"}
    round_fields = {
        ROUND_PROTO_NAMES.get(f.name, f.name)
        for f in dataclasses.fields(BettingRound)
        if f.name not in ROUND_DERIVED
    }
    assert not hand_fields & round_fields
    assert hand_fields | round_fields == proto_fields


def test_encoding_is_stable_through_a_round_trip() -> None:
    """Decoding a state and encoding it again gives the same bytes (nothing lost, nothing
    reordered), for hands at random points of play."""
    rng = random.Random(3)
    for _ in range(50):
        data = encode(record_of(random_hand(rng)))
        assert encode(decode(data)) == data


def _mutated(record: HandRecord, change: str) -> bytes:
    msg = state_pb2.HandState.FromString(encode(record))
    h = msg.hand
    if change == "version":
        msg.format_version = FORMAT_VERSION + 1
    elif change == "short hand id":
        msg.hand_id = b"\x01" * 15
    elif change == "short salt":
        msg.salt = b"\x01" * 31
    elif change == "no hand":
        msg.ClearField("hand")
    elif change == "player ids":
        del msg.player_ids[-1]
    elif change == "variant":
        h.variant = 9
    elif change == "odd chip":
        h.table.odd_chip = 0
    elif change == "stakes":
        h.table.bring_in = h.table.small_bet
    elif change == "deck duplicate":
        deck = bytearray(h.deck)
        deck[0] = deck[1]
        h.deck = bytes(deck)
    elif change == "deck card":
        deck = bytearray(h.deck)
        deck[5] = 52
        h.deck = bytes(deck)
    elif change == "chips made":
        h.stacks[0] += 1
    elif change == "stacks length":
        h.stacks.append(5)
    elif change == "dealt":
        h.dealt += 1
    elif change == "button":
        h.button = 11
    elif change == "to act":
        h.to_act = 11
    elif change == "street":
        h.street = 7
    elif change == "card":
        cards = bytearray(h.cards[0])
        cards[0] = 200
        h.cards[0] = bytes(cards)
    elif change == "over without result":
        h.over = True
    return msg.SerializeToString()


#: each broken invariant and the start of the reason the decoder gives for it
CHANGES = {
    "version": "format version 2",
    "short hand id": "hand id of 15 bytes",
    "short salt": "salt of 31 bytes",
    "no hand": "no hand",
    "player ids": "2 player ids, 3 seats",
    "variant": "variant: unknown code 9",
    "odd chip": "table.odd_chip: unknown code 0",
    "stakes": "table.bring_in: must be less than the small bet",
    "deck duplicate": "the deck is not the 52 cards once each",
    "deck card": "the deck is not the 52 cards once each",
    "chips made": "chips not conserved",
    "stacks length": "stacks has 4 entries for 3 players",
    "dealt": "the cards in play are not the ones dealt",
    "button": "button 11 is not a seat",
    "to act": "to_act 11 is not a seat",
    "street": "street 7 is not one of the variant's",
    "card": "the cards in play are not the ones dealt",
    "over without result": "over and result disagree",
}


@pytest.mark.parametrize("change", CHANGES)
def test_broken_invariants_are_refused(change: str) -> None:
    hand, _ = start_hand(
        Variant.SEVEN_CARD_STUD, Table(5, 10, 20, 40), [500, 500, 500], 0, shuffled_deck()
    )
    record = record_of(hand)
    decode(encode(record))  # the untouched state decodes
    with pytest.raises(StateInvalid) as refused:
        decode(_mutated(record, change))
    assert str(refused.value).startswith(CHANGES[change]), str(refused.value)


def test_garbage_is_refused() -> None:
    rng = random.Random(5)
    for size in (0, 1, 5, 50, 300):
        with pytest.raises(StateInvalid):
            decode(bytes(rng.randrange(256) for _ in range(size)))


def test_encode_sets_optional_fields_only_when_present() -> None:
    hand, _ = start_hand(Variant.FIVE_CARD_STUD, Table(1, 2, 4, 8), [100, 100], 1, shuffled_deck())
    msg = state_pb2.HandState.FromString(encode(record_of(hand))).hand
    assert msg.HasField("to_act")
    assert not msg.HasField("community")
    assert not msg.HasField("result")


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (bytes([0x30]), "moves[0]: seat 3 is not a seat"),
        (bytes([0x0E]), "moves[0]: unknown action kind 7"),
        (bytes([0x02, 0x04]), "moves[1]: a truncated amount"),  # CHECK, then a CALL cut off
        (bytes([0x04, 0x80]), "moves[0]: a truncated amount"),
    ],
)
def test_a_malformed_action_log_is_refused(raw: bytes, reason: str) -> None:
    hand, _ = start_hand(
        Variant.SEVEN_CARD_STUD, Table(5, 10, 20, 40), [500, 500, 500], 0, shuffled_deck()
    )
    msg = state_pb2.HandState.FromString(encode(record_of(hand)))
    msg.hand.moves = raw
    with pytest.raises(StateInvalid) as refused:
        decode(msg.SerializeToString())
    assert str(refused.value).startswith(reason), str(refused.value)


def test_the_action_log_is_packed_small() -> None:
    """One byte per fold or check, one plus the varint total per sized action."""
    hand = random_hand(random.Random(11))
    packed = pack_moves(hand.moves)
    sized = [m for m in hand.moves if m.to is not None]
    assert len(packed) == len(hand.moves) + sum(len(varint(m.to or 0)) for m in sized)
    assert unpack_moves(packed, hand.players) == hand.moves


def _finished_hilo_with_rake() -> HandRecord:
    """A Stud Hi-Lo hand over, raked, with a pot split high and low (R-HILO-SPLIT, R-RAKE)."""
    table = Table.for_game(Variant.SEVEN_CARD_STUD_HI_LO, 5, 10, 20, 40, rake_percent_bp=1000)
    hand, _ = new_hand(
        Variant.SEVEN_CARD_STUD_HI_LO,
        ["Kc Kd Ks 9c 9d Jh 2c", "As 2h 3d 5s 4c 8h 7c", "Qh Jd Tc 7s 6d 3c 9h"],
        table=table,
    )
    check_down(hand)
    assert hand.result is not None and hand.result.rake and hand.result.pots[0].low_winners
    return record_of(hand)


#: broken invariants of the new games' and the rake's fields, and the reasons given
NEW_GAME_CHANGES: dict[str, tuple[Callable[[state_pb2.EngineHand], None], str]] = {
    "rake not from the pots": (
        lambda h: setattr(h.result, "rake", h.result.rake + 1),
        "result: rake 5, the pots gave up 4",
    ),
    "rake not conserved": (
        lambda h: (setattr(h.result, "rake", 5), setattr(h.result.pots[0], "rake", 5)),
        "chips not conserved",
    ),
    "low shares": (
        lambda h: h.result.pots[0].low_shares.append(3),
        "pot 0: low winners and low shares differ",
    ),
    "low winner": (
        lambda h: h.result.pots[0].low_winners.__setitem__(0, 9),
        "pot 0 low winner 9 is not a seat",
    ),
    "open pair in Hi-Lo": (
        lambda h: setattr(h.table, "open_pair_big_bet", True),
        "table.open_pair_big_bet: SEVEN_CARD_STUD_HI_LO has no open-pair option",
    ),
    "rake rate": (
        lambda h: setattr(h.table, "rake_percent_bp", 10_001),
        "table.rake_percent_bp: must be 0 to 10000",
    ),
}


def test_new_game_fields_round_trip_and_broken_ones_are_refused() -> None:
    """The Hi-Lo low winners and shares, the shown lows and the rake survive a round trip;
    each broken invariant of them is refused with its own reason (R-RAKE, R-HILO-SPLIT)."""
    record = _finished_hilo_with_rake()
    data = encode(record)
    assert decode(data).hand == record.hand
    refused_each(data, NEW_GAME_CHANGES)


Changes = dict[str, tuple[Callable[[state_pb2.EngineHand], None], str]]


def refused_each(data: bytes, changes: Changes) -> None:
    """Each change to the state ``data``'s hand is refused, with its own reason."""
    for name, (change, reason) in changes.items():
        msg = state_pb2.HandState.FromString(data)
        change(msg.hand)
        with pytest.raises(StateInvalid) as refused:
            decode(msg.SerializeToString())
        assert str(refused.value).startswith(reason), (name, str(refused.value))


# A state sealed's contents as the codec wrote them before ``all_in_face_up`` existed (made
# with that codec, main at 44974a0: Seven Card Stud heads-up, button 1, stacks 30 and
# 1,000, deck "Ah 9s Kh 9h 2c 5d 3d 9d 4s 5s 7c Qc Jd 8h", after seat 0's complete to 20).
OLD_STATE = bytes.fromhex(
    "08011210000102030405060708090a0b0c0d0e0f180120012a20000102030405060708090a0b0c0d0e0f"
    "101112131415161718191a1b1c1d1e1f3201613201623a89010802120e0805100a18142028280438014001"
    "180122031ee8072a34321f2e1e000d051d0b0f1428251a01020304060708090a0c0e1011121315161718"
    "191b1c20212223242627292a2b2c2d2f30313330063a0305e307420219054a0214005203322e00520"
    "31f1e0d620200006a0201007801800114880114900101c00100c80100d00101ea01020814"
)


def test_a_state_from_before_the_option_opens_with_it_off_r_all_in_face_up() -> None:
    """An old state (no ``all_in_face_up``, no ``tabled``, no deck commitment) opens with
    the option off and nothing tabled, encodes back to the same bytes but for the
    commitment it now keeps (SHA-256 of hand_id || salt || deck), and plays on as before:
    the all-in call tables nothing."""
    record = decode(OLD_STATE)
    hand = record.hand
    assert hand.table == Table(5, 10, 20, 40) and not hand.table.all_in_face_up
    assert hand.tabled == [] and hand.to_act == 1
    commitment = hashlib.sha256(record.hand_id + record.salt + bytes(hand.deck)).digest()
    assert record.deck_commitment == commitment
    assert encode(record) == OLD_STATE + wire.record(8 << 3 | 2, commitment)  # field 8
    hand.act(1, ActionType.RAISE, 40)
    hand.act(0, ActionType.CALL)  # all-in: with the option on this would table both
    assert hand.over and hand.tabled == []


def _tabled_record() -> HandRecord:
    """A hand over whose two hands were tabled (R-ALL-IN-FACE-UP)."""
    table = Table(5, 10, 20, 40, all_in_face_up=True)
    hand, _ = new_hand(
        Variant.SEVEN_CARD_STUD,
        ["Ah Kh 2c 3d 4s 7c Jd", "9s 9h 5d 9d 5s Qc 8h", "Ts Th Td"],
        stacks=[25, 1000, 1000],
        table=table,
    )
    for seat, action in [(0, "COMPLETE"), (1, "CALL"), (2, "FOLD")]:
        hand.act(seat, ActionType(action))
    check_down(hand)
    assert hand.over and hand.tabled == [0, 1]
    return record_of(hand)


TABLED_CHANGES: Changes = {
    "option off": (
        lambda h: setattr(h.table, "all_in_face_up", False),
        "hands tabled on a table without all_in_face_up",
    ),
    "not a seat": (lambda h: h.tabled.append(3), "tabled seat 3 is not a seat"),
    "order": (lambda h: h.tabled.reverse(), "tabled seats are not in seat order, once each"),
    "twice": (lambda h: h.tabled.append(1), "tabled seats are not in seat order, once each"),
    "folded": (lambda h: h.tabled.append(2), "a tabled seat has folded"),
}


def test_tabled_hands_round_trip_and_broken_ones_are_refused_r_all_in_face_up() -> None:
    record = _tabled_record()
    data = encode(record)
    back = decode(data)
    assert back.hand == record.hand and back.hand.tabled == [0, 1]
    assert back.hand.table.all_in_face_up
    refused_each(data, TABLED_CHANGES)


def test_a_seat_to_act_after_a_tabling_is_refused() -> None:
    """Tabled hands bet no more (R-ALL-IN-FACE-UP): a state with hands tabled and a seat
    to act is not one the engine makes."""
    hand, _ = start_hand(
        Variant.SEVEN_CARD_STUD,
        Table(5, 10, 20, 40, all_in_face_up=True),
        [500, 500],
        0,
        shuffled_deck(),
    )
    msg = state_pb2.HandState.FromString(encode(record_of(hand)))
    msg.hand.tabled.extend([0, 1])
    with pytest.raises(StateInvalid) as refused:
        decode(msg.SerializeToString())
    assert str(refused.value) == "a seat to act after the hands were tabled"
