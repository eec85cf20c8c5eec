"""The few pieces of the protobuf wire format that the hand-assembled encodings share
(``state.encoding``'s state and action log, the API's serialized views): varints and
length-delimited records. Protobuf's own ``SerializeToString`` stays the reference; the
tests compare the assembled bytes with it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from google.protobuf.descriptor import FieldDescriptor

try:
    from librt.strings import BytesWriter as BytesWriter
except ImportError:  # no librt (the pure-Python sources run): its methods on a bytearray
    from studengine.state.bytewriter import BytesWriter as BytesWriter  # type: ignore[assignment]

_ONE_BYTE: Final = tuple(bytes([n]) for n in range(0x80))
_CONTINUED: Final = tuple(bytes([n | 0x80]) for n in range(0x80))  # a varint's byte with more after


def put_varint(out: bytearray, value: int) -> None:
    """Append ``value`` (0 or more) as a base-128 varint; ValueError when it is negative."""
    if value < 0:
        raise ValueError(f"a negative varint: {value}")
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)


def varint(value: int) -> bytes:
    """``value`` (0 or more) as a base-128 varint; ValueError when it is negative. Those
    below 2**21 (every seat, count and street, most chip amounts) are made without a loop,
    of bytes made once (mypyc compiles ``b"%b..." %`` to one copy of each part)."""
    if value < 0x80:
        if value < 0:
            raise ValueError(f"a negative varint: {value}")
        return _ONE_BYTE[value]
    if value < 0x4000:
        return _CONTINUED[value & 0x7F] + _ONE_BYTE[value >> 7]
    if value < 0x200000:
        return b"%b%b%b" % (
            _CONTINUED[value & 0x7F],
            _CONTINUED[value >> 7 & 0x7F],
            _ONE_BYTE[value >> 14],
        )
    out = bytearray()
    put_varint(out, value)
    return bytes(out)


def read_varint(raw: bytes, at: int) -> tuple[int, int]:
    """The varint at ``raw[at]`` and the index after it; ValueError when it is truncated
    or longer than 64 bits."""
    value = shift = 0
    end = len(raw)
    while True:
        if at >= end or shift > 63:
            raise ValueError("a truncated varint")
        byte = raw[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def varint_key(field: FieldDescriptor) -> bytes:
    """The key of an integer, enum or bool field (wire type 0; field numbers below 16)."""
    if not 0 < field.number < 16:
        raise ValueError(f"{field.full_name}: field number {field.number} needs a longer key")
    return bytes([field.number << 3])


def field_key(message: Any, name: str) -> int:
    """The key (as ``tag``) of the field ``name`` of the message class ``message``:
    length-delimited for a string, bytes, a message or a repeated field (integers packed,
    as proto3 writes them), else an integer's, enum's or bool's."""
    field = message.DESCRIPTOR.fields_by_name[name]
    delimited = is_repeated(field) or field.type in _LENGTH_DELIMITED_TYPES
    return tag(field, LENGTH_DELIMITED if delimited else VARINT)


def is_repeated(field: Any) -> bool:
    """Whether a field descriptor's field is repeated, on every protobuf the package
    declares: ``is_repeated`` from protobuf 6 (which later drops ``label``), ``label``
    before it (4.25, the floor)."""
    if hasattr(field, "is_repeated"):
        return bool(field.is_repeated)
    return bool(field.label == FieldDescriptor.LABEL_REPEATED)


_LENGTH_DELIMITED_TYPES: Final = (
    FieldDescriptor.TYPE_STRING,
    FieldDescriptor.TYPE_BYTES,
    FieldDescriptor.TYPE_MESSAGE,
)


def length_key(field: FieldDescriptor) -> bytes:
    """The key of a length-delimited field (wire type 2; field numbers below 16)."""
    if not 0 < field.number < 16:
        raise ValueError(f"{field.full_name}: field number {field.number} needs a longer key")
    return bytes([field.number << 3 | 2])


def record(key: bytes, payload: bytes) -> bytes:
    """A serialized message (or bytes, or string) as one length-delimited field: the
    field's ``key``, the payload's length, the payload."""
    size = len(payload)
    return b"%b%b%b" % (key, _ONE_BYTE[size] if size < 0x80 else varint(size), payload)


# ---- into a BytesWriter (the state's encoding: one getvalue() at its end) -----------
# librt's BytesWriter: in a compiled module its append, len and item assignment are
# native operations on its buffer (cheaper than a list of ints' appends and its bytes()
# at the end). Keys are numbers here (``tag``), written as varints like any value.

VARINT: Final = 0  # the wire types used: an integer, enum or bool field
LENGTH_DELIMITED: Final = 2  # a message, bytes, string or packed repeated field


def tag(field: FieldDescriptor, wire_type: int) -> int:
    """``field``'s key as a number (any field number; past 15 its varint takes two bytes)."""
    return field.number << 3 | wire_type


def append_varint(out: BytesWriter, value: int) -> None:
    """Append ``value`` (0 or more) to ``out`` as a varint; ValueError when it is negative."""
    if 0 <= value < 0x80:
        out.append(value)
    elif 0x80 <= value < 0x4000:  # most stacks: two appends, no bytes made
        out.append(value & 0x7F | 0x80)
        out.append(value >> 7)
    else:
        out.write(varint(value))


def open_record(out: BytesWriter, key: int) -> int:
    """Start the length-delimited field ``key``: where its contents start, for
    ``close_record`` (its length is written once they are)."""
    append_varint(out, key)
    out.append(0)
    return len(out)


def close_record(out: BytesWriter, start: int) -> None:
    """Write the length of the field whose contents start at ``start``."""
    size = len(out) - start
    if size < 0x80:
        out[start - 1] = size
    else:  # a longer one: its varint in the length's place, the contents after it
        contents = out.getvalue()[start:]
        out.truncate(start - 1)
        out.write(varint(size))
        out.write(contents)


def append_record(out: BytesWriter, key: int, payload: bytes) -> None:
    """``payload`` (a serialized message, bytes or string) as the length-delimited field
    ``key``: the key, the payload's length, the payload."""
    append_varint(out, key)
    append_varint(out, len(payload))
    out.write(payload)


def append_int_field(out: BytesWriter, key: int, value: int) -> None:
    """The integer, enum or bool field ``key`` (``tag``), as proto3 writes it: nothing
    when the value is 0 (its default); ValueError when it is negative."""
    if value:
        append_varint(out, key)
        append_varint(out, value)


def append_text(out: BytesWriter, key: int, text: str) -> None:
    """The string field ``key`` (``tag``), as proto3 writes it: nothing when empty."""
    if text:
        append_record(out, key, text.encode())


def byte_string(values: list[int]) -> bytes:
    """``bytes(values)`` (each value 0 to 255), appended one by one: in a compiled module
    ``bytes()`` of a list is a call through Python's, several times the cost."""
    out = BytesWriter()
    for value in values:
        out.append(value)
    return out.getvalue()


def append_packed(out: BytesWriter, key: int, values: list[int]) -> None:
    """The packed repeated integer field ``key`` (each value 0 or more), as protobuf
    writes it: nothing for no values."""
    if values:
        start = open_record(out, key)
        for value in values:
            append_varint(out, value)
        close_record(out, start)


# ---- whole fields as bytes (the views) -------------------------------------------------


def int_field(key: bytes, value: int) -> bytes:
    """An integer or enum field with its ``key`` (``varint_key``), as proto3 writes it:
    nothing when the value is 0 (its default); ValueError when it is negative."""
    if 0 < value < 0x80:  # every seat, count, street and enum, most amounts
        return key + _ONE_BYTE[value]
    if value == 0:
        return b""
    if 0x80 <= value < 0x4000:
        return b"%b%b%b" % (key, _CONTINUED[value & 0x7F], _ONE_BYTE[value >> 7])
    return key + varint(value)


# ---- serialized parts made once per distinct game ------------------------------------


class GameFields:
    """A game's (variant and table) fields, serialized by ``serialize`` once per distinct
    game and found again by identity: hashing a Table (or an enum member) runs Python code
    for each of its fields, and a decoded hand's table is the one object its decoding made
    (``codec._decode_table`` keeps one per distinct table). At most ``limit`` are kept."""

    def __init__(self, serialize: Callable[[Any, Any], bytes], limit: int = 256) -> None:
        self.serialize = serialize
        self.limit = limit
        # (id(variant), id(table)): (the table, held so that its id stays its own; bytes)
        self.found: dict[tuple[int, int], tuple[object, bytes]] = {}

    def get(self, variant: object, table: object) -> bytes:
        key = (id(variant), id(table))
        found = self.found.get(key)
        if found is None or found[0] is not table:
            if len(self.found) >= self.limit:
                self.found.clear()
            found = self.found[key] = (table, self.serialize(variant, table))
        return found[1]
