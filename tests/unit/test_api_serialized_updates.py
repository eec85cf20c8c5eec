"""StartHand's and Act's answers are assembled as bytes (the views never parsed into a
message only to be serialized again: issue 22). These tests hold those bytes to the old
path's: the whole response built with the message API from the same hand, the same events
(replayed by the rules engine alongside) and the same sealed state. The answer parses to
exactly that message and is byte for byte its serialization: the HandUpdate's fields in
field-number order, as protobuf's own serialization writes them (and each view's, which
``test_api_serialized_parts.py`` holds to views built from scratch)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from typing import Any

from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api import updates
from studengine.api.calls import DEADLINE_METHODS, METHODS, ApiCalls
from studengine.api.conversions import ACTION_FROM_PB, cards_text, legal_to_pb, result_to_pb
from studengine.api.expensive import ExpensiveCalls
from studengine.api.handlers import Handlers
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import ActionType, Event, LegalAction
from studengine.state.codec import HandRecord
from studengine.state.sealing import KeyRing
from studengine.state.wire import BytesWriter
from support.api_helpers import (
    new_key,
    random_act,
    random_start,
    reference_commitment,
    smallest_size,
)
from support.state_reference import read_varint
from support.view_reference import build_views


def reference_update(record: HandRecord, events: Sequence[Event], state: bytes) -> pb.HandUpdate:
    """The HandUpdate as the handlers built it before: every field set on one message."""
    hand = record.hand
    update = pb.HandUpdate(
        hand_id=record.hand_id.hex(),
        seq=record.seq,
        state=state,
        legal_actions=legal_to_pb(hand.legal_actions()),
        deck_commitment=reference_commitment(record.hand_id, record.salt, hand.deck),
        over=hand.over,
    )
    spectator, seats = build_views(hand, record.player_ids, events)
    update.spectator.CopyFrom(spectator)
    update.seats.extend(seats)
    if hand.to_act is not None:
        update.to_act = hand.to_act
    if hand.result is not None:
        update.result.CopyFrom(result_to_pb(hand.result))
        update.reveal.CopyFrom(pb.Reveal(salt=record.salt.hex(), deck=cards_text(hand.deck)))
    return update


def field_numbers(data: bytes) -> list[int]:
    """The field numbers of a serialized message's top-level fields, in their order (the
    HandUpdate's fields are varints and length-delimited records only)."""
    numbers, at = [], 0
    while at < len(data):
        key, at = read_varint(data, at)
        numbers.append(key >> 3)
        value, at = read_varint(data, at)
        if key & 7 == 2:  # length-delimited: skip the payload
            at += value
    assert at == len(data)
    return numbers


def check_answer(data: bytes, expected: pb.StartHandResponse | pb.ActResponse) -> None:
    """``data`` is the answer ``expected``, the HandUpdate's fields in field order: byte
    for byte protobuf's serialization of it (the views are, too)."""
    assert type(expected).FromString(data) == expected
    assert data == expected.SerializeToString()
    (length, update) = read_varint(data, 1)
    numbers = field_numbers(data[update:])
    assert update + length == len(data) and numbers == sorted(numbers)
    # every field of the reference is there (proto3 leaves out zeros: so does the answer)
    assert set(numbers) == {f.number for f, _ in expected.hand.ListFields()}


def shadow_act(shadow: Hand, request: pb.ActRequest) -> list[Event]:
    """The request's move on the rules engine's own copy of the hand."""
    if request.action == pb.ACTION_TYPE_TIMEOUT:
        return shadow.timeout(request.seat)
    action = ACTION_FROM_PB[request.action]
    to = request.to if request.HasField("to") else smallest_size(shadow, action)
    return shadow.act(request.seat, action, to)


def test_answers_equal_the_message_built_ones_serialized() -> None:
    rng = random.Random(22)
    decks: list[list[int]] = []

    def shuffle() -> list[int]:
        deck = list(range(52))
        rng.shuffle(deck)
        decks.append(deck)
        return list(deck)

    handlers = Handlers(KeyRing([new_key("k1")]), allow_test_decks=False, shuffle=shuffle)
    calls = ApiCalls(handlers, ExpensiveCalls(threads=1, limit=1))
    answers = showdowns = 0
    for _ in range(120):
        start = random_start(rng)
        data = handlers.start_hand_serialized(start)
        update = pb.StartHandResponse.FromString(data).hand
        record = handlers.sealer.open(update.state)
        hand = record.hand
        stacks = [p.stack for p in start.players]
        shadow, events = start_hand(hand.variant, hand.table, stacks, start.button, decks[-1])
        check_answer(
            data, pb.StartHandResponse(hand=reference_update(record, events, update.state))
        )
        assert shadow == hand
        while not update.over:
            request = random_act(rng, update)
            data = asyncio.run(calls.run_serialized("Act", request, None))
            update = pb.ActResponse.FromString(data).hand
            record = handlers.sealer.open(update.state)
            events = shadow_act(shadow, request)
            expected = pb.ActResponse(hand=reference_update(record, events, update.state))
            check_answer(data, expected)
            assert shadow == record.hand
            answer = handlers.act(request)  # the message API's answer: the same but the
            assert handlers.sealer.open(answer.hand.state) == record  # state's new nonce
            answer.hand.state = update.state
            assert answer == expected
            answers += 1
        showdowns += len(update.result.shown) > 0
    assert answers > 500 and showdowns > 20


def test_the_other_calls_are_their_messages_serialized() -> None:
    handlers = Handlers(KeyRing([new_key("k1")]), allow_test_decks=False)
    calls = ApiCalls(handlers, ExpensiveCalls(threads=1, limit=1))
    update = handlers.start_hand(random_start(random.Random(3))).hand
    request = pb.GetViewRequest(state=update.state, seat=0)
    data = asyncio.run(calls.run_serialized("GetView", request, None))
    assert data == handlers.get_view(request).SerializeToString()


def test_head_and_legal_actions_are_their_fields_serialized() -> None:
    """``updates.write_head`` and ``write_legal_actions`` at the edges the random hands seldom
    reach: seq 0 (left out) and varints of every length, each action with and without a
    ``to``, a ``to`` of 0 (present: the field is optional), the largest amounts."""
    hand_id, state = bytes(range(16)), bytes(range(256)) * 2
    for seq in (0, 1, 127, 128, 2**14, 2**21, 2**35, 2**63):
        expected = pb.HandUpdate(hand_id=hand_id.hex(), seq=seq, state=state)
        assert written(updates.write_head, hand_id, seq, state) == expected.SerializeToString()
    actions = [LegalAction(kind) for kind in ActionType]
    actions += [LegalAction(kind, to) for kind in ActionType for to in (0, 1, 300, 10**15)]
    expected = pb.HandUpdate(legal_actions=legal_to_pb(actions))
    assert written(updates.write_legal_actions, actions) == expected.SerializeToString()
    assert written(updates.write_legal_actions, []) == b""


def written(write: Callable[..., None], *args: Any) -> bytes:
    """What ``write`` writes of ``args`` into a writer of its own."""
    out = BytesWriter()
    write(out, *args)
    return out.getvalue()


def test_the_servicer_calls_the_serialized_handlers_straight() -> None:
    """StartHand and Act go to their handlers with no coroutine between (the others, and
    only Equity asks for the deadline, through ``run_serialized``)."""
    handlers = Handlers(KeyRing([new_key("k1")]), allow_test_decks=False)
    calls = ApiCalls(handlers, ExpensiveCalls(threads=1, limit=1))
    assert calls.serialized_handler("Act") == handlers.act_serialized
    assert calls.serialized_handler("StartHand") == handlers.start_hand_serialized
    assert {m for m in METHODS if calls.serialized_handler(m) is None} == {
        "Evaluate",
        "Equity",
        "GetView",
        "GetHandHistory",
        "CreateDealTicket",
    }
    assert {"Equity"} == DEADLINE_METHODS
