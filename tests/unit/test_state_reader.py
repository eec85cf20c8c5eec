"""The state's own reader (``state.reader``, issue 22), and the pure build's way to the
same records (``state_fields.parse``), against protobuf's parser read field by field
by the schema's names (``support.state_decode_reference``): the same fields, or the same
refusal, for the states of random hands of the four games and for those states changed
at random, in ways the encoder never writes but protobuf reads (fields reordered,
repeated numbers unpacked or split, a field given twice, a message merged from two,
unknown fields of every wire type, a known field of another wire type, varints written
long, values at random) and in ways it refuses (bits flipped, bytes cut off or put in);
``codec.decode`` then gives the record or the reason that the checks give for
protobuf's reading. Deterministic seeds, bounded."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from studengine.rules.types import Table, Variant
from studengine.state import codec
from studengine.state._gen.stud.internal.v1 import state_fields, state_pb2
from studengine.state._gen.stud.internal.v1.state_fields import (
    EngineTableFields,
    read_engine_table,
)
from studengine.state._gen.stud.internal.v1.state_fields import parse as parse_state
from studengine.state._gen.stud.internal.v1.state_fields import read as read_state
from studengine.state.codec import HandRecord, StateInvalid, decode, decode_state
from studengine.state.encoding import encode
from studengine.state.reader import MALFORMED, Cursor
from support.state_decode_reference import as_tree, reference_decode, reference_fields
from support.state_reference import put_varint, read_varint
from test_generated_keys import message_class, with_fields
from test_state_encoding import every_step, record_of

VARINT, FIXED64, LEN, START_GROUP, END_GROUP, FIXED32 = range(6)
Field = tuple[int, int, bytes]  # number, wire type, value (a LEN field's without its length)


def read_outcome(read: Callable[[bytes], Any], data: bytes) -> Any:
    """The fields ``read`` finds in ``data`` (as a tree), or its refusal."""
    try:
        return as_tree(read(data))
    except StateInvalid as refused:
        return str(refused)


def decode_outcome(decoder: Callable[[bytes], HandRecord], data: bytes) -> HandRecord | str:
    try:
        return decoder(data)
    except StateInvalid as refused:
        return str(refused)


def same_as_protobuf(data: bytes) -> str:
    """The reader, the pure build's way (``state_fields.parse``) and protobuf agree on
    ``data``, and so do their decodings; the verdict: ``accepted``, ``malformed`` or
    ``refused`` (by a check)."""
    ours = read_outcome(read_state, data)
    assert ours == read_outcome(reference_fields, data), data.hex()
    assert read_outcome(parse_state, data) == ours
    if ours == MALFORMED:
        assert decode_outcome(decode, data) == MALFORMED
        return "malformed"
    state = read_state(data)
    if state.hand is not None and state.hand.table is not None:  # the codec's key for it
        again = EngineTableFields()
        read_engine_table(Cursor(state.hand.table.wire, 0, len(state.hand.table.wire), 1), again)
        assert as_tree(again, TABLE) == as_tree(state.hand.table, TABLE)
    decoded = decode_outcome(lambda raw: decode_state(read_state(raw)), data)
    assert decoded == decode_outcome(reference_decode, data), data.hex()
    assert decode_outcome(decode, data) == decoded
    return "refused" if isinstance(decoded, str) else "accepted"


# ---- the wire format, in the tests' own words (the encoder writes VARINT and LEN only) --


def split(data: bytes) -> list[Field]:
    fields, at = [], 0
    while at < len(data):
        key, at = read_varint(data, at)
        number, wire = key >> 3, key & 7
        assert wire in (VARINT, LEN)
        start = at
        if wire == LEN:
            size, start = read_varint(data, at)
            at = start + size
        else:
            _, at = read_varint(data, at)
        fields.append((number, wire, data[start:at]))
    return fields


def join(fields: list[Field]) -> bytes:
    out = bytearray()
    for number, wire, value in fields:
        put_varint(out, number << 3 | wire)
        if wire == LEN:
            put_varint(out, len(value))
        out += value
    return bytes(out)


def varint(value: int) -> bytes:
    out = bytearray()
    put_varint(out, value)
    return bytes(out)


def varints(raw: bytes) -> list[int]:
    values, at = [], 0
    while at < len(raw):
        value, at = read_varint(raw, at)
        values.append(value)
    return values


def random_varint(rng: random.Random) -> bytes:
    """A varint of any size up to 64 bits, now and then written long (up to ten bytes,
    bits past 64 in the tenth) or too long (eleven)."""
    value = rng.choice([0, 1, rng.randrange(128), rng.randrange(2**32), rng.randrange(2**64)])
    return long_varint(rng, value) if rng.random() < 0.3 else varint(value)


def long_varint(rng: random.Random, value: int) -> bytes:
    groups = [(value >> shift) & 0x7F for shift in range(0, 64, 7)]  # ten
    while len(groups) > 1 and groups[-1] == 0 and rng.random() < 0.7:
        groups.pop()
    if len(groups) == 10:
        groups[-1] |= rng.choice([0, 0x7E])  # bits past 64: cut off by the parser
    if rng.random() < 0.1:
        groups.append(0)  # eleven bytes: refused
    return bytes([g | 0x80 for g in groups[:-1]] + [groups[-1]])


def random_group(rng: random.Random, number: int, depth: int = 0) -> bytes:
    """A group field (start, fields of any wire type, end), maybe nested."""
    inner = [varint(number << 3 | START_GROUP)]
    for _ in range(rng.randrange(3)):
        inner.append(random_unknown(rng, rng.choice([0, 1, 5, 99, 2**29 - 1]), depth + 1))
    inner.append(varint(number << 3 | END_GROUP))
    return b"".join(inner)


def random_unknown(rng: random.Random, number: int, depth: int = 0) -> bytes:
    """A field ``number`` of a random wire type and value."""
    wire = rng.choice([VARINT, FIXED64, LEN, START_GROUP, FIXED32] if depth < 3 else [VARINT])
    if wire == START_GROUP:
        return random_group(rng, number, depth)
    value = {
        VARINT: random_varint(rng),
        FIXED64: rng.randbytes(8),
        LEN: varint(size := rng.randrange(6)) + rng.randbytes(size),
        FIXED32: rng.randbytes(4),
    }[wire]
    return varint(number << 3 | wire) + value


# ---- changes to one message's fields ---------------------------------------------------

Change = Callable[[random.Random, list[Field], Descriptor], list[Field]]


def reordered(rng: random.Random, fields: list[Field], _: Descriptor) -> list[Field]:
    rng.shuffle(fields)
    return fields


def unknown_added(rng: random.Random, fields: list[Field], d: Descriptor) -> list[Field]:
    number = rng.choice([max(f.number for f in d.fields) + 1, 99, 2**29 - 1])
    raw = random_unknown(rng, number)
    fields.insert(rng.randrange(len(fields) + 1), (-1, -1, raw))  # written as it is
    return fields


def unpacked(rng: random.Random, fields: list[Field], d: Descriptor) -> list[Field]:
    """Packed repeated numbers one by one (or in two packed runs, or one empty)."""
    out: list[Field] = []
    for number, wire, value in fields:
        field = d.fields_by_number.get(number)
        if not (field and field.is_repeated and wire == LEN and is_number(field)):
            out.append((number, wire, value))
            continue
        values = varints(value)
        if rng.random() < 0.5:
            out += [(number, VARINT, varint(v)) for v in values]
        else:
            cut = rng.randrange(len(values) + 1)
            out.append((number, LEN, b"".join(map(varint, values[:cut]))))
            out.append((number, LEN, b"".join(map(varint, values[cut:]))))
    return out


def given_twice(rng: random.Random, fields: list[Field], d: Descriptor) -> list[Field]:
    """A field given again further on: the same value, or (a number) another."""
    at = rng.randrange(len(fields))
    number, wire, value = fields[at]
    if wire == VARINT and rng.random() < 0.7:
        value = random_varint(rng)
    fields.insert(rng.randint(at + 1, len(fields)), (number, wire, value))
    return fields


def message_split(rng: random.Random, fields: list[Field], d: Descriptor) -> list[Field]:
    """A message field given as two (protobuf merges them)."""
    messages = [f for f in fields if message_type(d, f[0]) and f[1] == LEN]
    if not messages:
        return fields
    number, wire, value = rng.choice(messages)
    inner = split(value)
    cut = rng.randrange(len(inner) + 1)
    at = fields.index((number, wire, value))
    fields[at : at + 1] = [(number, LEN, join(inner[:cut])), (number, LEN, join(inner[cut:]))]
    return fields


def wrong_wire_type(rng: random.Random, fields: list[Field], _: Descriptor) -> list[Field]:
    """A known field of another wire type: skipped as unknown by protobuf."""
    at = rng.randrange(len(fields))
    number, wire, value = fields[at]
    if wire == VARINT:
        fields[at] = rng.choice(
            [(number, LEN, value), (-1, -1, varint(number << 3 | FIXED32) + rng.randbytes(4))]
        )
    else:
        fields[at] = rng.choice(
            [(number, VARINT, random_varint(rng)), (-1, -1, random_group(rng, number))]
        )
    return fields


def new_value(rng: random.Random, fields: list[Field], _: Descriptor) -> list[Field]:
    """A field's value changed at random (a long varint, bytes that may not be UTF-8)."""
    at = rng.randrange(len(fields))
    number, wire, value = fields[at]
    if wire == VARINT:
        value = rng.choice([random_varint(rng), long_varint(rng, varints(value)[0])])
    else:
        value = rng.choice([rng.randbytes(len(value)), value[:-1], value + rng.randbytes(2)])
    fields[at] = (number, wire, value)
    return fields


def removed(rng: random.Random, fields: list[Field], _: Descriptor) -> list[Field]:
    del fields[rng.randrange(len(fields))]
    return fields


CHANGES: tuple[Change, ...] = (
    reordered, unknown_added, unpacked, given_twice, message_split, wrong_wire_type,
    new_value, removed,
)  # fmt: skip
STATE = state_pb2.HandState.DESCRIPTOR
TABLE = state_pb2.EngineTable.DESCRIPTOR


def is_number(field: FieldDescriptor) -> bool:
    return field.type not in (field.TYPE_BYTES, field.TYPE_STRING, field.TYPE_MESSAGE)


def message_type(d: Descriptor, number: int) -> Descriptor | None:
    field = d.fields_by_number.get(number)
    return field.message_type if field else None


def join_raw(fields: list[Field]) -> bytes:
    """``join``, with the fields numbered -1 written as they are (whole, key and all)."""
    parts = [
        value if number == -1 else join([(number, wire, value)]) for number, wire, value in fields
    ]
    return b"".join(parts)


def changed(rng: random.Random, data: bytes, d: Descriptor = STATE) -> bytes:
    """``data`` with one change in one of its messages: this one, or one inside it."""
    fields = split(data)
    inner = [(at, f) for at, f in enumerate(fields) if f[1] == LEN and message_type(d, f[0])]
    if inner and rng.random() < 0.75:
        at, (number, wire, value) = rng.choice(inner)
        sub = message_type(d, number)
        assert sub is not None
        fields[at] = (number, wire, changed(rng, value, sub) if value else value)
        return join_raw(fields)
    if not fields:
        return data
    return join_raw(rng.choice(CHANGES)(rng, fields, d))


def damaged(rng: random.Random, data: bytes) -> bytes:
    """``data`` with a bit flipped, cut short, or a byte put in."""
    at = rng.randrange(len(data) + 1)
    how = rng.randrange(3)
    if how == 0 and at < len(data):
        return data[:at] + bytes([data[at] ^ 1 << rng.randrange(8)]) + data[at + 1 :]
    if how == 1:
        return data[:at]
    return data[:at] + bytes([rng.randrange(256)]) + data[at:]


@pytest.mark.parametrize("variant", list(Variant))
def test_real_and_changed_states_are_read_as_protobuf_reads_them(variant: Variant) -> None:
    rng = random.Random(f"i22d-{variant.name}")
    verdicts: Counter[str] = Counter()
    for _ in range(12):
        for hand in every_step(rng, variant):
            record = record_of(rng, hand)
            data = encode(record)
            assert same_as_protobuf(data) == "accepted"
            assert decode(data) == record
            for _ in range(4):
                mutant = changed(rng, data)
                verdicts["changed " + same_as_protobuf(mutant)] += 1
                verdicts["damaged " + same_as_protobuf(damaged(rng, mutant))] += 1
    for verdict in ("accepted", "malformed", "refused"):
        assert verdicts["changed " + verdict] > 10, verdicts
        assert verdicts["damaged " + verdict] > 10, verdicts


def test_random_bytes_are_read_as_protobuf_reads_them() -> None:
    rng = random.Random("i22d-bytes")
    for _ in range(2000):
        same_as_protobuf(rng.randbytes(rng.randrange(40)))


def groups(depth: int) -> bytes:
    """Unknown groups (field 10) nested ``depth`` deep."""
    return b"\x53" * depth + b"\x54" * depth


def in_hand(raw: bytes) -> bytes:
    return join([(7, LEN, raw)])


G, E = b"\x53", b"\x54"  # field 10's group start and end
#: protobuf's verdict on each: read (True) or malformed (False)
EDGES = {
    "empty": (b"", True),
    "field 0": (b"\x00\x01", False),
    "field 0 in a group": (G + b"\x00\x01" + E, True),
    "a group of field 0 in a group": (G + b"\x03\x04" + E, True),
    "a group's end alone": (b"\x0c", False),
    "a group's end in a message": (in_hand(b"\x0c"), False),
    "another group's end": (G + b"\x5c", False),
    "a group not ended": (G + b"\x08\x01", False),
    "a group past its message's end": (in_hand(G) + E, False),
    "wire type 6": (b"\x0e", False),
    "wire type 7 in a group": (G + b"\x0f" + E, False),
    "a known field as fixed32": (b"\x0d" + bytes(4), True),
    "fixed32 cut short": (b"\x6d\x00", False),
    "fixed64 in a group cut short": (G + b"\x09" + bytes(3), False),
    "the version past 32 bits": (b"\x08\x81\x80\x80\x80\x10", True),
    "a ten-byte varint": (b"\x18" + b"\xff" * 9 + b"\x7f", True),
    "a ten-byte varint past 64 bits": (b"\x18\x81" + b"\x80" * 8 + b"\x02", True),
    "an eleven-byte varint": (b"\x18" + b"\xff" * 10 + b"\x01", False),
    "an eleven-byte varint in a group": (G + b"\x08" + b"\xff" * 10 + b"\x01" + E, False),
    "a five-byte key": (b"\x88\x80\x80\x80\x00\x01", True),
    "a six-byte key": (b"\x88\x80\x80\x80\x80\x00\x01", False),
    "a key past 32 bits": (b"\x88\x80\x80\x80\x10\x01", False),
    "the largest field number": (b"\xf8\xff\xff\xff\x0f\x01", True),
    "a five-byte length": (b"\x12\x81\x80\x80\x80\x00x", True),
    "a six-byte length": (b"\x12\x81\x80\x80\x80\x80\x00x", False),
    "a six-byte length in a group": (G + b"\x12\x81\x80\x80\x80\x80\x00x" + E, False),
    "a length past the end": (b"\x12\x05ab", False),
    "packed numbers past their end": (in_hand(b"\x22\x02\x01\x80\x01"), False),
    "packed numbers cut short": (in_hand(b"\x22\x01\x80"), False),
    "a bool of 2**64": (in_hand(b"\x62\x0a" + b"\x80" * 9 + b"\x02"), True),
    "a negative int64": (in_hand(b"\x80\x01" + b"\xff" * 9 + b"\x01"), True),
    "a player id not UTF-8": (b"\x32\x01\xff", False),
    "a player id of a surrogate": (b"\x32\x03\xed\xa0\x80", False),
    "a player id overlong": (b"\x32\x02\xc0\x80", False),
    "a player id past U+10FFFF": (b"\x32\x04\xf4\x90\x80\x80", False),
    "a player id at U+10FFFF": (b"\x32\x04\xf4\x8f\xbf\xbf", True),
    "bytes not UTF-8 in a group": (G + b"\x2a\x01\xff" + E, True),
    "the hand as a number": (b"\x38\x01", True),
    "the hand as a group": (b"\x3b\x3c", True),
    "100 groups deep": (groups(100), True),
    "101 groups deep": (groups(101), False),
    "99 groups deep in the hand": (in_hand(groups(99)), True),
    "100 groups deep in the hand": (in_hand(groups(100)), False),
    "97 groups deep in a pot": (in_hand(join([(28, LEN, join([(1, LEN, groups(97))]))])), True),
    "98 groups deep in a pot": (in_hand(join([(28, LEN, join([(1, LEN, groups(98))]))])), False),
}


@pytest.mark.parametrize("case", EDGES)
def test_the_wire_format_edges_are_read_as_protobuf_reads_them(case: str) -> None:
    data, read = EDGES[case]
    assert (same_as_protobuf(data) == "malformed") != read
    assert (read_outcome(read_state, data) == MALFORMED) != read


def test_the_table_cache_keys_tables_by_their_bytes() -> None:
    """The same table written two ways (one with a field given twice) is made once per
    way, and both ways give the table their fields say."""
    stakes = [(1, VARINT, b"\x05"), (2, VARINT, b"\x0a"), (3, VARINT, b"\x14")]
    table = join([*stakes, (4, VARINT, b"\x28"), (5, VARINT, b"\x04"), (8, VARINT, b"\x01")])
    twice = join([(4, VARINT, b"\x01")]) + table

    def made(raw: bytes) -> Table:
        hand = read_state(in_hand(join([(2, LEN, raw)]))).hand
        assert hand is not None
        return codec._decode_table(hand.table)

    first, other, again = made(table), made(twice), made(table)
    assert first == other == Table(5, 10, 20, 40, open_pair_big_bet=False)
    assert first is again and first is not other


def test_each_distinct_table_is_read_once_and_merges_as_its_bytes_joined() -> None:
    """The reader's tables (``read_engine_table_once``): the same bytes give the same record,
    read once; a table given twice in a hand is the table of both occurrences' bytes
    joined (as protobuf merges it); a malformed table is refused each time, never kept."""
    first = join([(1, VARINT, b"\x05"), (3, VARINT, b"\x14"), (4, VARINT, b"\x28")])
    second = join([(3, VARINT, b"\x1e"), (2, VARINT, b"\x0a")])

    def table_of(hand: bytes) -> EngineTableFields:
        read = read_state(in_hand(hand)).hand
        assert read is not None and read.table is not None
        return read.table

    once = table_of(join([(2, LEN, first)]))
    assert table_of(join([(2, LEN, first)])) is once
    merged = table_of(join([(2, LEN, first), (7, LEN, b""), (2, LEN, second)]))
    assert merged.wire == first + second
    assert (merged.ante, merged.bring_in, merged.small_bet, merged.big_bet) == (5, 10, 30, 40)
    assert as_tree(merged, TABLE) == as_tree(table_of(join([(2, LEN, first + second)])), TABLE)
    broken = first + b"\x08"  # a key with no value
    for _ in range(2):
        assert read_outcome(read_state, in_hand(join([(2, LEN, broken)]))) == MALFORMED
    assert broken not in state_fields._ENGINE_TABLE_READ.found


#: how to put a message's bytes in a state, for each message of the schema
WRAPS: dict[str, Callable[[bytes], bytes]] = {
    "HandState": lambda raw: raw,
    "EngineHand": in_hand,
    "EngineTable": lambda raw: in_hand(join([(2, LEN, raw)])),
    "EngineResult": lambda raw: in_hand(join([(28, LEN, raw)])),
    "EnginePot": lambda raw: WRAPS["EngineResult"](join([(1, LEN, raw)])),
    "EngineShownHand": lambda raw: WRAPS["EngineResult"](join([(3, LEN, raw)])),
    "EngineUncalled": lambda raw: WRAPS["EngineResult"](join([(4, LEN, raw)])),
}
#: values of each wire type: numbers small, large and negative as int64, packed runs
#: whole or cut, bytes that are not UTF-8, groups empty or not
VALUES = {
    VARINT: [b"\x00", b"\x01", b"\xac\x02", varint(2**63), varint(2**64 - 1)],
    FIXED64: [bytes(range(8))],
    LEN: [b"\x00", b"\x01\x01", b"\x04\x05\x96\x01\x00", b"\x01\xff", b"\x02\xc3\xa9"],
    FIXED32: [bytes(range(4))],
}


@pytest.mark.parametrize("message", WRAPS)
def test_every_field_of_every_wire_type_is_read_as_protobuf_reads_it(message: str) -> None:
    """Each field of each message (and the next number, unknown), of each wire type:
    its own read, another one skipped; given twice, the second over the first."""
    descriptor = STATE.file.message_types_by_name[message]
    wrap = WRAPS[message]
    for number in range(1, max(f.number for f in descriptor.fields) + 2):
        for wire, values in VALUES.items():
            key = varint(number << 3 | wire)
            for value in values:
                same_as_protobuf(wrap(key + value))
                same_as_protobuf(wrap(key + value + key + values[0]))
        group = varint(number << 3 | START_GROUP), varint(number << 3 | END_GROUP)
        same_as_protobuf(wrap(group[0] + group[1]))
        same_as_protobuf(wrap(group[0] + b"\x08\x01" + group[1]))


#: the packed repeated int64, uint32 and bool fields, each as (how to put it in a
#: state, number)
PACKED = (
    *((in_hand, number) for number in (4, 7, 8, 9, 12, 13)),  # the hand's seat lists
    (in_hand, 30),  # the seats whose cards are tabled
    (WRAPS["EngineResult"], 2),  # the result's stacks
    *((WRAPS["EnginePot"], number) for number in (2, 3, 4, 5, 6)),  # a pot's lists
)
#: varints at the edges of the reader's in-place reads: one byte, two (the second's top
#: bit set or not, written long), three, past 63 bits
PACKED_EDGES = (
    b"\x00", b"\x7f", b"\x80\x00", b"\x80\x01", b"\xff\x7f", b"\xff\x80\x01",
    varint(2**63), varint(2**64 - 1),
)  # fmt: skip


def test_packed_runs_are_read_as_protobuf_reads_them() -> None:
    """The packed loops read a value of one or two bytes in place, a longer one as any
    varint (issue 22): runs of the edges and of random varints (one to eleven bytes),
    whole or cut anywhere, in every packed number field, read as protobuf does."""
    rng = random.Random("i22d-packed")
    verdicts: Counter[str] = Counter()
    for _ in range(1500):
        size = rng.randrange(1, 9)
        run = b"".join(
            rng.choice(PACKED_EDGES) if rng.random() < 0.6 else random_varint(rng)
            for _ in range(size)
        )
        if rng.random() < 0.3:
            run = run[: rng.randrange(len(run))]
        wrap, number = rng.choice(PACKED)
        verdicts[same_as_protobuf(wrap(join([(number, LEN, run)])))] += 1
    assert verdicts["malformed"] > 100 and verdicts["refused"] > 100, verdicts


def test_a_state_a_newer_schema_wrote_opens_alike_on_both_builds(tmp_path: Path) -> None:
    """The reader accepts what protobuf's parser accepts, not only what this encoder writes
    (docs/architecture.md, "What the state reader accepts"): during a rolling upgrade a
    replica of the newer build, a field added to state.proto and the format version the
    same, seals states that one of the older build opens. Such a state opens on both
    readers (the compiled build's, the pure build's protobuf) to the record of the state
    without the new fields."""
    root = tmp_path / "proto"
    with_fields(root)
    newer_state = message_class(root, tmp_path, "HandState")
    rng = random.Random("i30-newer-schema")
    opened = uncalled = 0
    for variant in Variant:
        for hand in every_step(rng, variant):
            record = record_of(rng, hand)
            newer = newer_state.FromString(encode(record))
            newer.hand.side_pot_cap = 300
            newer.hand.side_bets.extend([1, 2**40])
            if newer.hand.HasField("result"):
                for returned in newer.hand.result.uncalled:
                    returned.reason = "timeout"
                    uncalled += 1
            data = newer.SerializeToString(deterministic=True)
            assert len(data) > len(encode(record))
            assert decode_state(read_state(data)) == record
            assert decode_state(parse_state(data)) == record
            opened += 1
    assert opened > 40 and uncalled > 0
