"""A HandUpdate's fields around the views, as bytes: what StartHand and Act answer is
``head || views || tail``, each part in field-number order, exactly as protobuf's own
``SerializeToString`` writes the whole message (``tests/unit/test_api_serialized_updates.py``
holds them to it). The head is the hand's id, seq and sealed state; the tail the seat to
act, the legal actions, the deck commitment, ``over``, and at a hand's end its result and
reveal (``conversions.result_bytes`` and ``reveal_bytes``). Every part is written into
one ``BytesWriter``, as the views are.
"""

from __future__ import annotations

from collections.abc import Sequence

from studengine.api._gen.stud.v1 import stud_engine_keys as keys
from studengine.api._gen.stud.v1.stud_engine_writers import write_legal_action
from studengine.api.conversions import ACTION_CODES, result_bytes, reveal_bytes
from studengine.api.views import write_views
from studengine.deal import commitment
from studengine.rules.types import Event, LegalAction, action_index
from studengine.state import wire
from studengine.state.codec import HandRecord
from studengine.state.wire import BytesWriter


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
    the tail written into one buffer."""
    out = BytesWriter()
    write_head(out, record.hand_id, record.seq, sealed)
    write_views(out, record.hand, record.player_ids, events)
    write_tail(out, record)
    return out.getvalue()


def write_head(out: BytesWriter, hand_id: bytes, seq: int, sealed: bytes) -> None:
    """HandUpdate's fields 1 to 3: the hand's id (hex), its seq (left out at 0), the state."""
    wire.append_text(out, keys.HAND_UPDATE_HAND_ID, hand_id.hex())
    wire.append_int_field(out, keys.HAND_UPDATE_SEQ, seq)
    wire.append_record(out, keys.HAND_UPDATE_STATE, sealed)


def write_legal_actions(out: BytesWriter, actions: Sequence[LegalAction]) -> None:
    """HandUpdate's field 7: each legal action as one LegalAction record."""
    for action in actions:
        start = wire.open_record(out, keys.HAND_UPDATE_LEGAL_ACTIONS)
        write_legal_action(out, ACTION_CODES[action_index(action.type)], action.to)
        wire.close_record(out, start)


def write_tail(out: BytesWriter, record: HandRecord) -> None:
    """HandUpdate's fields 6 to 12: the seat to act (when someone acts), the legal actions,
    the deck commitment, ``over`` (when true), once the hand is over its result and the
    reveal of the salt and deck (and a ticket's seed and contributions), and the deal
    commitment of a hand dealt with a ticket."""
    hand = record.hand
    if hand.to_act is not None:
        wire.append_varint(out, keys.HAND_UPDATE_TO_ACT)
        wire.append_varint(out, hand.to_act)
    write_legal_actions(out, hand.legal_actions())
    wire.append_text(out, keys.HAND_UPDATE_DECK_COMMITMENT, deck_commitment(record))
    wire.append_int_field(out, keys.HAND_UPDATE_OVER, hand.over)
    if hand.result is not None:
        wire.append_record(out, keys.HAND_UPDATE_RESULT, result_bytes(hand.result))
        deal = record.deal
        reveal = (
            reveal_bytes(record.salt, hand.deck)
            if deal is None
            else reveal_bytes(record.salt, hand.deck, deal.server_seed, deal.contributions)
        )
        wire.append_record(out, keys.HAND_UPDATE_REVEAL, reveal)
    wire.append_text(out, keys.HAND_UPDATE_DEAL_COMMITMENT, deal_commitment(record))
