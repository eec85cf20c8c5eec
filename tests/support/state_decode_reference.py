"""The state's reading as it was before issue 22's own reader (``state.reader``):
protobuf's parser (upb) fills a ``HandState``, whose fields are copied by name, by the
message's descriptor, into the reader's records; ``codec.decode_state`` checks them as it
checks the reader's. The tests hold the reader, and so ``codec.decode``, to it."""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import Descriptor
from google.protobuf.message import DecodeError, Message
from studengine.state._gen.stud.internal.v1 import state_fields, state_pb2
from studengine.state._gen.stud.internal.v1.state_fields import (
    EngineTableFields,
    HandStateFields,
)
from studengine.state.codec import HandRecord, StateInvalid, decode_state
from studengine.state.reader import MALFORMED

#: each message's record in the generated ``state_fields``
RECORDS: dict[str, type] = {
    name: getattr(state_fields, f"{name}Fields")
    for name in (
        *("HandState", "EngineHand", "EngineTable", "EngineResult", "EnginePot"),
        *("EngineShownHand", "EngineUncalled"),
    )
}
#: the messages the reader keeps as their bytes (``codec.decode_deal`` reads them)
RAW_MESSAGES = frozenset({"DealEntropy"})


def reference_fields(data: bytes) -> HandStateFields:
    """``data`` parsed by protobuf, as the reader's records (the refusal ``decode`` gave)."""
    msg = state_pb2.HandState()
    try:
        msg.ParseFromString(data)
    except (DecodeError, RuntimeWarning, ValueError) as error:
        raise StateInvalid(MALFORMED) from error
    state: HandStateFields = as_record(msg)
    return state


def reference_decode(data: bytes) -> HandRecord:
    """``codec.decode`` as it was: protobuf's parse, then the same checks."""
    return decode_state(reference_fields(data))


def as_record(msg: Message) -> Any:
    """``msg``'s record: every field by name; a message or optional field not set is
    None; a table's ``wire`` (the codec's key for it) is its serialization, as the codec
    keyed its tables before."""
    record = RECORDS[msg.DESCRIPTOR.name]()
    for field in msg.DESCRIPTOR.fields:
        value = getattr(msg, field.name)
        if field.message_type and field.message_type.name in RAW_MESSAGES:
            given = msg.HasField(field.name)
            value = value.SerializeToString(deterministic=True) if given else None
        elif field.is_repeated:
            value = [as_record(v) for v in value] if field.message_type else list(value)
        elif field.has_presence and not msg.HasField(field.name):
            value = None
        elif field.message_type:
            value = as_record(value)
        setattr(record, field.name, value)
    if isinstance(record, EngineTableFields):
        record.wire = msg.SerializeToString(deterministic=True)
    return record


def as_tree(record: Any, descriptor: Descriptor = state_pb2.HandState.DESCRIPTOR) -> Any:
    """A record's fields as nested dicts (every field of the message, by its descriptor;
    not a table's ``wire``), to compare two records."""
    if record is None:
        return None
    tree = {}
    for field in descriptor.fields:
        value = getattr(record, field.name)
        if field.message_type is None:
            tree[field.name] = value
        elif field.message_type.name in RAW_MESSAGES and value is None:  # not given
            tree[field.name] = None
        elif field.message_type.name in RAW_MESSAGES:  # its bytes, compared as a message
            raw = getattr(state_pb2, field.message_type.name).FromString(value)
            tree[field.name] = {
                f.name: list(getattr(raw, f.name)) if f.is_repeated else getattr(raw, f.name)
                for f in field.message_type.fields
            }
        elif field.is_repeated:
            tree[field.name] = [as_tree(v, field.message_type) for v in value]
        else:
            tree[field.name] = as_tree(value, field.message_type)
    return tree
