"""A HandUpdate's fields around the views, as bytes: what StartHand and Act answer is
``head || views || tail``, each part in field-number order, exactly as protobuf's own
``SerializeToString`` writes the whole message (``tests/unit/test_api_serialized_updates.py``
holds them to it). The head is the hand's id, seq and sealed state; the tail the seat to
act, the legal actions, the deck commitment, ``over``, and at a hand's end its result and
reveal (``conversions.result_bytes`` and ``reveal_bytes``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from studengine.api._gen.stud.v1 import stud_engine_keys as keys
from studengine.api.conversions import ACTION_TO_PB, result_bytes, reveal_bytes
from studengine.api.views import write_views
from studengine.deal import commitment
from studengine.rules.types import ACTION_TYPES, Event, LegalAction, action_index
from studengine.state import wire
from studengine.state.codec import HandRecord
from studengine.state.wire import BytesWriter

# whole fields made once (the keys: ``keys``, generated): ``over`` (written only when
# true), each action's LegalAction.type, in ACTION_TYPES' order (no action has the code
# 0, which proto3 leaves out)
_OVER: Final = wire.int_field(keys.HAND_UPDATE_OVER, True)
_LEGAL_TYPE: Final = tuple(
    wire.int_field(keys.LEGAL_ACTION_TYPE, ACTION_TO_PB[action]) for action in ACTION_TYPES
)


def deck_commitment(record: HandRecord) -> str:
    """The public commitment to the deal as the API shows it, in hex: SHA-256 of
    hand_id || salt || deck bytes, made once per hand (``codec.commit_deck``) and kept
    in its state."""
    return record.deck_commitment.hex()


def deal_commitment(record: HandRecord) -> str:
    """The deal ticket's commitment in hex (SHA-256 of its server seed) when the hand was
    dealt with one; "" otherwise."""
    return "" if record.deal is None else commitment(record.deal.server_seed).hex()


def update_bytes(record: HandRecord, sealed: bytes, events: Sequence[Event]) -> bytes:
    """The whole HandUpdate after ``events``, ``sealed`` its state: the head, the views and
    the tail written into one buffer (no copy of the views to join them)."""
    out = BytesWriter()
    out.write(head(record.hand_id, record.seq, sealed))
    write_views(out, record.hand, record.player_ids, events)
    out.write(tail(record))
    return out.getvalue()


def head(hand_id: bytes, seq: int, sealed: bytes) -> bytes:
    """HandUpdate's fields 1 to 3: the hand's id (hex), its seq (left out at 0), the state."""
    return (
        wire.record(keys.HAND_UPDATE_HAND_ID, hand_id.hex().encode("ascii"))
        + wire.int_field(keys.HAND_UPDATE_SEQ, seq)
        + wire.record(keys.HAND_UPDATE_STATE, sealed)
    )


def legal_actions(actions: Sequence[LegalAction]) -> bytes:
    """HandUpdate's field 7: each legal action as one LegalAction record."""
    out = BytesWriter()
    for action in actions:
        start = wire.open_record(out, keys.HAND_UPDATE_LEGAL_ACTIONS)
        out.write(_LEGAL_TYPE[action_index(action.type)])  # by identity: no enum hashing
        if action.to is not None:
            wire.append_varint(out, keys.LEGAL_ACTION_TO)
            wire.append_varint(out, action.to)
        wire.close_record(out, start)
    return out.getvalue()


def tail(record: HandRecord) -> bytes:
    """HandUpdate's fields 6 to 12: the seat to act (when someone acts), the legal actions,
    the deck commitment, ``over`` (when true), once the hand is over its result and the
    reveal of the salt and deck (and a ticket's seed and contributions), and the deal
    commitment of a hand dealt with a ticket."""
    hand = record.hand
    parts = []
    if hand.to_act is not None:
        parts.append(wire.varint(keys.HAND_UPDATE_TO_ACT) + wire.varint(hand.to_act))
    parts.append(legal_actions(hand.legal_actions()))
    parts.append(
        wire.record(keys.HAND_UPDATE_DECK_COMMITMENT, deck_commitment(record).encode("ascii"))
    )
    if hand.over:
        parts.append(_OVER)
    if hand.result is not None:
        parts.append(wire.record(keys.HAND_UPDATE_RESULT, result_bytes(hand.result)))
        parts.append(wire.record(keys.HAND_UPDATE_REVEAL, _reveal(record)))
    if record.deal is not None:
        parts.append(
            wire.record(keys.HAND_UPDATE_DEAL_COMMITMENT, deal_commitment(record).encode("ascii"))
        )
    return b"".join(parts)


def _reveal(record: HandRecord) -> bytes:
    deal = record.deal
    if deal is None:
        return reveal_bytes(record.salt, record.hand.deck)
    return reveal_bytes(record.salt, record.hand.deck, deal.server_seed, deal.contributions)
