"""The cursor the internal state's bytes (``stud.internal.v1.HandState``) are read with,
as protobuf's parser reads them; the readers of each message on it, and the records they
fill, are generated from ``state.proto`` (``proto/fastpath.py``, into ``state/_gen``:
``state_fields``). ``codec.decode`` checks the record and makes the Hand.

What protobuf's parser accepts is accepted, the same way: fields in any order; a known field
of another wire type skipped as unknown; repeated numbers packed or one by one; a later
value of a singular field over an earlier one; a message field given twice merged; unknown
fields of every wire type skipped, groups nested up to ``MAX_DEPTH`` (with the messages
around them); varints of up to ten bytes, cut to 64 bits (an int64 as two's complement, a
uint32 to its low 32 bits); strings valid UTF-8. What it refuses is malformed here:
``StateInvalid(MALFORMED)``. The pure build makes the same records from protobuf's own
parse (``state_fields.parse``); the tests hold both to it (``state_decode_reference``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from studengine.state.checks import StateInvalid

if TYPE_CHECKING:  # a native (unboxed) integer in the compiled build, an int when run pure
    from mypy_extensions import i64

MALFORMED: Final = "not a state proto"
MAX_DEPTH: Final = 100  # protobuf's default recursion limit: messages and groups nested

# the wire types
VARINT: Final = 0
FIXED64: Final = 1
LEN: Final = 2  # length-delimited: a message, bytes, a string or packed numbers
START_GROUP: Final = 3
END_GROUP: Final = 4
FIXED32: Final = 5

_SHORT: Final = 0x3FFFFFFFFFFFFFFF  # 2**62 - 1: the compiled build compares up to it inline
_INT64_SIGN: Final = 1 << 63
_UINT64: Final = 1 << 64
_UINT32_MASK: Final = 0xFFFFFFFF


class Cursor:
    """Reads the fields of one message, ``data[at:end]``, ``depth`` messages and groups
    deep; every read past ``end`` or of a malformed value raises ``StateInvalid``."""

    def __init__(self, data: bytes, at: i64, end: i64, depth: i64) -> None:
        self.data = data
        self.at = at
        self.end = end
        self.depth = depth

    def more(self) -> bool:
        return self.at < self.end

    def key(self) -> i64:
        """The next field's key, number << 3 | wire type (at most five bytes, 32 bits)."""
        start = self.at
        if start < self.end:
            first: i64 = self.data[start]
            if first < 0x80:  # fields 1 to 15: one byte
                self.at = start + 1
                return first
        key = self.varint()
        if key > _UINT32_MASK or self.at - start > 5:
            raise StateInvalid(MALFORMED)
        return key

    def varint(self) -> int:
        """A varint of up to ten bytes, cut to 64 bits (a uint64)."""
        data, at, end = self.data, self.at, self.end
        if at < end:  # most are one or two bytes: a key, a seat, a stack
            first = data[at]
            if first < 0x80:
                self.at = at + 1
                return first
            if at + 1 < end and data[at + 1] < 0x80:
                self.at = at + 2
                return first - 0x80 + (data[at + 1] << 7)
        value = shift = 0
        while True:
            if at >= end or shift > 63:
                raise StateInvalid(MALFORMED)
            byte = data[at]
            at += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
        self.at = at
        return value % _UINT64 if shift == 63 else value

    def int64(self) -> int:
        """An int64: a uint64 from 2**63 on is negative (two's complement)."""
        value = self.varint()
        if value <= _SHORT:
            return value
        return value - _UINT64 if value >= _INT64_SIGN else value

    def uint32(self) -> int:
        return self.varint() & _UINT32_MASK

    def boolean(self) -> bool:
        return self.varint() != 0

    def length(self) -> i64:
        """A length-delimited field's length (at most five bytes), within the message:
        where the field ends."""
        start = self.at
        size = self.varint()
        if self.at - start > 5 or size > self.end - self.at:
            raise StateInvalid(MALFORMED)
        return self.at + size

    def chunk(self) -> bytes:
        """A bytes field."""
        end = self.length()
        value = self.data[self.at : end]
        self.at = end
        return value

    def text(self) -> str:
        """A string field: valid UTF-8."""
        try:
            return self.chunk().decode()
        except UnicodeDecodeError:
            raise StateInvalid(MALFORMED) from None

    def message(self) -> Cursor:
        """A message field: a cursor over its fields (this one goes on after them)."""
        end = self.length()
        if self.depth >= MAX_DEPTH:
            raise StateInvalid(MALFORMED)
        inner = Cursor(self.data, self.at, end, self.depth + 1)
        self.at = end
        return inner

    def message_bytes(self) -> bytes:
        """A message field's bytes, once every field of it skips as protobuf's parser reads
        it (a malformed one refused as the parser refuses it)."""
        inner = self.message()
        start = inner.at
        while inner.more():
            inner.skip(inner.key())
        return inner.data[start : inner.end]

    def int64s(self, key: i64, out: list[int]) -> None:
        """A repeated int64 field's values, packed (LEN) or one (VARINT)."""
        if key & 7 == VARINT:
            out.append(self.int64())
            return
        end, outer = self.length(), self.end
        self.end = end
        data = self.data
        while self.at < end:
            # a value of one or two bytes (most are: a seat's chips) read here, as varint()
            # reads it; a longer one by int64() (compiled, the calls cost more than the read)
            at = self.at
            first: i64 = data[at]
            if first < 0x80:
                out.append(first)
                self.at = at + 1
            elif at + 1 < end and data[at + 1] < 0x80:
                second: i64 = data[at + 1]
                out.append(first - 0x80 + (second << 7))
                self.at = at + 2
            else:
                out.append(self.int64())
        self.end = outer

    def uint32s(self, key: i64, out: list[int]) -> None:
        """A repeated uint32 field's values: as int64s, cut to their low 32 bits (as
        ``uint32()`` cuts a varint: 2**64 is a multiple of 2**32)."""
        start = len(out)
        self.int64s(key, out)
        for i in range(start, len(out)):
            out[i] &= _UINT32_MASK

    def booleans(self, key: i64, out: list[bool]) -> None:
        """A repeated bool field's values: as int64s, true unless 0 (a varint is 0 as an
        int64 exactly when it is as a uint64)."""
        values: list[int] = []
        self.int64s(key, values)
        out.extend([value != 0 for value in values])

    def skip(self, key: i64) -> None:
        """An unknown field (or a known one of another wire type), skipped as protobuf
        skips it: field number 0 and a stray group end are malformed."""
        if key >> 3 == 0:
            raise StateInvalid(MALFORMED)
        self._skip_value(key >> 3, key & 7)

    def _skip_value(self, number: i64, wire: i64) -> None:
        if wire == VARINT:
            self.varint()
        elif wire == FIXED64:
            self._skip_bytes(8)
        elif wire == LEN:
            self.at = self.length()
        elif wire == START_GROUP:
            self._skip_group(number)
        elif wire == FIXED32:
            self._skip_bytes(4)
        else:  # a group's end outside its group, or no wire type (6, 7)
            raise StateInvalid(MALFORMED)

    def _skip_bytes(self, size: i64) -> None:
        if size > self.end - self.at:
            raise StateInvalid(MALFORMED)
        self.at += size

    def _skip_group(self, number: i64) -> None:
        """A group's fields (any number, 0 too) up to the end of group ``number``."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise StateInvalid(MALFORMED)
        while True:
            if self.at >= self.end:
                raise StateInvalid(MALFORMED)
            key = self.key()
            if key & 7 == END_GROUP:
                if key >> 3 != number:
                    raise StateInvalid(MALFORMED)
                break
            self._skip_value(key >> 3, key & 7)
        self.depth -= 1
