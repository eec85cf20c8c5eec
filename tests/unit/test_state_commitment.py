"""The deck commitment kept in the sealed state (``HandState.deck_commitment``, issue 22):
made once when the hand starts, equal to SHA-256 of hand_id || salt || deck; a state made
before it was kept opens with it computed, and a server that does not know the field
(an older one, during a rolling deploy) reads a state that has it, skipping it."""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Callable

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import Message
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api.handlers import Handlers
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import Variant
from studengine.state import wire
from studengine.state._gen.stud.internal.v1 import state_pb2
from studengine.state._gen.stud.internal.v1.state_fields import HandStateFields
from studengine.state._gen.stud.internal.v1.state_fields import parse as parse_state
from studengine.state._gen.stud.internal.v1.state_fields import read as read_state
from studengine.state.codec import HandRecord, StateInvalid, decode_state
from studengine.state.encoding import encode
from studengine.state.sealing import KeyRing
from support.api_helpers import new_key, random_act, random_start, reference_commitment
from support.stud_helpers import table_for

# both ways of reading a state's bytes: the compiled build's and the pure build's
READERS: list[Callable[[bytes], HandStateFields]] = [read_state, parse_state]


def sha256_of_deal(record: HandRecord) -> bytes:
    return hashlib.sha256(record.hand_id + record.salt + bytes(record.hand.deck)).digest()


def a_hand(seed: int) -> Hand:
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    table = table_for(Variant.SEVEN_CARD_STUD, 20)
    hand, _ = start_hand(Variant.SEVEN_CARD_STUD, table, [500] * 4, 0, deck)
    return hand


def a_record(seed: int) -> HandRecord:
    hand = a_hand(seed)
    return HandRecord(os.urandom(16), seed, False, os.urandom(32), ["a", "b", "c", "d"], hand)


def without_commitment(data: bytes) -> bytes:
    """The state's bytes as a server that did not keep the commitment wrote them."""
    msg = state_pb2.HandState.FromString(data)
    msg.ClearField("deck_commitment")
    return msg.SerializeToString(deterministic=True)


def test_a_new_record_commits_to_its_deal() -> None:
    for seed in range(20):
        record = a_record(seed)
        assert record.deck_commitment == sha256_of_deal(record)
        assert len(record.deck_commitment) == 32


@pytest.mark.parametrize("read", READERS)
def test_the_commitment_is_kept_and_read_back(read: Callable[[bytes], HandStateFields]) -> None:
    record = a_record(1)
    data = encode(record)
    assert data == without_commitment(data) + wire.record(8 << 3 | 2, record.deck_commitment)
    back = decode_state(read(data))
    assert back == record and back.deck_commitment == sha256_of_deal(record)


@pytest.mark.parametrize("read", READERS)
def test_a_state_without_it_opens_with_it_computed(
    read: Callable[[bytes], HandStateFields],
) -> None:
    record = a_record(2)
    old = without_commitment(encode(record))
    assert read(old).deck_commitment == b""
    back = decode_state(read(old))
    assert back.deck_commitment == sha256_of_deal(record) == record.deck_commitment
    assert encode(back) == encode(record)  # written with it from then on


def test_a_kept_commitment_is_not_recomputed() -> None:
    """The state is authenticated: its kept commitment is the one made at StartHand, read
    as it is (only its length is checked)."""
    record = a_record(3)
    kept = bytes(range(32))
    back = decode_state(read_state(encode(HandRecord(*_fields(record), deck_commitment=kept))))
    assert back.deck_commitment == kept


def _fields(record: HandRecord) -> tuple[bytes, int, bool, bytes, list[str], Hand]:
    return record.hand_id, record.seq, record.test_deck, record.salt, record.player_ids, record.hand


@pytest.mark.parametrize("size", [1, 16, 31, 33, 64])
@pytest.mark.parametrize("read", READERS)
def test_a_commitment_of_another_length_is_refused(
    read: Callable[[bytes], HandStateFields], size: int
) -> None:
    msg = state_pb2.HandState.FromString(encode(a_record(4)))
    msg.deck_commitment = bytes(size)
    with pytest.raises(StateInvalid, match=f"deck commitment of {size} bytes"):
        decode_state(read(msg.SerializeToString()))


def old_schema() -> type[Message]:
    """HandState as a server from before the field knows it: state.proto without
    ``deck_commitment``."""
    file = descriptor_pb2.FileDescriptorProto()
    state_pb2.DESCRIPTOR.CopyToProto(file)
    (state,) = [m for m in file.message_type if m.name == "HandState"]
    kept = [f for f in state.field if f.name != "deck_commitment"]
    assert len(kept) == len(state.field) - 1
    del state.field[:]
    state.field.extend(kept)
    pool = descriptor_pool.DescriptorPool()  # its own pool: the same names, apart
    pool.Add(file)
    return message_factory.GetMessageClass(
        pool.FindMessageTypeByName(state_pb2.HandState.DESCRIPTOR.full_name)
    )


def test_an_older_server_reads_a_state_that_keeps_it() -> None:
    """No format-version bump: to the old schema the field is unknown and skipped, every
    other field read as before (what the old server's own reader does with an unknown
    field is held to protobuf's parser by ``test_state_reader``)."""
    record = a_record(5)
    data = encode(record)
    old = old_schema().FromString(data)
    assert old.SerializeToString(deterministic=True) == data  # the unknown field kept
    old.DiscardUnknownFields()
    assert old.SerializeToString(deterministic=True) == without_commitment(data)
    assert decode_state(parse_state(without_commitment(data))) == record


def test_every_update_of_a_hand_carries_the_commitment_of_its_deal() -> None:
    """StartHand's commitment is SHA-256 of hand_id || salt || deck; every Act's, GetView's
    and the history's is the same, also for a hand whose state was sealed without it."""
    keyring = KeyRing([new_key("k1")])
    handlers = Handlers(keyring, allow_test_decks=False)
    rng = random.Random(22)
    for game in range(12):
        update = handlers.start_hand(random_start(rng)).hand
        record = handlers.sealer.open(update.state)
        commitment = reference_commitment(record.hand_id, record.salt, record.hand.deck)
        assert update.deck_commitment == commitment == record.deck_commitment.hex()
        while not update.over:
            if game % 2:  # a state sealed by a server that did not keep it
                record = handlers.sealer.open(update.state)
                plain = without_commitment(encode(record))
                update.state = keyring.seal_bytes(plain)
            update = handlers.act(random_act(rng, update)).hand
            assert update.deck_commitment == commitment
            view = handlers.get_view(pb.GetViewRequest(state=update.state))
            assert view.deck_commitment == commitment
        history = handlers.get_hand_history(pb.GetHandHistoryRequest(state=update.state))
        assert f'_deck_commitment = "{commitment}"' in history.phh
